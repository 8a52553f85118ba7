package gateway

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// A 2026-07-28 client (no session, its revision in every request's _meta)
// calling a tool of a stateful HTTP upstream, whose connection is a
// 2025-11-25 session: the go-sdk server refuses any request that carries
// the newer revision's protocol key, so the router must send the call in
// the connection's own era. Before, every such call came back
// "upstream error -32022: protocol version "2025-11-25" is not supported".
func TestModernClientReachesLegacyHTTPUpstream(t *testing.T) {
	addr := testpeers.StartGoEverythingHTTP(t, "-stateless=false")
	s := spec.Server{Name: "gosdk", Transport: spec.HTTP, URL: "http://" + addr + "/mcp", Enabled: true, PrefixMode: spec.PrefixNever}
	s.Normalize()
	r := newRig(t, []spec.Server{s}, rigOptions{})
	waitTool(t, r, "test_simple_text")

	isErr, got := statelessCall(t, r.url, "modern-client", "test_simple_text", nil)
	if isErr || got == "" {
		t.Fatalf("test_simple_text for a 2026-07-28 client: isError=%v %q", isErr, got)
	}
	// The same upstream still serves a 2025-11-25 client (a session).
	c := connect(t, r.url, clientOptions{})
	res, err := call(c, "test_simple_text", nil)
	if err != nil || res.IsError {
		t.Fatalf("test_simple_text for a 2025-11-25 client: %v %v", res, err)
	}

	// The client declared no sampling, and that reaches the upstream: a
	// tool that needs it is refused with -32021, requiredCapabilities at
	// the top of error.data as the spec puts it.
	status, raw := modernPost(t, r.url, mcp.ProtocolVersion20260728, "test_missing_capability")
	var miss struct {
		Error *struct {
			Code int `json:"code"`
			Data struct {
				RequiredCapabilities map[string]any `json:"requiredCapabilities"`
			} `json:"data"`
		} `json:"error"`
	}
	if err := json.Unmarshal(raw, &miss); err != nil || miss.Error == nil || miss.Error.Code != mcp.MISSING_REQUIRED_CLIENT_CAPABILITY ||
		miss.Error.Data.RequiredCapabilities["sampling"] == nil {
		t.Fatalf("test_missing_capability for a client without sampling: status %d, body %s", status, raw)
	}

	// A revision the router does not speak: its own -32022, with the
	// requested and supported versions in error.data as the spec asks.
	status, raw = modernPost(t, r.url, "2099-01-01", "test_simple_text")
	var out struct {
		Error *struct {
			Code int `json:"code"`
			Data struct {
				Requested string   `json:"requested"`
				Supported []string `json:"supported"`
			} `json:"data"`
		} `json:"error"`
	}
	if err := json.Unmarshal(raw, &out); err != nil || out.Error == nil {
		t.Fatalf("a request of revision 2099-01-01: status %d, body %s", status, raw)
	}
	if e := out.Error; e.Code != mcp.UNSUPPORTED_PROTOCOL_VERSION || e.Data.Requested != "2099-01-01" ||
		!slices.Contains(e.Data.Supported, mcp.ProtocolVersion20260728) || !slices.Contains(e.Data.Supported, mcp.ProtocolVersion20251125) {
		t.Fatalf("a request of revision 2099-01-01: %s", raw)
	}
}

// modernPost sends one tools/call of a stateless revision (no session;
// version, identity and capabilities, none declared, in _meta) and returns
// the HTTP status and body.
func modernPost(t *testing.T, url, version, tool string) (int, []byte) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{
		"name": tool, "_meta": map[string]any{
			mcp.MetaKeyProtocolVersion:    version,
			mcp.MetaKeyClientInfo:         map[string]any{"name": "modern-client", "version": "1"},
			mcp.MetaKeyClientCapabilities: map[string]any{},
		}}})
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set(mcp.HeaderProtocolVersion, version)
	req.Header.Set(mcp.HeaderMethod, "tools/call")
	req.Header.Set(mcp.HeaderName, tool)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, raw
}
