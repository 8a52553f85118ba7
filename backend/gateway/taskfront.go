package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-router/mcp-router/backend/gate"
	"github.com/mcp-router/mcp-router/backend/pipeline"
	"github.com/mcp-router/mcp-router/backend/store"
)

// The front of tasks on /mcp (tasks.go has the table). mcp-go (v1.2.1)
// runs a task-augmented tools/call as a task of its own server, calling the
// router's handler synchronously in the background, and answers tasks/*
// from that store: the upstream never sees the task, and a tool that runs
// only as a task fails there. So a session's task requests are answered
// here, before mcp-go, as the fast path answers plain calls.

// taskParams is what the front reads of a tasks/* request.
type taskParams struct {
	Params struct {
		TaskID string `json:"taskId"`
	} `json:"params"`
}

// serveTaskRequest answers a task-augmented tools/call of a tool whose
// upstream runs it as a task, and tasks/get, tasks/result, tasks/cancel and
// tasks/list, on an initialized streamable HTTP session of the 2025
// revisions. It reports false, having written nothing, for anything else.
func (g *Gateway) serveTaskRequest(w http.ResponseWriter, r *http.Request, m *message, body []byte) bool {
	if !g.isTaskRequest(m) {
		return false
	}
	v, ok := g.fast.sessions.m.Load(r.Header.Get(server.HeaderKeySessionID))
	if !ok {
		return false
	}
	s := v.(server.ClientSession)
	// What the upstream asks while the request waits (a task's question,
	// sent during tasks/result) goes on this request's own response, as
	// for a call on the fast path (callstream.go).
	resp := &fastResponse{w: w}
	ctx := withCallStream(r.Context(), &callStream{asks: g.asks, sessionID: s.SessionID(), sink: resp})
	start := time.Now()
	res, err := g.answerTask(ctx, s, m, body)
	resp.answer(rpcBody(m.ID, res, err))
	g.logTask(ctx, m, body, start, res, err)
	return true
}

// isTaskRequest reports whether the task front answers m (a session's
// request of the 2025 revisions): a task-augmented tools/call of a tool
// that may run as a task, or tasks/get, tasks/result, tasks/cancel,
// tasks/list. An ability or an activate tool is called as mcp-go calls it;
// an unknown tool mcp-go refuses.
func (g *Gateway) isTaskRequest(m *message) bool {
	if m.JSONRPC != mcp.JSONRPC_VERSION || len(bytes.TrimSpace(m.ID)) == 0 {
		return false
	}
	switch m.Method {
	case string(mcp.MethodToolsCall):
		if t := bytes.TrimSpace(m.Params.Task); len(t) == 0 || string(t) == "null" {
			return false
		}
		g.mu.RLock()
		un, known := g.tools[m.Params.Name]
		taskTool := g.taskTools[m.Params.Name]
		_, ability := g.abilities[m.Params.Name]
		g.mu.RUnlock()
		return known && taskTool && !ability && un.Item != gate.ActivateItem
	case string(mcp.MethodTasksGet), string(mcp.MethodTasksResult), string(mcp.MethodTasksCancel), string(mcp.MethodTasksList):
		return true
	}
	return false
}

// answerTask answers a request isTaskRequest took, of session s.
func (g *Gateway) answerTask(ctx context.Context, s server.ClientSession, m *message, body []byte) (json.RawMessage, error) {
	client := pipeline.Client{Session: s}
	credential := g.sessions.credential(ctx)
	switch m.Method {
	case string(mcp.MethodToolsCall):
		g.mu.RLock()
		un, known := g.tools[m.Params.Name]
		g.mu.RUnlock()
		if !known { // unpublished since isTaskRequest looked
			return nil, pipeline.UnknownTool(m.Params.Name)
		}
		return g.createTask(ctx, client, credential, un, m)
	case string(mcp.MethodTasksList):
		var p struct {
			Params struct {
				Cursor *string `json:"cursor"`
			} `json:"params"`
		}
		if err := json.Unmarshal(body, &p); err != nil {
			return nil, &pipeline.RouteError{Server: pipeline.RouterServer, Reason: ReasonInvalidCursor, Code: mcp.INVALID_PARAMS,
				What: "malformed tasks/list params: " + err.Error()}
		}
		// The router lists a credential's tasks in one page and gives no
		// nextCursor, so any cursor is not one of its own.
		if p.Params.Cursor != nil && *p.Params.Cursor != "" {
			return nil, &pipeline.RouteError{Server: pipeline.RouterServer, Reason: ReasonInvalidCursor, Code: mcp.INVALID_PARAMS,
				What: "tasks/list has one page: the cursor is not one the router gave"}
		}
		return g.listTasks(ctx, credential)
	}
	var p taskParams
	if err := json.Unmarshal(body, &p); err != nil {
		return nil, &pipeline.RouteError{Server: pipeline.RouterServer, Reason: ReasonUnknownTask, Code: mcp.INVALID_PARAMS,
			What: "malformed " + m.Method + " params: " + err.Error()}
	}
	return g.forwardTask(ctx, client, credential, m.Method, p.Params.TaskID)
}

// createTask sends a task-augmented tools/call through the chain (scope,
// gate, policy, hooks, log, as any call) to the tool's upstream, and
// records the task it creates under an id of the router's.
func (g *Gateway) createTask(ctx context.Context, client pipeline.Client, credential string, un upstreamName, m *message) (json.RawMessage, error) {
	if pc, ok := g.ups.(PerClientUpstreams); ok && pc.IsPerClient(un.Server) {
		return nil, &pipeline.RouteError{Server: un.Server, Reason: ReasonTaskPerClient, Code: mcp.INVALID_PARAMS,
			What: fmt.Sprintf("server %q is per-client: the router does not pass tasks to per-client servers; call %s without task params, or make the server shared (docs/perclient.md)", un.Server, m.Params.Name)}
	}
	if err := g.tasks.reserve(credential); err != nil {
		return nil, err
	}
	committed := false
	defer func() {
		if !committed {
			g.tasks.release(credential)
		}
	}()
	req := &pipeline.Request{Method: pipeline.MethodToolsCall, Client: client,
		Server: un.Server, Item: un.Item, Target: m.Params.Name, Task: bytes.TrimSpace(m.Params.Task)}
	if a := bytes.TrimSpace(m.Params.Arguments); len(a) > 0 && string(a) != "null" {
		req.Args = a
	}
	if !emptyMeta(m.Params.Meta) {
		var meta mcp.Meta
		if err := json.Unmarshal(m.Params.Meta, &meta); err == nil {
			req.Meta = &meta
		}
	}
	// The task is recorded as the upstream's answer is decoded, inside the
	// chain, so that the log step records the id the client gets.
	req.Decode = func(raw json.RawMessage) (any, error) {
		var created struct {
			Task *struct {
				TaskID string `json:"taskId"`
				TTL    *int64 `json:"ttl"`
			} `json:"task"`
		}
		if json.Unmarshal(raw, &created) != nil || created.Task == nil || created.Task.TaskID == "" {
			return raw, nil // the upstream answered at once: an ordinary result
		}
		// The connection that answered is the one that holds the task
		// (read now: the server may have restarted while the call was sent).
		conn, _ := connectionOf(g.ups, un.Server)
		rt, err := g.tasks.commit(credential, client.SessionID(), un.Server, un.Item, created.Task.TaskID, conn, created.Task.TTL)
		if err != nil {
			return nil, err // send words it as a bad response of the server
		}
		committed = true
		return rewriteTaskID(raw, created.Task.TaskID, rt.id)
	}
	res, err := g.chain.Serve(ctx, req)
	if err != nil {
		return nil, err
	}
	return res.JSON()
}

// forwardTask passes tasks/get, tasks/result or tasks/cancel to the
// upstream that created the task, under the upstream's id. A tasks/result
// is registered as a call of client's on that server, as a tools/call is:
// a 2025-11-25 upstream sends the questions of a task in input_required
// while it waits, and they go to this client (where server-to-client
// requests go, docs/endpoint.md).
func (g *Gateway) forwardTask(ctx context.Context, client pipeline.Client, credential, method, id string) (json.RawMessage, error) {
	rt := g.tasks.lookup(credential, id)
	if rt == nil || !g.mayReach(ctx, rt) {
		return nil, unknownTask(id)
	}
	if err := g.taskAlive(rt); err != nil {
		return nil, err
	}
	if method == string(mcp.MethodTasksResult) && client.Session != nil {
		var f *inflight
		ctx, f = g.begin(ctx, rt.server, client, nil)
		defer g.call.end(f)
	}
	raw, err := g.ups.Request(ctx, rt.server, method, map[string]any{"taskId": rt.upstreamID})
	if err != nil {
		return nil, pipeline.Upstream(rt.server, err)
	}
	return rewriteTaskID(raw, rt.upstreamID, rt.id)
}

// mayReach reports whether the caller's scope still includes the tool that
// created rt (a token's servers, a JWT's tool scopes).
func (g *Gateway) mayReach(ctx context.Context, rt *routedTask) bool {
	return g.o.CallerFrom(ctx).MayCall(rt.server, rt.item)
}

// taskAlive checks that the connection that created rt is the server's
// current one: an upstream's tasks do not outlive its connection (process
// restarted, HTTP session lost). A lost task is forgotten.
func (g *Gateway) taskAlive(rt *routedTask) error {
	conn, why := connectionOf(g.ups, rt.server)
	if conn == rt.connection && conn != 0 {
		return nil
	}
	if why == "" {
		why = fmt.Sprintf("the server's connection that created it ended (connection %d; now %d)", rt.connection, conn)
	} else {
		why = "its server's connection ended (" + why + ")"
	}
	g.tasks.forget(rt)
	return taskLost(rt, why)
}

// listTasks answers tasks/list with the caller's own tasks, each as its
// upstream reports it now (tasks/get); tasks their upstream no longer
// knows, or whose connection ended, are left out. The caps bound the list,
// so it comes in one page; a task whose upstream does not answer within
// taskListWait is left out.
func (g *Gateway) listTasks(ctx context.Context, credential string) (json.RawMessage, error) {
	tasks := []json.RawMessage{}
	for _, list := range g.tasks.owned(credential) {
		for _, rt := range list {
			if !g.mayReach(ctx, rt) || g.taskAlive(rt) != nil {
				continue
			}
			rctx, cancel := context.WithTimeout(ctx, taskListWait)
			raw, err := g.ups.Request(rctx, rt.server, string(mcp.MethodTasksGet), map[string]any{"taskId": rt.upstreamID})
			cancel()
			if err != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				continue
			}
			fields := map[string]json.RawMessage{}
			if json.Unmarshal(raw, &fields) != nil {
				continue
			}
			delete(fields, "_meta")
			delete(fields, "resultType")
			fields["taskId"], _ = json.Marshal(rt.id)
			b, err := json.Marshal(fields)
			if err != nil {
				continue
			}
			tasks = append(tasks, b)
		}
	}
	return json.Marshal(map[string]any{"tasks": tasks})
}

// taskListWait bounds each upstream's answer about one task in tasks/list:
// one slow server must not hold the list for its whole timeout per task.
const taskListWait = 5 * time.Second

// relatedTaskKey is the _meta key that ties a message to a task.
const relatedTaskKey = mcp.RelatedTaskMetaKey

// rewriteTaskID replaces the upstream's task id by the router's wherever a
// task result carries it: taskId (tasks/get, tasks/cancel), task.taskId
// (a created task) and the related-task _meta (tasks/result). Everything
// else passes byte for byte.
func rewriteTaskID(raw json.RawMessage, from, to string) (json.RawMessage, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		return nil, pipeline.BadResponse(pipeline.RouterServer, "task", err)
	}
	toJSON, _ := json.Marshal(to)
	swap := func(obj map[string]json.RawMessage) bool {
		var id string
		if json.Unmarshal(obj["taskId"], &id) == nil && id == from {
			obj["taskId"] = toJSON
			return true
		}
		return false
	}
	swap(top)
	for _, key := range []string{"task", "_meta"} {
		inner, ok := top[key]
		if !ok {
			continue
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal(inner, &obj) != nil || obj == nil {
			continue
		}
		changed := false
		if key == "task" {
			changed = swap(obj)
		} else if rel, ok := obj[relatedTaskKey]; ok {
			var relObj map[string]json.RawMessage
			if json.Unmarshal(rel, &relObj) == nil && relObj != nil && swap(relObj) {
				obj[relatedTaskKey], _ = json.Marshal(relObj)
				changed = true
			}
		}
		if changed {
			top[key], _ = json.Marshal(obj)
		}
	}
	return json.Marshal(top)
}

// writeRPC writes the JSON-RPC answer to a request with the raw id: the
// result, or err in the router's error format.
func writeRPC(w http.ResponseWriter, id json.RawMessage, result json.RawMessage, err error) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(rpcBody(id, result, err))
}

// rpcBody is the JSON-RPC answer (and a newline) to a request with the raw
// id: the result, or err in the router's error format.
func rpcBody(id json.RawMessage, result json.RawMessage, err error) []byte {
	var body []byte
	if err != nil {
		var re *pipeline.RouteError
		var details mcp.JSONRPCErrorDetails
		if errors.As(err, &re) {
			details = mcp.NewJSONRPCErrorDetails(re.Code, re.Error(), re.Data())
		} else {
			details = mcp.NewJSONRPCErrorDetails(mcp.INTERNAL_ERROR, err.Error(), nil)
		}
		body, _ = json.Marshal(struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Error   any             `json:"error"`
		}{mcp.JSONRPC_VERSION, id, details})
	} else {
		body, _ = json.Marshal(struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Result  json.RawMessage `json:"result"`
		}{mcp.JSONRPC_VERSION, id, result})
	}
	return append(body, '\n')
}

// advertiseTasks adds the tasks capability to the initialize result of a
// streamable HTTP session, or of the stdio session behind StdioFront, when
// a running upstream offers a tool that runs as a task, or a server is
// still starting: only on those transports does the
// router pass tasks on (the legacy SSE transport answers them with mcp-go's
// refusal).
func (g *Gateway) advertiseTasks(hooks *server.Hooks) {
	hooks.AddAfterInitialize(func(ctx context.Context, _ any, _ *mcp.InitializeRequest, res *mcp.InitializeResult) {
		s := server.ClientSessionFromContext(ctx)
		if s == nil || !(isStreamableSession(s) || s.SessionID() == stdioSessionID && g.stdio.on.Load()) {
			return
		}
		g.mu.RLock()
		offered := len(g.taskTools) > 0
		g.mu.RUnlock()
		// initialize is answered before the servers are up (startup.go),
		// and clients such as the TypeScript SDK's decide from it alone
		// whether to run any task: while a server is still starting, one
		// that offers tasks may be on its way.
		if offered || g.startup.anyStarting() {
			res.Capabilities.Tasks = mcp.NewTasksCapability()
		}
	})
}

// taskStatus passes an upstream's notifications/tasks/status to the session
// that created the task, under the router's id. A status of a task the
// router does not hold (made before a restart, expired) goes nowhere.
func (g *Gateway) taskStatus(upstreamName string, n mcp.JSONRPCNotification) {
	id, _ := n.Params.AdditionalFields["taskId"].(string)
	rt := g.tasks.byUpstream(upstreamName, id)
	if rt == nil || rt.session == "" {
		return
	}
	params := make(map[string]any, len(n.Params.AdditionalFields))
	for k, v := range n.Params.AdditionalFields {
		params[k] = v
	}
	params["taskId"] = rt.id
	if err := g.srv.SendNotificationToSpecificClient(rt.session, n.Method, params); err != nil {
		g.log.WithField("server", upstreamName).Debugf("task status not delivered: %v", err)
	}
}

// logTask records a tasks/* request in the request log, as mcp-go's path
// records the requests the chain never sees (logging.go): the task front
// answers them before mcp-go. A task-augmented tools/call is the chain's
// to log.
func (g *Gateway) logTask(ctx context.Context, m *message, body []byte, start time.Time, res json.RawMessage, err error) {
	if g.o.RequestLog == nil || m.Method == string(mcp.MethodToolsCall) {
		return
	}
	var req struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	_ = json.Unmarshal(body, &req)
	var p taskParams
	_ = json.Unmarshal(body, &p)
	e := store.RequestLog{Time: start, Client: g.o.CallerFrom(ctx).Name, Method: m.Method,
		Server: g.tasks.serverOf(p.Params.TaskID), Target: p.Params.TaskID,
		DurationMs: float64(time.Since(start).Microseconds()) / 1000, Status: store.StatusOK}
	if b, merr := json.Marshal(req); merr == nil {
		e.Request = string(b)
	}
	if err != nil {
		e.Status, e.Error = store.StatusError, err.Error()
		var re *pipeline.RouteError
		if e.Server == "" && errors.As(err, &re) && re.Server != pipeline.RouterServer {
			e.Server = re.Server // a lost task, forgotten by now
		}
	} else {
		e.Response = string(res)
	}
	g.o.RequestLog.Log(e)
}
