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
)

// Tasks for a 2026-07-28 client: the io.modelcontextprotocol/tasks
// extension (ext-tasks, SEP-2663), translated to and from the 2025-11-25
// tasks of the router's upstream connections. The client declares the
// extension in each request's clientCapabilities; the server decides per
// call whether to make a task and says so with resultType "task"; the
// client polls tasks/get (which inlines the result or error), answers
// questions with tasks/update and cancels with tasks/cancel. The table,
// the credential binding and the caps are the same as for sessions
// (tasks.go).

// TasksExtension is the extension's identifier.
const TasksExtension = "io.modelcontextprotocol/tasks"

// modernTaskMeta is what the front reads of a 2026-07-28 request's _meta.
type modernTaskMeta struct {
	Params struct {
		TaskID string `json:"taskId"`
		Meta   struct {
			ProtocolVersion string `json:"io.modelcontextprotocol/protocolVersion"`
			ClientInfo      *struct {
				Name    string `json:"name"`
				Version string `json:"version"`
			} `json:"io.modelcontextprotocol/clientInfo"`
			Capabilities *struct {
				Extensions map[string]json.RawMessage `json:"extensions"`
			} `json:"io.modelcontextprotocol/clientCapabilities"`
		} `json:"_meta"`
	} `json:"params"`
}

func (m modernTaskMeta) declaresTasks() bool {
	caps := m.Params.Meta.Capabilities
	if caps == nil {
		return false
	}
	_, ok := caps.Extensions[TasksExtension]
	return ok
}

// missingTasksExtension is the -32021 the extension prescribes for a client
// that did not declare it.
func missingTasksExtension(what string) *pipeline.RouteError {
	return &pipeline.RouteError{Server: pipeline.RouterServer, Reason: pipeline.ReasonMissingCapability,
		Code: mcp.MISSING_REQUIRED_CLIENT_CAPABILITY,
		What: what + " needs the " + TasksExtension + " extension, which the request's clientCapabilities do not declare",
		Extra: map[string]any{"requiredCapabilities": map[string]any{
			"extensions": map[string]any{TasksExtension: map[string]any{}}}}}
}

// serveModernTask answers a 2026-07-28 client's tools/call of a tool that
// runs as a task (when it declares the extension, or when the tool runs
// only as a task) and its tasks/get, tasks/update and tasks/cancel. It
// reports false, having written nothing, for anything else, which mcp-go
// then answers.
func (g *Gateway) serveModernTask(w http.ResponseWriter, r *http.Request, m *message, body []byte) bool {
	if m.JSONRPC != mcp.JSONRPC_VERSION || len(bytes.TrimSpace(m.ID)) == 0 {
		return false
	}
	switch m.Method {
	case string(mcp.MethodToolsCall), string(mcp.MethodTasksGet), string(mcp.MethodTasksCancel), "tasks/update":
	default:
		return false
	}
	var meta modernTaskMeta
	if json.Unmarshal(body, &meta) != nil || !mcp.IsModernProtocol(meta.Params.Meta.ProtocolVersion) ||
		!mcp.IsValidProtocolVersion(meta.Params.Meta.ProtocolVersion) {
		return false // mcp-go answers what is wrong with it
	}
	ctx := r.Context()
	credential := g.sessions.credential(ctx)
	var res json.RawMessage
	var err error
	if m.Method == string(mcp.MethodToolsCall) {
		if len(m.Params.Task) > 0 {
			return false // the 2025-11-25 shape: not this revision's
		}
		g.mu.RLock()
		un, known := g.tools[m.Params.Name]
		taskTool, taskOnly := g.taskTools[m.Params.Name], g.taskOnly[m.Params.Name]
		_, ability := g.abilities[m.Params.Name]
		g.mu.RUnlock()
		if !known || !taskTool || ability || un.Item == gate.ActivateItem {
			return false
		}
		switch {
		case meta.declaresTasks():
			res, err = g.createModernTask(ctx, credential, un, m, meta)
		case taskOnly:
			err = missingTasksExtension(fmt.Sprintf("tool '%s' runs only as a task: it", m.Params.Name))
		default:
			return false // called synchronously, as any tool
		}
		writeRPC(w, m.ID, res, err)
		return true
	}
	id := meta.Params.TaskID
	// The extension routes by Mcp-Name: it must name the task the body does.
	if n := r.Header.Get(mcp.HeaderName); n != "" && n != id {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		b, _ := json.Marshal(map[string]any{"jsonrpc": mcp.JSONRPC_VERSION, "id": m.ID, "error": mcp.NewJSONRPCErrorDetails(
			mcp.HEADER_MISMATCH, fmt.Sprintf("header %s %q does not match params.taskId %q", mcp.HeaderName, n, id), nil)})
		_, _ = w.Write(append(b, '\n'))
		return true
	}
	start := time.Now()
	if !meta.declaresTasks() {
		err = missingTasksExtension(m.Method)
		writeRPC(w, m.ID, nil, err)
		g.logTask(ctx, m, body, start, nil, err)
		return true
	}
	switch m.Method {
	case string(mcp.MethodTasksGet):
		res, err = g.getModernTask(ctx, credential, id)
	case string(mcp.MethodTasksCancel):
		if _, err = g.forwardTask(ctx, pipeline.Client{Modern: true}, credential, m.Method, id); err == nil {
			res = json.RawMessage(`{"resultType":"complete"}`)
		}
	default: // tasks/update
		res, err = g.updateModernTask(ctx, credential, id)
	}
	writeRPC(w, m.ID, res, err)
	g.logTask(ctx, m, body, start, res, err)
	return true
}

// createModernTask makes the upstream run the call as a task (the
// 2025-11-25 task params) and answers with the extension's CreateTaskResult.
func (g *Gateway) createModernTask(ctx context.Context, credential string, un upstreamName, m *message, meta modernTaskMeta) (json.RawMessage, error) {
	client := pipeline.Client{Modern: true}
	if ci := meta.Params.Meta.ClientInfo; ci != nil {
		client.Name, client.Version = ci.Name, ci.Version
	}
	m.Params.Task = json.RawMessage(`{}`)
	raw, err := g.createTask(ctx, client, credential, un, m)
	if err != nil {
		return nil, err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return nil, pipeline.BadResponse(un.Server, pipeline.MethodToolsCall, err)
	}
	task, ok := fields["task"]
	if !ok {
		// An ordinary result: the call ran at once.
		if _, has := fields["resultType"]; !has {
			fields["resultType"] = json.RawMessage(`"complete"`)
		}
		return json.Marshal(fields)
	}
	out, err := modernTask(task)
	if err != nil {
		return nil, pipeline.BadResponse(un.Server, pipeline.MethodToolsCall, err)
	}
	out["resultType"] = json.RawMessage(`"task"`)
	return json.Marshal(out)
}

// modernTask is a 2025-11-25 Task in the extension's shape: ttl and
// pollInterval become ttlMs and pollIntervalMs; the rest stays.
func modernTask(raw json.RawMessage) (map[string]json.RawMessage, error) {
	var t map[string]json.RawMessage
	if err := json.Unmarshal(raw, &t); err != nil || t == nil {
		return nil, fmt.Errorf("the task is not an object: %s", raw)
	}
	out := make(map[string]json.RawMessage, len(t))
	for k, v := range t {
		switch k {
		case "ttl":
			out["ttlMs"] = v
		case "pollInterval":
			out["pollIntervalMs"] = v
		case "_meta", "resultType":
		default:
			out[k] = v
		}
	}
	if _, ok := out["ttlMs"]; !ok {
		out["ttlMs"] = json.RawMessage("null")
	}
	return out, nil
}

// getModernTask answers tasks/get with the extension's DetailedTask: the
// upstream's task, and, once it has ended, its result (completed) or
// JSON-RPC error (failed), read with tasks/result, which then no longer
// waits.
func (g *Gateway) getModernTask(ctx context.Context, credential, id string) (json.RawMessage, error) {
	raw, err := g.forwardTask(ctx, pipeline.Client{Modern: true}, credential, string(mcp.MethodTasksGet), id)
	if err != nil {
		return nil, err
	}
	out, err := modernTask(raw)
	if err != nil {
		return nil, pipeline.BadResponse(pipeline.RouterServer, string(mcp.MethodTasksGet), err)
	}
	var status string
	_ = json.Unmarshal(out["status"], &status)
	switch mcp.TaskStatus(status) {
	case mcp.TaskStatusCompleted, mcp.TaskStatusFailed:
		res, rerr := g.forwardTask(ctx, pipeline.Client{Modern: true}, credential, string(mcp.MethodTasksResult), id)
		var re *pipeline.RouteError
		switch {
		case rerr == nil:
			var fields map[string]json.RawMessage
			if json.Unmarshal(res, &fields) == nil {
				delete(fields, "_meta") // the related-task note of tasks/result
				res, _ = json.Marshal(fields)
			}
			out["result"] = res
		case errors.As(rerr, &re) && re.Reason == pipeline.ReasonUpstreamError:
			out["status"] = json.RawMessage(`"failed"`)
			out["error"], _ = json.Marshal(map[string]any{"code": re.Code, "message": re.What, "data": re.UpstreamData})
		default:
			return nil, rerr
		}
	case mcp.TaskStatusInputRequired:
		// A 2025-11-25 upstream asks its question only on the stream of a
		// tasks/result, which the router does not open for polling: none
		// can be surfaced (docs/endpoint.md, "Tasks").
		out["inputRequests"] = json.RawMessage(`{}`)
	}
	out["resultType"] = json.RawMessage(`"complete"`)
	return json.Marshal(out)
}

// updateModernTask acknowledges tasks/update for a task the caller holds.
// The router never surfaces an upstream's question as an inputRequest, so
// every key the client answers is one not outstanding, which the extension
// says to ignore.
func (g *Gateway) updateModernTask(ctx context.Context, credential, id string) (json.RawMessage, error) {
	rt := g.tasks.lookup(credential, id)
	if rt == nil || !g.mayReach(ctx, rt) {
		return nil, unknownTask(id)
	}
	if err := g.taskAlive(rt); err != nil {
		return nil, err
	}
	return json.RawMessage(`{"resultType":"complete"}`), nil
}

// advertiseModernTasks names the extension in a server/discover result
// while an upstream offers a tool that runs as a task.
func (g *Gateway) advertiseModernTasks(hooks *server.Hooks) {
	hooks.AddAfterDiscover(func(_ context.Context, _ any, _ *mcp.DiscoverRequest, res *mcp.DiscoverResult) {
		g.mu.RLock()
		offered := len(g.taskTools) > 0
		g.mu.RUnlock()
		if !offered {
			return
		}
		if res.Capabilities.Extensions == nil {
			res.Capabilities.Extensions = map[string]any{}
		}
		res.Capabilities.Extensions[TasksExtension] = map[string]any{}
	})
}
