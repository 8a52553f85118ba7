package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcp-router/mcp-router/backend/pipeline"
	"github.com/mcp-router/mcp-router/backend/tracing"
	"github.com/mcp-router/mcp-router/backend/upstream"
)

// send is the end of the pipeline: what the request does once every step
// let it through. A routed request goes to its upstream (its progress token
// swapped for a router-unique one, and the call registered so that what the
// upstream asks meanwhile reaches this client); a list is answered from the
// catalog; logging/setLevel goes to every server left in its candidates;
// an initialize gets the instructions of the servers left in its.
func (g *Gateway) send(ctx context.Context, r *pipeline.Request) (pipeline.Result, error) {
	switch r.Method {
	case pipeline.MethodToolsList, pipeline.MethodPromptsList, pipeline.MethodResourcesList, pipeline.MethodTemplatesList:
		return g.sendList(ctx, r)
	case pipeline.MethodSetLevel:
		g.sendLevel(r)
		return pipeline.Result{Value: &mcp.EmptyResult{}}, nil
	case pipeline.MethodSubscribe, pipeline.MethodUnsubscribe:
		return g.sendSubscription(ctx, r)
	case pipeline.MethodInitialize:
		return g.sendInstructions(ctx, r), nil
	}
	if r.Method == pipeline.MethodToolsCall && g.isWithheld(r.Server, r.Item) {
		// Whatever route the call took (a held multi-round-trip call, a
		// handler published just before the hold), a held tool is not
		// called.
		return pipeline.Result{}, pipeline.ToolHeld(r.Target, r.Server, r.Item)
	}
	if g.o.Tracer != nil {
		g.traceTransport(ctx, r.Server)
	}
	ctx, f := g.begin(ctx, r.Server, r.Client, r.Meta)
	defer g.call.end(f)
	ctx = g.withClient(ctx, r.Server, f.client, r.Client, r.Caller)
	var note *upstream.InstanceNote
	if _, perClient := upstream.ClientOf(ctx); perClient {
		ctx, note = upstream.WithInstanceNote(ctx)
	}
	// A call that starts a lazy server says so, with the start's time, in
	// the request log's instance column.
	ctx, started := upstream.WithStartNote(ctx)
	raw, err := g.ups.Request(ctx, r.Server, r.Method, upstreamParams(ctx, r, f, g.o.Tracer != nil))
	if note != nil {
		r.Instance = note.String()
	}
	if s := started.String(); s != "" {
		r.Instance = s
	}
	if err != nil {
		return pipeline.Result{}, pipeline.Upstream(r.Server, err)
	}
	if r.Decode != nil {
		v, err := r.Decode(raw)
		if err != nil {
			return pipeline.Result{}, pipeline.BadResponse(r.Server, r.Method, err)
		}
		if b, ok := v.(json.RawMessage); ok {
			// The decoder rewrote the bytes (a created task's id,
			// taskfront.go): the client and the log get those.
			return pipeline.Result{Raw: b}, nil
		}
		return pipeline.Result{Raw: raw, Value: v}, nil
	}
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' {
		// Not a result object: word it as mcp-go's path does.
		msg := json.RawMessage(raw)
		_, perr := mcp.ParseCallToolResult(&msg)
		if perr == nil {
			perr = errNotAnObject
		}
		return pipeline.Result{}, pipeline.BadResponse(r.Server, r.Method, perr)
	}
	return pipeline.Result{Raw: raw}, nil
}

// traceTransport names the upstream's transport (stdio, http, sse) on the
// upstream request's span.
func (g *Gateway) traceTransport(ctx context.Context, server string) {
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() {
		return
	}
	if def, err := g.ups.Definition(server); err == nil {
		span.SetAttributes(attribute.String(pipeline.AttrTransport, string(def.Transport)))
	}
}

var errNotAnObject = jsonError("the result is not a JSON object")

type jsonError string

func (e jsonError) Error() string { return string(e) }

// upstreamParams are the params the upstream gets: its own name for the
// tool or prompt, the (possibly hook-edited) arguments and params, and the
// client's _meta with the router's progress token and trace context.
func upstreamParams(ctx context.Context, r *pipeline.Request, f *inflight, traced bool) any {
	meta := forwardMeta(ctx, r.Meta, f, traced)
	switch r.Method {
	case pipeline.MethodToolsCall, pipeline.MethodPromptsGet:
		if meta == nil && len(r.InputResponses) == 0 && r.RequestState == "" && len(r.Task) == 0 {
			return callParams(r.Item, r.Args)
		}
		p := map[string]any{"name": r.Item}
		if meta != nil {
			p["_meta"] = meta
		}
		if a := bytes.TrimSpace(r.Args); len(a) > 0 && string(a) != "null" {
			p["arguments"] = json.RawMessage(a)
		}
		if len(r.InputResponses) > 0 {
			p["inputResponses"] = r.InputResponses
		}
		if r.RequestState != "" {
			p["requestState"] = r.RequestState
		}
		if len(r.Task) > 0 {
			p["task"] = r.Task
		}
		return p
	}
	p := make(map[string]any, len(r.Params)+1)
	for k, v := range r.Params {
		p[k] = v
	}
	if meta != nil {
		p["_meta"] = meta
	}
	return p
}

// callParams are the params of an upstream tools/call or prompts/get, as
// JSON: the upstream's own name and the client's arguments
// ({"name","arguments"}). The arguments are valid JSON (they came out of a
// parsed message or a hook); the upstream transport compacts them.
func callParams(item string, args json.RawMessage) json.RawMessage {
	args = bytes.TrimSpace(args)
	if string(args) == "null" {
		args = nil
	}
	b := make([]byte, 0, 32+len(item)+len(args))
	b = append(b, `{"name":`...)
	if pipeline.PlainJSONString(item) {
		b = append(append(append(b, '"'), item...), '"')
	} else {
		q, _ := json.Marshal(item)
		b = append(b, q...)
	}
	if len(args) > 0 {
		b = append(b, `,"arguments":`...)
		b = append(b, args...)
	}
	return append(b, '}')
}

// forwardMeta copies the client's _meta for the upstream, swapping the
// progress token for the router-unique one. A traced request's upstream
// gets the router's span as its parent (traceparent, tracestate); without
// tracing, a client's trace context goes on only if it is valid and within
// the caps (backend/tracing), rewritten by the W3C propagator.
func forwardMeta(ctx context.Context, meta *mcp.Meta, f *inflight, traced bool) map[string]any {
	if meta == nil {
		if !traced || !tracing.HasParent(ctx) {
			return nil
		}
		out := make(map[string]any, 2)
		tracing.ToMeta(ctx, out)
		return out
	}
	out := make(map[string]any, len(meta.AdditionalFields)+2)
	for k, v := range meta.AdditionalFields {
		out[k] = v
	}
	if f.routerToken != "" {
		out["progressToken"] = f.routerToken
	}
	_, parent := meta.AdditionalFields[tracing.KeyTraceparent]
	_, state := meta.AdditionalFields[tracing.KeyTracestate]
	if traced || parent || state {
		if !tracing.HasParent(ctx) {
			ctx = tracing.FromMeta(ctx, meta.AdditionalFields)
		}
		tracing.ToMeta(ctx, out)
	}
	return out
}

func progressToken(meta *mcp.Meta) any {
	if meta == nil || meta.ProgressToken == nil {
		return nil
	}
	return meta.ProgressToken
}

// begin registers a call for progress and client-side routing, and gives
// the upstream request a timeout that progress resets.
// Without a progress token nothing can reset the timer: a plain deadline.
// The caller ends the call with g.call.end(f).
func (g *Gateway) begin(ctx context.Context, upstreamName string, client pipeline.Client, meta *mcp.Meta) (context.Context, *inflight) {
	token := progressToken(meta)
	var touch func()
	if token != nil {
		ctx, touch = upstream.WithActivity(ctx)
	}
	f := g.call.begin(ctx, upstreamName, g.askerKey(ctx, client), client.Session, token, touch)
	return context.WithValue(ctx, inflightKey{}, f), f
}

// sendLevel passes a client's logging/setLevel on to every server left in
// its candidates (running, and allowed by every step). Upstream
// connections are shared, so the last level set wins there; the router's
// own per-session level still filters.
func (g *Gateway) sendLevel(r *pipeline.Request) {
	var wg sync.WaitGroup
	for _, it := range r.List.Items {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			// A server without logging answers "method not found": fine.
			_, _ = g.ups.Request(rctx, it.Server, pipeline.MethodSetLevel, r.Params)
		}()
	}
	wg.Wait()
}
