package gateway

import (
	"bytes"
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
func (g *Gateway) fastListEligible(r *http.Request, m *message, owned *ownedSession) (server.ClientSession, bool) {
	switch m.Method {
	case pipeline.MethodToolsList, pipeline.MethodPromptsList, pipeline.MethodResourcesList, pipeline.MethodTemplatesList:
		return g.fastSession(r, m, owned)
	}
	return nil, false
}

// serveFastList answers a list request through the chain. It reports
// false, having written nothing, for a request mcp-go must answer (one
// whose params it cannot read: mcp-go words that error).
func (g *Gateway) serveFastList(w http.ResponseWriter, r *http.Request, s server.ClientSession, m *message, body []byte) bool {
	var req listRequest
	if json.Unmarshal(body, &req) != nil {
		return false
	}
	g.fast.listed.Add(1)
	ctx := g.srv.WithContext(r.Context(), s)
	res, own, err := g.runListOwn(ctx, &req)
	out := bodyPool.Get().(*bytes.Buffer)
	out.Reset()
	defer func() {
		if out.Cap() <= 64<<10 {
			bodyPool.Put(out)
		}
	}()
	// The router's own page has no hints and its JSON is what mcp-go's
	// encoder writes for it (the same encoding/json, HTML escaping on),
	// and the log step has usually encoded it already: encode it once.
	if own {
		if raw, jerr := res.JSON(); jerr == nil {
			out.WriteString(`{"jsonrpc":"2.0","id":`)
			out.Write(m.ID)
			out.WriteString(`,"result":`)
			out.Write(raw)
			out.WriteString("}\n")
			(&fastResponse{w: w}).answer(out.Bytes())
			return true
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
	// The same encoder as mcp-go's response (HTML escaping, newline).
	_ = json.NewEncoder(out).Encode(response)
	(&fastResponse{w: w}).answer(out.Bytes())
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
