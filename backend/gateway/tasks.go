package gateway

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-router/mcp-router/backend/pipeline"
	"github.com/mcp-router/mcp-router/backend/upstream"
)

// Tasks (the 2025-11-25 revision's tasks, "io.modelcontextprotocol/tasks"):
// a task-augmented tools/call is forwarded to the tool's upstream, which
// creates the task; the router hands the client a task id of its own and
// passes tasks/get, tasks/result and tasks/cancel on to that upstream under
// the upstream's id. Upstream connections are shared by every client, so
// the ids are mapped: two upstreams' ids never meet in one namespace, and a
// task is found only by the credential that created it (any other gets
// "not found", as for sessions). The table is bounded per credential and in
// all, and each task is forgotten after its upstream's ttl or MaxAge,
// whichever comes first (docs/endpoint.md, "Tasks"; docs/limits.md).

// The settings that raise each task cap, named in the refusals (the keys of
// backend/settings/tasks.go).
const (
	SettingTasksPerCredential = "tasksPerCredential"
	SettingTasksTotal         = "tasksTotal"
	SettingTaskMaxAge         = "taskMaxAgeSeconds"
)

// Defaults of the task caps.
const (
	DefaultTasksPerCredential = 64
	DefaultTasksTotal         = 1024
	DefaultTaskMaxAge         = time.Hour
)

// CodeTaskLimit: a task-augmented tools/call refused at a task cap (nothing
// is sent upstream); data.setting names the setting, data.limit its value.
const CodeTaskLimit = -32011

// Reasons of the router's task errors (data.reason).
const (
	ReasonTaskLimit   = "task_limit"   // CodeTaskLimit
	ReasonUnknownTask = "unknown_task" // -32602: no such task for this credential (or it expired)
	// ReasonInvalidCursor: -32602, a tasks/list cursor the router did not
	// give (it lists in one page).
	ReasonInvalidCursor = "invalid_cursor"
	ReasonTaskLost      = "task_lost" // CodeServerDown: the connection that created the task ended
	// ReasonTaskPerClient: -32602, a task-augmented call to a per-client
	// server. Its tasks would live in one client's instance, which the
	// task table (one connection per server) cannot follow; the call is
	// refused before anything is sent rather than lose the task.
	ReasonTaskPerClient = "task_per_client"
)

// TaskLimits bound the tasks the router tracks; zero fields are the
// defaults.
type TaskLimits struct {
	PerCredential int           // tasks one credential may hold at once
	Total         int           // tasks all credentials together may hold
	MaxAge        time.Duration // a task is forgotten this long after its creation at the latest
}

func (l TaskLimits) withDefaults() TaskLimits {
	if l.PerCredential <= 0 {
		l.PerCredential = DefaultTasksPerCredential
	}
	if l.Total <= 0 {
		l.Total = DefaultTasksTotal
	}
	if l.MaxAge <= 0 {
		l.MaxAge = DefaultTaskMaxAge
	}
	return l
}

// routedTask is one task an upstream created for a client.
type routedTask struct {
	id         string // the router's id, the one the client knows
	server     string
	item       string // the upstream's own name of the tool that created it
	upstreamID string
	credential string
	session    string // the session that created it: its status notifications go there
	connection int    // the upstream connection (Status.Connection) that created it
	expires    time.Time
}

// upstreamTask is a task as its upstream names it.
type upstreamTask struct{ server, id string }

// taskTable maps the router's task ids to upstream tasks. A slot is
// reserved before the upstream is asked (so a burst cannot overshoot a
// cap) and then committed or released.
type taskTable struct {
	mu        sync.Mutex
	byID      map[string]*routedTask
	byUp      map[upstreamTask]*routedTask
	perCred   map[string]int // committed and reserved
	total     int
	limits    func() TaskLimits
	now       func() time.Time
	lastSweep time.Time
}

func newTaskTable(limits func() TaskLimits) *taskTable {
	if limits == nil {
		limits = func() TaskLimits { return TaskLimits{} }
	}
	return &taskTable{byID: map[string]*routedTask{}, byUp: map[upstreamTask]*routedTask{}, perCred: map[string]int{}, limits: limits, now: time.Now}
}

// taskLimitError is the refusal of a task past a cap.
func taskLimitError(what, setting string, limit int) *pipeline.RouteError {
	return &pipeline.RouteError{Server: pipeline.RouterServer, Reason: ReasonTaskLimit, Code: CodeTaskLimit,
		What:  fmt.Sprintf("too many tasks: %s, the most allowed (setting %s); wait for tasks to expire or raise the setting", what, setting),
		Extra: map[string]any{"setting": setting, "limit": limit}}
}

// reserve takes a slot for credential, or refuses at a cap.
func (t *taskTable) reserve(credential string) error {
	l := t.limits().withDefaults()
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.perCred[credential] >= l.PerCredential || t.total >= l.Total {
		t.sweepLocked(true)
	}
	if n := t.perCred[credential]; n >= l.PerCredential {
		return taskLimitError(fmt.Sprintf("the credential %q already holds %d", credential, n), SettingTasksPerCredential, l.PerCredential)
	}
	if t.total >= l.Total {
		return taskLimitError(fmt.Sprintf("the router already tracks %d", t.total), SettingTasksTotal, l.Total)
	}
	t.perCred[credential]++
	t.total++
	return nil
}

// release gives back a reserved slot the upstream did not fill with a task.
func (t *taskTable) release(credential string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.releaseLocked(credential)
}

func (t *taskTable) releaseLocked(credential string) {
	if t.perCred[credential]--; t.perCred[credential] <= 0 {
		delete(t.perCred, credential)
	}
	t.total--
}

// commit fills a reserved slot with the upstream's task and returns the
// router's id for it. ttl is the upstream's own (nil: none). An upstream
// that names a new task by the id of one the router holds for another
// credential is refused: the two would share one upstream task.
func (t *taskTable) commit(credential, session, serverName, item, upstreamID string, connection int, ttl *int64) (*routedTask, error) {
	l := t.limits().withDefaults()
	now := t.now()
	age := l.MaxAge
	if ttl != nil && *ttl > 0 && time.Duration(*ttl)*time.Millisecond < age {
		age = time.Duration(*ttl) * time.Millisecond
	}
	rt := &routedTask{id: newTaskID(), server: serverName, item: item, upstreamID: upstreamID, credential: credential,
		session: session, connection: connection, expires: now.Add(age)}
	t.mu.Lock()
	defer t.mu.Unlock()
	key := upstreamTask{serverName, upstreamID}
	if old := t.byUp[key]; old != nil && now.Before(old.expires) && old.connection == connection && old.credential != credential {
		return nil, fmt.Errorf("the server named a new task %q, the id of a task it made for another client", upstreamID)
	}
	t.byID[rt.id] = rt
	t.byUp[key] = rt
	return rt, nil
}

// lookup finds credential's task id; nil if there is none (another
// credential's task reads the same) or it expired.
func (t *taskTable) lookup(credential, id string) *routedTask {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.sweepLocked(false)
	rt := t.byID[id]
	if rt == nil || rt.credential != credential {
		return nil
	}
	return rt
}

// serverOf names the server of task id, whoever holds it ("" if none): for
// the request log, which is the router's owner's to read.
func (t *taskTable) serverOf(id string) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if rt := t.byID[id]; rt != nil {
		return rt.server
	}
	return ""
}

// forget drops a task (its upstream connection is gone).
func (t *taskTable) forget(rt *routedTask) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.byID[rt.id] == rt {
		t.dropLocked(rt)
	}
}

// owned lists credential's live tasks, by server.
func (t *taskTable) owned(credential string) map[string][]*routedTask {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.sweepLocked(false)
	out := map[string][]*routedTask{}
	for _, rt := range t.byID {
		if rt.credential == credential {
			out[rt.server] = append(out[rt.server], rt)
		}
	}
	for _, list := range out {
		sort.Slice(list, func(i, j int) bool { return list[i].id < list[j].id })
	}
	return out
}

// sweepLocked drops expired tasks; unless forced, at most once a second.
func (t *taskTable) sweepLocked(force bool) {
	now := t.now()
	if !force && now.Sub(t.lastSweep) < time.Second {
		return
	}
	t.lastSweep = now
	for id, rt := range t.byID {
		if !now.Before(rt.expires) {
			t.dropLocked(t.byID[id])
		}
	}
}

func (t *taskTable) dropLocked(rt *routedTask) {
	delete(t.byID, rt.id)
	if k := (upstreamTask{rt.server, rt.upstreamID}); t.byUp[k] == rt {
		delete(t.byUp, k)
	}
	t.releaseLocked(rt.credential)
}

// byUpstream finds the task server knows as upstreamID; nil if the router
// holds none (another client's of the router's own, or expired).
func (t *taskTable) byUpstream(server, upstreamID string) *routedTask {
	t.mu.Lock()
	defer t.mu.Unlock()
	rt := t.byUp[upstreamTask{server, upstreamID}]
	if rt == nil || !t.now().Before(rt.expires) {
		return nil
	}
	c := *rt
	return &c
}

// newTaskID is a router task id: 128 random bits, unguessable, so a task id
// is no handle to another credential's task even if the check were missed.
func newTaskID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(fmt.Errorf("task id: %w", err)) // crypto/rand does not fail on supported platforms
	}
	return "mcpr-task-" + hex.EncodeToString(b[:])
}

// unknownTask is the answer for an id the caller's credential does not
// hold: -32602, as the spec words a nonexistent task.
// An id longer than any the router gives is clipped in it, so a client
// sending a megabyte of id does not get two back.
func unknownTask(id string) *pipeline.RouteError {
	if len(id) > maxShownTaskID {
		id = strings.ToValidUTF8(id[:maxShownTaskID], "") + "…"
	}
	return &pipeline.RouteError{Server: pipeline.RouterServer, Reason: ReasonUnknownTask, Code: mcp.INVALID_PARAMS,
		What: fmt.Sprintf("task '%s' not found", id), Extra: map[string]any{"taskId": id}}
}

// maxShownTaskID is how much of an unknown task id an error repeats: more
// than the router's own ids ("mcpr-task-" and 32 hex digits).
const maxShownTaskID = 64

// taskLost is the answer for a task whose upstream connection ended: the
// upstream's tasks went with it.
func taskLost(rt *routedTask, why string) *pipeline.RouteError {
	return &pipeline.RouteError{Server: rt.server, Reason: ReasonTaskLost, Code: pipeline.CodeServerDown,
		What:  fmt.Sprintf("task '%s' is lost: %s, and the tasks it held went with it", rt.id, why),
		Extra: map[string]any{"taskId": rt.id}}
}

// connectionOf is the server's current connection number, 0 when it is
// not running.
func connectionOf(ups Upstreams, name string) (int, string) {
	for _, st := range ups.Statuses() {
		if st.Name != name {
			continue
		}
		if st.State != upstream.StateRunning {
			return 0, fmt.Sprintf("the server is %s", st.State)
		}
		return st.Connection, ""
	}
	return 0, "the server was removed"
}
