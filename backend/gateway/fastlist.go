package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-router/mcp-router/backend/pipeline"
)

// The list requests on a streamable HTTP session of the 2025 revisions
// take the fast path too. On mcp-go's path the chain computes the answer
// before mcp-go dispatches the request (lists.go), and mcp-go's handler
// then collects, sorts and copies its whole registered tool set only for
// the After hook to throw that away: at 10,000 tools that was most of a
// tools/list's CPU. Here the chain runs alone and its answer is written as
// mcp-go writes it: the same result (hints cleared, as answerList does for
// that revision), the same error for a refusal (mcp-go answers an error of
// its OnRequestInitialization hook as an invalid request), the same
// request-log entry (the chain's log step writes it on both paths).

// fastListEligible decides whether a POST may take the list fast path: a
// list method, on a session the fast path may answer on (fastSession).
func (g *Gateway) fastListEligible(r *http.Request, h postHeaders, m *message, owned *ownedSession) (server.ClientSession, bool) {
	switch m.Method {
	case pipeline.MethodToolsList, pipeline.MethodPromptsList, pipeline.MethodResourcesList, pipeline.MethodTemplatesList:
		return g.fastSession(r, h, m, owned)
	}
	return nil, false
}

// serveFastList answers a list request through the chain. It reports
// false, having written nothing, for a request mcp-go must answer (one
// whose params it cannot read: mcp-go words that error).
func (g *Gateway) serveFastList(w http.ResponseWriter, r *http.Request, s server.ClientSession, m *message, body []byte) bool {
	parts, ok := g.fastListAnswer(r.Context(), s, m, body)
	if ok {
		(&fastResponse{w: w}).answer(parts...)
	}
	return ok
}

// fastListAnswer is the answer to a list request through the chain, as
// mcp-go would write it (the message and its newline, in parts written
// one after the other): for the HTTP fast path and the stdio front. ok is
// false for a request mcp-go must answer.
func (g *Gateway) fastListAnswer(ctx context.Context, s server.ClientSession, m *message, body []byte) (parts [][]byte, ok bool) {
	var req listRequest
	if json.Unmarshal(body, &req) != nil {
		return nil, false
	}
	g.fast.listed.Add(1)
	res, own, err := g.runListOwn(g.srv.WithContext(ctx, s), &req)
	// The router's own page has no hints and its JSON is what mcp-go's
	// encoder writes for it (the same encoding/json, HTML escaping on),
	// and the log step has usually encoded it already: encode it once,
	// and write it as it is (a page may be megabytes: no copy).
	if own {
		if raw, jerr := res.JSON(); jerr == nil {
			return [][]byte{[]byte(`{"jsonrpc":"2.0","id":`), m.ID, []byte(`,"result":`), raw, []byte("}\n")}, true
		}
	}
	var response any
	if err != nil {
		response = mcp.JSONRPCError{JSONRPC: mcp.JSONRPC_VERSION, ID: requestID(m.ID),
			Error: mcp.NewJSONRPCErrorDetails(mcp.INVALID_REQUEST, pipeline.Unlogged(err).Error(), nil)}
	} else if result, ok := legacyListResult(res.Value); ok {
		response = mcp.NewJSONRPCResultResponse(requestID(m.ID), result)
	} else {
		response = mcp.JSONRPCError{JSONRPC: mcp.JSONRPC_VERSION, ID: requestID(m.ID),
			Error: mcp.NewJSONRPCErrorDetails(mcp.INTERNAL_ERROR, "list answer of an unknown type", nil)}
	}
	// The same encoding as mcp-go's response (HTML escaping, newline).
	var out bytes.Buffer
	_ = json.NewEncoder(&out).Encode(response)
	return [][]byte{out.Bytes()}, true
}

// stdioList answers line if it is a list request of the 2025 revisions on
// the registered, initialized stdio session, as the HTTP fast path does
// (mcp-go's handler would collect and sort its whole tool set only for the
// chain's answer to replace it), and reports whether it took it. Anything
// else — a request with _meta (a 2026-07-28 one), a task, an id the
// encoders could write differently — goes on to mcp-go.
func (g *Gateway) stdioList(ctx context.Context, line []byte, out *lockedWriter) bool {
	if g.fast.disabled.Load() || !bytes.Contains(line, listMarker) {
		return false
	}
	sp := g.stdio.session.Load()
	if sp == nil || !(*sp).Initialized() {
		return false
	}
	var m message
	var req listRequest // mcp-go words the error for params it cannot read
	if json.Unmarshal(line, &m) != nil || m.JSONRPC != mcp.JSONRPC_VERSION || !plainID(m.ID) ||
		len(m.Params.Task) > 0 || !emptyMeta(m.Params.Meta) || json.Unmarshal(line, &req) != nil {
		return false
	}
	switch m.Method {
	case pipeline.MethodToolsList, pipeline.MethodPromptsList, pipeline.MethodResourcesList, pipeline.MethodTemplatesList:
	default:
		return false
	}
	body := bytes.Clone(line)
	s := *sp
	// Off the read loop, as mcp-go serves requests: a slow list must not
	// hold up a cancellation behind it.
	go func() {
		if parts, ok := g.fastListAnswer(ctx, s, &m, body); ok {
			out.writeParts(parts...)
		}
	}()
	return true
}

// legacyListResult is a list answer as mcp-go's path sends it to a client
// of the 2025 revisions: the typed result by value, without caching hints.
func legacyListResult(v any) (any, bool) {
	switch r := v.(type) {
	case *mcp.ListToolsResult:
		out := *r
		setListHints(&out.CacheableResult, false)
		return out, true
	case *mcp.ListPromptsResult:
		out := *r
		setListHints(&out.CacheableResult, false)
		return out, true
	case *mcp.ListResourcesResult:
		out := *r
		setListHints(&out.CacheableResult, false)
		return out, true
	case *mcp.ListResourceTemplatesResult:
		out := *r
		setListHints(&out.CacheableResult, false)
		return out, true
	}
	return nil, false
}
