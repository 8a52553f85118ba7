package stategate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// notifyDelay coalesces the notifications of events that come together.
const notifyDelay = 20 * time.Millisecond

// SummaryTemplate is the resource template of a run's summary.
const SummaryTemplate = "stategate://runs/{run_id}/summary"

// ServerOptions configure the MCP face.
type ServerOptions struct {
	// ActorFrom names the caller of a request from its context (the
	// router's pipeline puts its caller there). Default: a caller named
	// "local" with no roles.
	ActorFrom func(ctx context.Context) Actor
	Version   string
}

// Server is state_gate's MCP server: the tools get_state, list_events,
// emit_event, create_run and list_runs; each run's summary as a resource
// (and the template); notifications/resources/updated to the sessions
// subscribed to a run's summary after each accepted event, and
// list_changed when a run is created or its state, artifacts or pending
// guards change.
type Server struct {
	svc   *Service
	o     ServerOptions
	srv   *server.MCPServer
	unsub func()

	// Changes are handled off the emitting call: work wakes the worker.
	work chan struct{}
	stop chan struct{}
	done chan struct{}

	resyncMu sync.Mutex // one Resync at a time, so an older list never wins
	mu       sync.Mutex
	listed   map[string]listing // run id → as listed
	revision map[string]int64   // run id → revision last announced
	subs     map[string]map[string]bool
}

// NewServer builds the MCP server over svc and follows svc's changes.
func NewServer(svc *Service, o ServerOptions) *Server {
	if o.ActorFrom == nil {
		o.ActorFrom = func(context.Context) Actor { return Actor{Name: "local"} }
	}
	if o.Version == "" {
		o.Version = "dev"
	}
	s := &Server{svc: svc, o: o, listed: map[string]listing{}, revision: map[string]int64{}, subs: map[string]map[string]bool{},
		work: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	hooks := &server.Hooks{}
	hooks.AddBeforeSubscribe(func(ctx context.Context, _ any, req *mcp.SubscribeRequest) {
		s.track(ctx, req.Params.URI, true)
	})
	hooks.AddBeforeUnsubscribe(func(ctx context.Context, _ any, req *mcp.UnsubscribeRequest) {
		s.track(ctx, req.Params.URI, false)
	})
	hooks.AddOnUnregisterSession(func(_ context.Context, sess server.ClientSession) {
		s.mu.Lock()
		defer s.mu.Unlock()
		for uri, set := range s.subs {
			delete(set, sess.SessionID())
			if len(set) == 0 {
				delete(s.subs, uri)
			}
		}
	})
	s.srv = server.NewMCPServer(ServerName, o.Version,
		server.WithToolCapabilities(false),
		server.WithResourceCapabilities(true, true),
		server.WithHooks(hooks),
		server.WithRecovery(),
		server.WithResourceRecovery(),
		server.WithInstructions("state_gate holds you to a process. Start with get_state, "+
			"check allowed_events and missing_guards, prepare the artifacts, then emit_event with the "+
			"revision get_state gave and a fresh idempotency_key. On REVISION_CONFLICT read the state again "+
			"and retry with a new key."),
	)
	s.addTools()
	s.srv.AddResourceTemplate(mcp.NewResourceTemplate(SummaryTemplate, "run summary",
		mcp.WithTemplateDescription("A run's process, state, revision and progress (completed, current and remaining states)"),
		mcp.WithTemplateMIMEType("application/json")), s.readSummary)
	s.unsub = svc.Subscribe(s.changed)
	// The first look at the runs is the worker's, so no stored run (a
	// poisoned one least of all) holds up the router's start; the list
	// follows with list_changed.
	s.work <- struct{}{}
	go s.worker()
	return s
}

// MCPServer is the server an in-process transport connects to.
func (s *Server) MCPServer() *server.MCPServer { return s.srv }

// Close stops following the service.
func (s *Server) Close() {
	s.unsub()
	close(s.stop)
	<-s.done
}

func (s *Server) addTools() {
	tool := func(name, desc string, in, out json.RawMessage, annotate func(*mcp.Tool)) mcp.Tool {
		t := mcp.NewToolWithRawSchema(name, desc, in)
		t.RawOutputSchema = out
		if annotate != nil {
			annotate(&t)
		}
		return t
	}
	readOnly := func(t *mcp.Tool) {
		ro, notDestructive, idem := true, false, true
		t.Annotations.ReadOnlyHint, t.Annotations.DestructiveHint, t.Annotations.IdempotentHint = &ro, &notDestructive, &idem
	}
	writes := func(idempotent bool) func(*mcp.Tool) {
		return func(t *mcp.Tool) {
			ro, notDestructive := false, false
			t.Annotations.ReadOnlyHint, t.Annotations.DestructiveHint, t.Annotations.IdempotentHint = &ro, &notDestructive, &idempotent
		}
	}
	s.srv.AddTools(
		server.ServerTool{Tool: tool("get_state",
			"The run's current state, revision, context, the guards blocking its transitions, the artifacts the state needs and the events you may emit now. Start here.",
			getStateInput, getStateOutput, readOnly), Handler: s.getState},
		server.ServerTool{Tool: tool("list_events",
			"The events of the run with the transitions each can take, each guard's status and what is missing; include_blocked also lists the events you cannot emit now, with why.",
			listEventsInput, listEventsOutput, readOnly), Handler: s.listEvents},
		server.ServerTool{Tool: tool("emit_event",
			"Emit an event with its payload and artifacts. expected_revision and idempotency_key are required: the event is appended exactly once, and only if the run is still at that revision.",
			emitEventInput, emitEventOutput, writes(true)), Handler: s.emitEvent},
		server.ServerTool{Tool: tool("create_run",
			"Start a run of a process in its initial state, with a context its guards may read.",
			createRunInput, createRunOutput, writes(false)), Handler: s.createRun},
		server.ServerTool{Tool: tool("list_runs",
			"The runs, most recently updated first, with their state and revision.",
			listRunsInput, listRunsOutput, readOnly), Handler: s.listRuns},
	)
}

// answer is a tool result carrying v as structured content and as JSON
// text (for clients that read only text).
func answer(v any, isError bool) *mcp.CallToolResult {
	b, err := json.Marshal(v)
	if err != nil {
		return mcp.NewToolResultError(err.Error())
	}
	res := mcp.NewToolResultStructured(json.RawMessage(b), string(b))
	res.IsError = isError
	return res
}

// refusal answers a failed call in the error envelope.
func refusal(err error) (*mcp.CallToolResult, error) {
	var e *Error
	if !errors.As(err, &e) {
		e = &Error{Code: CodeInternal, Message: err.Error()}
	}
	return answer(EmitResponse{Success: false, Error: e}, true), nil
}

func decodeArgs(req mcp.CallToolRequest, v any) error {
	raw, err := json.Marshal(req.Params.Arguments)
	if err != nil {
		return err
	}
	if string(raw) == "null" {
		raw = []byte("{}")
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return refuse(CodeInvalidRequest, "bad arguments: %v", err)
	}
	return nil
}

func (s *Server) getState(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var args struct {
		RunID string `json:"run_id"`
	}
	if err := decodeArgs(req, &args); err != nil {
		return refusal(err)
	}
	sv, err := s.svc.GetState(ctx, s.o.ActorFrom(ctx), args.RunID)
	if err != nil {
		return refusal(err)
	}
	return answer(sv, false), nil
}

func (s *Server) listEvents(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var args struct {
		RunID          string `json:"run_id"`
		IncludeBlocked bool   `json:"include_blocked"`
	}
	if err := decodeArgs(req, &args); err != nil {
		return refusal(err)
	}
	ev, err := s.svc.ListEvents(ctx, s.o.ActorFrom(ctx), args.RunID, args.IncludeBlocked)
	if err != nil {
		return refusal(err)
	}
	return answer(ev, false), nil
}

func (s *Server) emitEvent(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var args EmitRequest
	if err := decodeArgs(req, &args); err != nil {
		return refusal(err)
	}
	res, err := s.svc.Emit(ctx, s.o.ActorFrom(ctx), args)
	if err != nil {
		return refusal(err)
	}
	return answer(res, !res.Success), nil
}

func (s *Server) createRun(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var args struct {
		ProcessID string          `json:"process_id"`
		Context   json.RawMessage `json:"context"`
		Workspace string          `json:"workspace"`
	}
	if err := decodeArgs(req, &args); err != nil {
		return refusal(err)
	}
	run, err := s.svc.CreateRun(ctx, s.o.ActorFrom(ctx), args.ProcessID, args.Context, args.Workspace)
	if err != nil {
		return refusal(err)
	}
	return answer(run, false), nil
}

func (s *Server) listRuns(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var args struct {
		ProcessID string `json:"process_id"`
		Limit     int    `json:"limit"`
	}
	if err := decodeArgs(req, &args); err != nil {
		return refusal(err)
	}
	if args.Limit <= 0 || args.Limit > 1000 {
		args.Limit = 100
	}
	runs, err := s.svc.Runs(ctx, args.ProcessID, args.Limit)
	if err != nil {
		return refusal(err)
	}
	return answer(RunList{Runs: runs}, false), nil
}

// runOfURI extracts the run id of a summary URI.
func runOfURI(uri string) (string, bool) {
	rest, ok := strings.CutPrefix(uri, "stategate://runs/")
	if !ok {
		return "", false
	}
	id, ok := strings.CutSuffix(rest, "/summary")
	if !ok || id == "" || strings.Contains(id, "/") {
		return "", false
	}
	return id, true
}

func (s *Server) readSummary(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	id, ok := runOfURI(req.Params.URI)
	if !ok {
		return nil, fmt.Errorf("%s is not a run summary (want %s)", req.Params.URI, SummaryTemplate)
	}
	sum, err := s.svc.Summary(ctx, id)
	if err != nil {
		var e *Error
		if errors.As(err, &e) && e.Code == CodeRunNotFound {
			return nil, fmt.Errorf("%w: %s", server.ErrResourceNotFound, e.Message)
		}
		return nil, err
	}
	b, err := json.Marshal(sum)
	if err != nil {
		return nil, err
	}
	return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, MIMEType: "application/json", Text: string(b)}}, nil
}

// track records a session's subscription to a run's summary.
func (s *Server) track(ctx context.Context, uri string, on bool) {
	sess := server.ClientSessionFromContext(ctx)
	if sess == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if on {
		if s.subs[uri] == nil {
			s.subs[uri] = map[string]bool{}
		}
		s.subs[uri][sess.SessionID()] = true
		return
	}
	delete(s.subs[uri], sess.SessionID())
	if len(s.subs[uri]) == 0 {
		delete(s.subs, uri)
	}
}

// changed follows the service: it wakes the worker, so the call that made
// the change does not wait for the notifications.
func (s *Server) changed(Change) {
	select {
	case s.work <- struct{}{}:
	default:
	}
}

func (s *Server) worker() {
	defer close(s.done)
	first := true
	for {
		select {
		case <-s.stop:
			return
		case <-s.work:
		}
		// A burst of events (an agent's loop, concurrent clients) costs one
		// look at the runs, not one each. The first look, at start, waits
		// for nothing.
		if !first {
			select {
			case <-s.stop:
				return
			case <-time.After(notifyDelay):
			}
		}
		first = false
		s.Resync(context.Background())
	}
}

// updated sends notifications/resources/updated to the subscribers of uri.
func (s *Server) updated(uri string) {
	s.mu.Lock()
	sessions := make([]string, 0, len(s.subs[uri]))
	for id := range s.subs[uri] {
		sessions = append(sessions, id)
	}
	s.mu.Unlock()
	for _, id := range sessions {
		_ = s.srv.SendNotificationToSpecificClient(id, string(mcp.MethodNotificationResourceUpdated), map[string]any{"uri": uri})
	}
}

// Resync compares the runs with what was last published: a run whose
// revision moved gets notifications/resources/updated to its summary's
// subscribers, and the resource list is republished (which sends
// list_changed) when a run came or went or its listing changed. It costs
// one query when nothing changed, so it can follow every database change,
// also those another process (the CLI) made.
//
// A run that cannot be listed as it should (see Service.listing) is listed
// as errored and logged once per revision; it never stops the others.
func (s *Server) Resync(ctx context.Context) {
	s.resyncMu.Lock()
	defer s.resyncMu.Unlock()
	runs, err := s.svc.st.RunRevisions(ctx)
	if err != nil {
		s.svc.log.Warnf("state_gate: list runs: %v", err)
		return
	}
	s.mu.Lock()
	known, prevRev := s.listed, s.revision
	s.mu.Unlock()
	listed := make(map[string]listing, len(runs))
	revision := make(map[string]int64, len(runs))
	var moved []string
	changed := len(runs) != len(known)
	for id, rev := range runs {
		old, seen := known[id]
		if seen && prevRev[id] == rev {
			listed[id], revision[id] = old, rev
			continue
		}
		l, err := s.svc.listing(ctx, id)
		if err != nil {
			s.svc.log.Warnf("state_gate: run %s: %v", id, err)
			continue
		}
		if l.revision < 0 {
			l.revision = rev
		}
		if l.errored != "" {
			s.svc.log.Warnf("state_gate: run %s is errored (kept as it is; the router goes on): %s", id, l.errored)
		}
		listed[id], revision[id] = l, l.revision
		if seen {
			moved = append(moved, id)
		}
		if !seen || old.key() != l.key() {
			changed = true
		}
	}
	s.mu.Lock()
	s.listed, s.revision = listed, revision
	s.mu.Unlock()
	if changed {
		resources := make([]server.ServerResource, 0, len(listed))
		for id, l := range listed {
			res := mcp.NewResource(SummaryURI(id), l.name, mcp.WithResourceDescription(l.description), mcp.WithMIMEType("application/json"))
			resources = append(resources, server.ServerResource{Resource: res, Handler: s.readSummary})
		}
		sort.Slice(resources, func(i, j int) bool { return resources[i].Resource.URI < resources[j].Resource.URI })
		s.srv.SetResources(resources...)
	}
	sort.Strings(moved)
	for _, id := range moved {
		s.updated(SummaryURI(id))
	}
}
