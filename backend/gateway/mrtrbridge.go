package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-router/mcp-router/backend/pipeline"
)

// The other direction of multi-round-trip requests: a client with a
// session (2025-11-25 and earlier) knows nothing of input_required, so an
// upstream result that asks for input (a 2026-07-28 server's
// input_required; a 2025 go-sdk server's second round after the one it
// bridged itself) is answered by the router: it asks the client each
// question through its session (on the call's own response stream when
// the call has one) and sends the call again with the answers and the
// upstream's requestState, until the upstream gives a result. The client
// sees one ordinary result.

// mrtrBridgeRounds bounds the rounds the router answers for one call, as
// the go-sdk's own client does (10).
const mrtrBridgeRounds = 10

// inputAsked is what the router reads of a result that may ask for input.
type inputAsked struct {
	ResultType    mcp.ResultType             `json:"resultType"`
	InputRequests map[string]json.RawMessage `json:"inputRequests"`
	RequestState  string                     `json:"requestState"`
}

// bridgeInput answers res's input requests (if it has any) for the session
// client of the request and returns the upstream's final result. sent is
// the request as it was before the chain ran (a step may have rewritten
// it, as an ability's mapping does): each round sends a copy of it.
func (g *Gateway) bridgeInput(ctx context.Context, sent pipeline.Request, session server.ClientSession, res pipeline.Result) (pipeline.Result, error) {
	r := &sent
	for round := 0; ; round++ {
		raw, err := res.JSON()
		if err != nil || !bytes.Contains(raw, []byte(`"inputRequests"`)) {
			return res, nil
		}
		var asked inputAsked
		if json.Unmarshal(raw, &asked) != nil || !asksInputRaw(asked) {
			return res, nil
		}
		if round >= mrtrBridgeRounds {
			return pipeline.Result{}, pipeline.BadResponse(r.Server, r.Method,
				fmt.Errorf("the upstream still asks for input after %d rounds (mrtrBridgeRounds, a constant)", mrtrBridgeRounds))
		}
		answers := make(map[string]json.RawMessage, len(asked.InputRequests))
		for key, q := range asked.InputRequests {
			var ir struct {
				Method string          `json:"method"`
				Params json.RawMessage `json:"params"`
			}
			if err := json.Unmarshal(q, &ir); err != nil {
				return pipeline.Result{}, pipeline.BadResponse(r.Server, r.Method, fmt.Errorf("input request %q: %w", key, err))
			}
			a, err := g.askSession(ctx, session, ir.Method, ir.Params)
			if err != nil {
				return pipeline.Result{}, err
			}
			answers[key] = a
		}
		b, err := json.Marshal(answers)
		if err != nil {
			return pipeline.Result{}, fmt.Errorf("encoding the client's answers: %w", err)
		}
		again := sent
		again.InputResponses, again.RequestState = b, asked.RequestState
		if res, err = g.chain.Serve(ctx, &again); err != nil {
			return res, err
		}
	}
}

func asksInputRaw(a inputAsked) bool {
	return a.ResultType == mcp.ResultTypeInputRequired || (a.ResultType == "" && len(a.InputRequests) > 0)
}

// askSession puts one of an upstream's input requests to a session client:
// on the call's own response stream when it has one, else through mcp-go.
// A capability the client did not declare fails the call with -32021.
func (g *Gateway) askSession(ctx context.Context, session server.ClientSession, method string, params json.RawMessage) (json.RawMessage, error) {
	what := inputKey(method)
	if what == "input" {
		return nil, fmt.Errorf("the upstream asks for input by an unknown method %q", method)
	}
	if session == nil || !declares(session, what) {
		return nil, missingCapability(what)
	}
	if cs := callStreamFrom(ctx); cs != nil {
		return cs.ask(ctx, ctx.Done(), method, params)
	}
	sctx := g.srv.WithContext(ctx, session)
	var out any
	var err error
	switch method {
	case string(mcp.MethodElicitationCreate):
		var p mcp.ElicitationParams
		if err = json.Unmarshal(params, &p); err == nil {
			out, err = g.srv.RequestElicitation(sctx, mcp.ElicitationRequest{Params: p})
		}
	case string(mcp.MethodSamplingCreateMessage):
		var p mcp.CreateMessageParams
		if err = json.Unmarshal(params, &p); err == nil {
			out, err = g.srv.RequestSampling(sctx, mcp.CreateMessageRequest{CreateMessageParams: p})
		}
	case string(mcp.MethodListRoots):
		out, err = g.srv.RequestRoots(sctx, mcp.ListRootsRequest{})
	}
	if err != nil {
		return nil, fmt.Errorf("asking the client (%s): %w", method, err)
	}
	return json.Marshal(out)
}
