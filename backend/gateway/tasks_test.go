package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/upstream"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// Tasks through the router, against server-everything (2026.8.31), whose
// simulate-research-query runs only as a task (execution.taskSupport
// "required", the 2025-11-25 tasks of its TypeScript SDK): the upstream
// creates the task, the router maps its id.

func asCaller(name string) http.Header { return http.Header{"X-Caller": {name}} }

// rpc posts one request on the raw session and returns its answer.
func (s *rawHTTP) rpc(id int, method, params string) []byte {
	s.t.Helper()
	status, hdr, body := s.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params))
	if status != http.StatusOK || !strings.HasPrefix(hdr.Get("Content-Type"), "application/json") {
		s.t.Fatalf("%s: HTTP %d %s: %s", method, status, hdr.Get("Content-Type"), body)
	}
	return body
}

type taskAnswer struct {
	Result struct {
		Task struct {
			TaskID string `json:"taskId"`
			Status string `json:"status"`
		} `json:"task"`
		TaskID        string `json:"taskId"`
		Status        string `json:"status"`
		StatusMessage string `json:"statusMessage"`
		Content       []struct {
			Text string `json:"text"`
		} `json:"content"`
		Meta  map[string]map[string]any `json:"_meta"`
		Tasks []struct {
			TaskID string `json:"taskId"`
		} `json:"tasks"`
	} `json:"result"`
	Error *rpcError `json:"error"`
}

func readTask(t *testing.T, body []byte) taskAnswer {
	t.Helper()
	var a taskAnswer
	if err := json.Unmarshal(body, &a); err != nil {
		t.Fatalf("answer %s: %v", body, err)
	}
	return a
}

// startResearch creates a task on server's simulate-research-query.
func startResearch(t *testing.T, s *rawHTTP, id int, server, topic string) string {
	t.Helper()
	body := s.rpc(id, "tools/call", fmt.Sprintf(`{"name":"%s__simulate-research-query","arguments":{"topic":%q},"task":{"ttl":60000}}`, server, topic))
	a := readTask(t, body)
	if a.Error != nil || !strings.HasPrefix(a.Result.Task.TaskID, "mcpr-task-") || a.Result.Task.Status != "working" {
		t.Fatalf("task-augmented call on %s: %s", server, body)
	}
	return a.Result.Task.TaskID
}

// routed is the table's entry for a router task id (a copy, under the lock).
func (r *rig) routed(id string) routedTask {
	r.gw.tasks.mu.Lock()
	defer r.gw.tasks.mu.Unlock()
	if rt := r.gw.tasks.byID[id]; rt != nil {
		return *rt
	}
	return routedTask{}
}

func (r *rig) tasksHeld() int {
	r.gw.tasks.mu.Lock()
	defer r.gw.tasks.mu.Unlock()
	return r.gw.tasks.total
}

func taskRig(t *testing.T, ro rigOptions) *rig {
	ro.auth, ro.callerFrom = headerCaller, callerFromHeader
	return newRig(t, []spec.Server{everything(t, "one", spec.PrefixAlways), everything(t, "two", spec.PrefixAlways)}, ro)
}

func TestTasksPassToTheUpstreamThatCreatedThem(t *testing.T) {
	r := taskRig(t, rigOptions{})
	alice := newRawHTTPAs(t, r.url, asCaller("alice"))

	a := startResearch(t, alice, 1, "one", "alpha")
	b := startResearch(t, alice, 2, "two", "beta")
	if a == b {
		t.Fatalf("two upstreams' tasks share the id %s", a)
	}
	ra, rb := r.routed(a), r.routed(b)
	if ra.server != "one" || rb.server != "two" || ra.upstreamID == a || rb.upstreamID == b {
		t.Fatalf("mapping: %+v %+v", ra, rb)
	}

	// Each id reaches its own upstream: the result is of the topic that
	// server was given.
	for _, c := range []struct{ id, topic string }{{a, "alpha"}, {b, "beta"}} {
		body := alice.rpc(3, "tasks/result", fmt.Sprintf(`{"taskId":%q}`, c.id))
		res := readTask(t, body)
		if res.Error != nil || len(res.Result.Content) == 0 || !strings.Contains(res.Result.Content[0].Text, "# Research Report: "+c.topic) {
			t.Fatalf("tasks/result %s: %s", c.id, body)
		}
		if got := res.Result.Meta[mcp.RelatedTaskMetaKey]["taskId"]; got != c.id {
			t.Fatalf("tasks/result %s names the related task %v: %s", c.id, got, body)
		}
		get := readTask(t, alice.rpc(4, "tasks/get", fmt.Sprintf(`{"taskId":%q}`, c.id)))
		if get.Error != nil || get.Result.TaskID != c.id || get.Result.Status != "completed" {
			t.Fatalf("tasks/get %s: %+v", c.id, get)
		}
	}
	list := readTask(t, alice.rpc(5, "tasks/list", `{}`))
	if got := len(list.Result.Tasks); got != 2 || !(list.Result.Tasks[0].TaskID == a || list.Result.Tasks[1].TaskID == a) {
		t.Fatalf("tasks/list: %+v", list)
	}

	// mcp-go's client (v1.2.1), on a session of its own under alice's
	// credential, sees the capability and reads the task.
	c := connect(t, r.url, clientOptions{headers: map[string]string{"X-Caller": "alice"}})
	if c.GetServerCapabilities().Tasks == nil {
		t.Fatal("the initialize result offers no tasks")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	got, err := c.GetTask(ctx, mcp.GetTaskRequest{Params: mcp.GetTaskParams{TaskId: b}})
	if err != nil || got.TaskId != b || got.Status != mcp.TaskStatusCompleted {
		t.Fatalf("mcp-go client's tasks/get: %+v %v", got, err)
	}
	tr, err := c.TaskResult(ctx, mcp.TaskResultRequest{Params: mcp.TaskResultParams{TaskId: b}})
	if err != nil || len(tr.Content) == 0 || !strings.Contains(tr.Content[0].(mcp.TextContent).Text, "beta") {
		t.Fatalf("mcp-go client's tasks/result: %+v %v", tr, err)
	}

	// tasks/* are logged too (the task front answers them, not mcp-go).
	if e, ok := r.log.find("tasks/result", a); !ok || e.Server != "one" || e.Status != "ok" || e.Client != "alice" ||
		!strings.Contains(e.Request, a) || !strings.Contains(e.Response, "# Research Report: alpha") {
		t.Fatalf("tasks/result log entry: %+v %v", e, ok)
	}

	// The call is logged as any tools/call, with the id the client got.
	if e, ok := r.log.find("tools/call", "one__simulate-research-query"); !ok || e.Status != "ok" || !strings.Contains(e.Response, a) {
		t.Fatalf("log entry: %+v %v", e, ok)
	}
}

// A task belongs to the credential that created it: another token gets
// exactly what a task that does not exist gets, and changes nothing.
func TestAnotherCredentialCannotReachATask(t *testing.T) {
	r := taskRig(t, rigOptions{})
	alice := newRawHTTPAs(t, r.url, asCaller("alice"))
	bob := newRawHTTPAs(t, r.url, asCaller("bob"))
	a := startResearch(t, alice, 1, "one", "alpha")

	for i, method := range []string{"tasks/get", "tasks/cancel", "tasks/result"} {
		e := errorOf(t, bob.rpc(10+i, method, fmt.Sprintf(`{"taskId":%q}`, a)))
		if e.Code != mcp.INVALID_PARAMS || e.Data["reason"] != ReasonUnknownTask || e.Message != fmt.Sprintf("mcp-router: task '%s' not found", a) {
			t.Fatalf("bob's %s of alice's task: %+v", method, e)
		}
		never := errorOf(t, bob.rpc(20+i, method, `{"taskId":"mcpr-task-0000"}`))
		if never.Code != e.Code || never.Data["reason"] != e.Data["reason"] {
			t.Fatalf("a task that never was reads %+v, another's %+v", never, e)
		}
	}
	if list := readTask(t, bob.rpc(30, "tasks/list", `{}`)); len(list.Result.Tasks) != 0 {
		t.Fatalf("bob lists %+v", list.Result.Tasks)
	}
	if e, ok := r.log.find("tasks/cancel", a); !ok || e.Client != "bob" || e.Status != "error" || !strings.Contains(e.Error, "not found") {
		t.Fatalf("bob's tasks/cancel in the log: %+v %v", e, ok)
	}
	// The upstream id is no handle either.
	up := r.routed(a).upstreamID
	if e := errorOf(t, bob.rpc(31, "tasks/get", fmt.Sprintf(`{"taskId":%q}`, up))); e.Data["reason"] != ReasonUnknownTask {
		t.Fatalf("the upstream's own id: %+v", e)
	}
	// Bob's cancel reached nobody: alice's task goes on.
	get := readTask(t, alice.rpc(40, "tasks/get", fmt.Sprintf(`{"taskId":%q}`, a)))
	if get.Error != nil || get.Result.Status == "cancelled" {
		t.Fatalf("alice's task after bob's cancel: %+v", get)
	}
	// Another session of alice's own credential reaches it (a task outlives
	// the session that created it, as a durable handle should).
	again := newRawHTTPAs(t, r.url, asCaller("alice"))
	if get := readTask(t, again.rpc(41, "tasks/get", fmt.Sprintf(`{"taskId":%q}`, a))); get.Error != nil {
		t.Fatalf("alice's second session: %+v", get)
	}
}

func TestTaskCancelReachesTheUpstream(t *testing.T) {
	r := taskRig(t, rigOptions{})
	alice := newRawHTTPAs(t, r.url, asCaller("alice"))
	a := startResearch(t, alice, 1, "one", "to be cancelled")
	if c := readTask(t, alice.rpc(2, "tasks/cancel", fmt.Sprintf(`{"taskId":%q}`, a))); c.Error != nil || c.Result.TaskID != a {
		t.Fatalf("tasks/cancel: %+v", c)
	}
	// The upstream itself says so, under its own id.
	raw, err := r.ups.Request(context.Background(), "one", "tasks/get", map[string]any{"taskId": r.routed(a).upstreamID})
	if err != nil || !strings.Contains(string(raw), `"status":"cancelled"`) {
		t.Fatalf("the upstream's task: %s %v", raw, err)
	}
	if get := readTask(t, alice.rpc(3, "tasks/get", fmt.Sprintf(`{"taskId":%q}`, a))); get.Result.Status != "cancelled" {
		t.Fatalf("tasks/get after cancel: %+v", get)
	}
}

// An upstream's tasks end with its connection: a task whose server
// restarted or stopped reports that, once, and is then forgotten.
func TestTaskOfALostConnectionSaysSo(t *testing.T) {
	r := taskRig(t, rigOptions{})
	alice := newRawHTTPAs(t, r.url, asCaller("alice"))
	a := startResearch(t, alice, 1, "one", "alpha")
	b := startResearch(t, alice, 2, "two", "beta")

	before, _ := r.ups.Status("one")
	if err := r.ups.Restart("one"); err != nil {
		t.Fatal(err)
	}
	testpeers.Eventually(t, 30*time.Second, "one running again", func() bool {
		st, _ := r.ups.Status("one")
		return st.State == upstream.StateRunning && st.Connection > before.Connection
	})
	e := errorOf(t, alice.rpc(3, "tasks/get", fmt.Sprintf(`{"taskId":%q}`, a)))
	if e.Code != -32001 || e.Data["reason"] != ReasonTaskLost || e.Data["server"] != "one" ||
		!strings.Contains(e.Message, "one: task '"+a+"' is lost: the server's connection that created it ended") {
		t.Fatalf("task of a restarted server: %+v", e)
	}
	if e := errorOf(t, alice.rpc(4, "tasks/get", fmt.Sprintf(`{"taskId":%q}`, a))); e.Data["reason"] != ReasonUnknownTask {
		t.Fatalf("a lost task asked again: %+v", e)
	}

	if err := r.ups.Stop("two"); err != nil {
		t.Fatal(err)
	}
	e = errorOf(t, alice.rpc(5, "tasks/result", fmt.Sprintf(`{"taskId":%q}`, b)))
	if e.Data["reason"] != ReasonTaskLost || !strings.Contains(e.Message, "its server's connection ended (the server is stopped)") {
		t.Fatalf("task of a stopped server: %+v", e)
	}
	if n := r.tasksHeld(); n != 0 {
		t.Fatalf("%d slots still held", n)
	}
}

func TestTasksAreBounded(t *testing.T) {
	r := taskRig(t, rigOptions{tasks: TaskLimits{PerCredential: 1, Total: 2}})
	alice := newRawHTTPAs(t, r.url, asCaller("alice"))
	bob := newRawHTTPAs(t, r.url, asCaller("bob"))
	carol := newRawHTTPAs(t, r.url, asCaller("carol"))
	startResearch(t, alice, 1, "one", "alpha")
	e := errorOf(t, alice.rpc(2, "tools/call", `{"name":"two__simulate-research-query","arguments":{"topic":"x"},"task":{}}`))
	if e.Code != CodeTaskLimit || e.Data["setting"] != SettingTasksPerCredential || e.Data["limit"] != float64(1) ||
		!strings.Contains(e.Message, `the credential "alice" already holds 1`) {
		t.Fatalf("past the per-credential cap: %+v", e)
	}
	startResearch(t, bob, 1, "two", "beta")
	e = errorOf(t, carol.rpc(1, "tools/call", `{"name":"one__simulate-research-query","arguments":{"topic":"x"},"task":{}}`))
	if e.Code != CodeTaskLimit || e.Data["setting"] != SettingTasksTotal || !strings.Contains(e.Message, "setting tasksTotal") {
		t.Fatalf("past the total cap: %+v", e)
	}
	// Nothing was sent for the refused calls: each upstream holds one task.
	for _, s := range []string{"one", "two"} {
		raw, err := r.ups.Request(context.Background(), s, "tasks/list", nil)
		if err != nil || strings.Count(string(raw), `"taskId"`) != 1 {
			t.Fatalf("%s's tasks: %s %v", s, raw, err)
		}
	}
}

func TestTaskTableExpiresAndFreesSlots(t *testing.T) {
	now := time.Unix(1000, 0)
	tt := newTaskTable(func() TaskLimits { return TaskLimits{PerCredential: 2, Total: 10, MaxAge: time.Minute} })
	tt.now = func() time.Time { return now }
	for range 2 {
		if err := tt.reserve("alice"); err != nil {
			t.Fatal(err)
		}
	}
	ttl := int64(1000)
	short, _ := tt.commit("alice", "", "one", "research", "1", 1, &ttl) // the upstream's ttl: 1 s
	long, _ := tt.commit("alice", "", "two", "research", "1", 1, nil)   // none: MaxAge
	if short.id == long.id || tt.lookup("alice", short.id).server != "one" || tt.lookup("alice", long.id).server != "two" {
		t.Fatal("two upstreams' task 1 are not two tasks")
	}
	if err := tt.reserve("alice"); err == nil {
		t.Fatal("a third task past PerCredential 2")
	}
	now = now.Add(2 * time.Second)
	if tt.lookup("alice", short.id) != nil || tt.lookup("alice", long.id) == nil {
		t.Fatal("the 1 s task outlived its ttl, or the other did not live")
	}
	if err := tt.reserve("alice"); err != nil {
		t.Fatalf("the expired task's slot: %v", err)
	}
	tt.release("alice")
	now = now.Add(time.Minute)
	if tt.lookup("alice", long.id) != nil || tt.total != 0 {
		t.Fatalf("MaxAge: %d held", tt.total)
	}

	// An upstream that names bob's new task by alice's task's id gets no
	// second handle to alice's task.
	_ = tt.reserve("alice")
	mine, _ := tt.commit("alice", "", "one", "research", "7", 1, nil)
	_ = tt.reserve("bob")
	if _, err := tt.commit("bob", "", "one", "research", "7", 1, nil); err == nil || !strings.Contains(err.Error(), `the id of a task it made for another client`) {
		t.Fatalf("a reused upstream id: %v", err)
	}
	tt.release("bob")
	if got := tt.byUpstream("one", "7"); got == nil || got.id != mine.id {
		t.Fatalf("the reused id now maps to %+v", got)
	}
}

// A caller whose token does not allow the server cannot create a task
// there: the chain refuses it as any call, and no slot is held.
func TestScopedTokenCannotCreateATaskOutsideItsScope(t *testing.T) {
	r := taskRig(t, rigOptions{})
	scoped := newRawHTTPAs(t, r.url, asCaller("scoped"))
	e := errorOf(t, scoped.rpc(1, "tools/call", `{"name":"one__simulate-research-query","arguments":{"topic":"x"},"task":{}}`))
	if e.Data["reason"] != "unknown_tool" || r.tasksHeld() != 0 {
		t.Fatalf("scoped: %+v, %d held", e, r.tasksHeld())
	}
	raw, err := r.ups.Request(context.Background(), "one", "tasks/list", nil)
	if err != nil || strings.Contains(string(raw), `"taskId"`) {
		t.Fatalf("one's tasks: %s %v", raw, err)
	}
}

// The tasks capability is offered only while an upstream offers a tool
// that runs as a task.
func TestTasksAdvertisedOnlyWhenAnUpstreamOffersThem(t *testing.T) {
	initialize := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	caps := func(url string) map[string]any {
		s := &rawHTTP{url: url, t: t}
		_, _, body := s.post(initialize)
		var res struct {
			Result struct {
				Capabilities map[string]any `json:"capabilities"`
			} `json:"result"`
		}
		if err := json.Unmarshal(body, &res); err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		return res.Result.Capabilities
	}
	with := newRig(t, []spec.Server{everything(t, "one", spec.PrefixAlways)}, rigOptions{})
	tasks, ok := caps(with.url)["tasks"].(map[string]any)
	if !ok || tasks["cancel"] == nil || tasks["list"] == nil {
		t.Fatalf("with server-everything: tasks %v", caps(with.url)["tasks"])
	}
	without := newRig(t, []spec.Server{recorder("rec", false)}, rigOptions{})
	if c := caps(without.url); c["tasks"] != nil {
		t.Fatalf("without a task tool: %v", c)
	}
	// While servers are still to come, one may offer tasks: initialize is
	// answered before they are up, and clients decide from it.
	without.gw.HoldForServers()
	if c := caps(without.url); c["tasks"] == nil {
		t.Fatalf("while servers start: %v", c)
	}
	without.gw.ServersLoaded()
	if c := caps(without.url); c["tasks"] != nil {
		t.Fatalf("once they are up, without a task tool: %v", c)
	}
}

// The upstream's notifications/tasks/status reach the session that created
// the task, under the router's id; another session of the same credential
// gets none of them.
func TestTaskStatusReachesTheCreatingSession(t *testing.T) {
	r := taskRig(t, rigOptions{})
	type seen struct {
		mu  sync.Mutex
		ids []string
	}
	listen := func() (*client.Client, *seen) {
		s := &seen{}
		c := connect(t, r.url, clientOptions{headers: map[string]string{"X-Caller": "alice"}, onNote: func(n mcp.JSONRPCNotification) {
			if n.Method == string(mcp.MethodNotificationTasksStatus) {
				s.mu.Lock()
				s.ids = append(s.ids, fmt.Sprint(n.Params.AdditionalFields["taskId"], " ", n.Params.AdditionalFields["status"]))
				s.mu.Unlock()
			}
		}})
		return c, s
	}
	creator, got := listen()
	_, other := listen()
	raw := &rawHTTP{url: r.url, sid: creator.GetSessionId(), t: t, header: asCaller("alice")}
	a := startResearch(t, raw, 1, "one", "alpha")
	testpeers.Eventually(t, 30*time.Second, "the completed status on the creator's session", func() bool {
		got.mu.Lock()
		defer got.mu.Unlock()
		return slices.Contains(got.ids, a+" completed")
	})
	got.mu.Lock()
	for _, s := range got.ids {
		if !strings.HasPrefix(s, a+" ") {
			t.Errorf("a status under another id: %q", s)
		}
	}
	got.mu.Unlock()
	other.mu.Lock()
	defer other.mu.Unlock()
	if len(other.ids) != 0 {
		t.Fatalf("another session got %v", other.ids)
	}
}

// A task that needs input (server-everything's research of an ambiguous
// topic asks for a clarification, 2025-11-25 style: the upstream sends its
// elicitation/create while the client waits in tasks/result): the question
// reaches the client that waits, on that request's own stream, and its
// answer reaches the upstream task.
func TestTaskQuestionReachesTheWaitingClient(t *testing.T) {
	r := taskRig(t, rigOptions{allClientSide: true})
	var asked []string
	var mu sync.Mutex
	c := connect(t, r.url, clientOptions{headers: map[string]string{"X-Caller": "alice"}, noGET: true,
		elicitation: elicitFunc(func(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
			mu.Lock()
			asked = append(asked, req.Params.Message)
			mu.Unlock()
			return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept,
				Content: map[string]any{"interpretation": "the routing kind"}}}, nil
		})})
	raw := &rawHTTP{url: r.url, sid: c.GetSessionId(), t: t, header: asCaller("alice")}
	body := raw.rpc(1, "tools/call", `{"name":"one__simulate-research-query","arguments":{"topic":"routers","ambiguous":true},"task":{"ttl":60000}}`)
	a := readTask(t, body).Result.Task.TaskID
	if a == "" {
		t.Fatalf("no task: %s", body)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := c.TaskResult(ctx, mcp.TaskResultRequest{Params: mcp.TaskResultParams{TaskId: a}})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asked) != 1 || !strings.Contains(asked[0], `"routers" could have multiple interpretations`) {
		t.Fatalf("asked %q", asked)
	}
	if text := res.Content[0].(mcp.TextContent).Text; !strings.Contains(text, "**Clarification**: the routing kind") {
		t.Fatalf("the report: %s", text)
	}
}

type elicitFunc func(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error)

func (f elicitFunc) Elicit(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	return f(ctx, req)
}

// A per-client server's task would live in one client's instance, which the
// task table cannot follow: the task-augmented call is refused, clearly and
// before anything reaches an instance, and no slot is held.
func TestTaskOnAPerClientServerIsRefused(t *testing.T) {
	pc := everything(t, "pc", spec.PrefixAlways)
	pc.Isolation = spec.PerClient
	r := newRig(t, []spec.Server{pc}, rigOptions{auth: headerCaller, callerFrom: callerFromHeader})
	alice := newRawHTTPAs(t, r.url, asCaller("alice"))
	body := alice.rpc(1, "tools/call", `{"name":"pc__simulate-research-query","arguments":{"topic":"x"},"task":{"ttl":60000}}`)
	a := readTask(t, body)
	if a.Error == nil || a.Error.Code != -32602 || !strings.Contains(a.Error.Message, "per-client") || a.Result.Task.TaskID != "" {
		t.Fatalf("task-augmented call on a per-client server: %s", body)
	}
	if n := len(r.gw.tasks.owned("alice")); n != 0 {
		t.Fatalf("the refused call holds %d task slots", n)
	}
	if st, _ := r.ups.Status("pc"); len(st.Instances) != 0 {
		t.Fatalf("the refused call started an instance: %+v", st.Instances)
	}
}
