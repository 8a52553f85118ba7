package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// modernMeta is the _meta a 2026-07-28 client sends with every request,
// plus a progress token, which belongs to both eras. The client declares
// no sampling.
func modernMeta() map[string]any {
	return map[string]any{
		mcp.MetaKeyProtocolVersion:    mcp.ProtocolVersion20260728,
		mcp.MetaKeyClientInfo:         map[string]any{"name": "modern-client", "version": "1"},
		mcp.MetaKeyClientCapabilities: map[string]any{"elicitation": map[string]any{}},
		mcp.MetaKeyLogLevel:           "debug",
		"progressToken":               "tok-1",
	}
}

// A 2026-07-28 client's request forwarded into a stateful go-sdk server's
// 2025-11-25 session: with the client's protocol keys in _meta the server
// refuses every call, prompt and read with -32022; the connection must
// send them in its own era.
func TestModernRequestIntoLegacyHTTPSession(t *testing.T) {
	addr := testpeers.StartGoEverythingHTTP(t, "-stateless=false")
	// The connection declares sampling (the router can pass it on to
	// clients that have it); the client below does not.
	c := dialHTTP(t, "http://"+addr+"/mcp", ClientSide{
		Sampling: func(context.Context, string, mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return nil, errors.New("not asked in this test")
		},
	}, nil)
	if c.modern() {
		t.Fatalf("connection negotiated %q; this test needs a 2025-11-25 session", c.init.ProtocolVersion)
	}
	for _, tc := range []struct {
		method string
		params map[string]any
		want   string
	}{
		{"tools/call", map[string]any{"name": "test_simple_text"}, `"type":"text"`},
		{"prompts/get", map[string]any{"name": "test_simple_prompt"}, `"messages"`},
		{"resources/read", map[string]any{"uri": "test://static-text"}, `"contents"`},
	} {
		t.Run(tc.method, func(t *testing.T) {
			tc.params["_meta"] = modernMeta()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			raw, err := c.request(ctx, tc.method, tc.params)
			if err != nil {
				t.Fatalf("%s with a 2026-07-28 client's _meta: %v", tc.method, err)
			}
			if !strings.Contains(string(raw), tc.want) {
				t.Fatalf("%s: %s", tc.method, raw)
			}
			// The caller's params are its own: the copy was changed, not them.
			if got := tc.params["_meta"].(map[string]any); !reflect.DeepEqual(got, modernMeta()) {
				t.Fatalf("the caller's _meta was changed: %v", got)
			}
		})
	}

	// The client's declared capabilities reach the upstream: it declared
	// no sampling, so a tool that needs it is refused with -32021.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := c.request(ctx, "tools/call", map[string]any{"name": "test_missing_capability", "_meta": modernMeta()})
	var rpc *RPCError
	if !errors.As(err, &rpc) || rpc.Code != mcp.MISSING_REQUIRED_CLIENT_CAPABILITY {
		t.Fatalf("test_missing_capability for a client without sampling: %v, want -32021", err)
	}
}

func TestWithoutModernMeta(t *testing.T) {
	kept := modernMeta()
	delete(kept, mcp.MetaKeyProtocolVersion)
	delete(kept, mcp.MetaKeyLogLevel)
	want := map[string]any{"name": "echo", "_meta": kept}
	got := withoutModernMeta(map[string]any{"name": "echo", "_meta": modernMeta()})
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("map params: got %v, want %v", got, want)
	}

	raw, _ := json.Marshal(map[string]any{"name": "echo", "_meta": modernMeta()})
	gotRaw, ok := withoutModernMeta(json.RawMessage(raw)).(json.RawMessage)
	if !ok {
		t.Fatalf("raw params came back as %T", withoutModernMeta(json.RawMessage(raw)))
	}
	var decoded map[string]any
	if err := json.Unmarshal(gotRaw, &decoded); err != nil || !reflect.DeepEqual(decoded, want) {
		t.Fatalf("raw params: got %s, want %v", gotRaw, want)
	}

	// Only keys of the newer era: _meta goes altogether.
	onlyProtocol := map[string]any{"uri": "x", "_meta": map[string]any{mcp.MetaKeyProtocolVersion: mcp.ProtocolVersion20260728, mcp.MetaKeyLogLevel: "info"}}
	if got := withoutModernMeta(onlyProtocol); !reflect.DeepEqual(got, map[string]any{"uri": "x"}) {
		t.Fatalf("protocol-only _meta: got %v", got)
	}

	// Nothing to drop: the same value back, not a copy.
	plain := json.RawMessage(`{"name":"echo","arguments":{}}`)
	if got := withoutModernMeta(plain); string(got.(json.RawMessage)) != string(plain) {
		t.Fatalf("plain params changed: %s", got)
	}
}
