package pipeline

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-router/mcp-router/backend/upstream"
)

// An upstream's -32022 refuses the revision of the router's connection to
// it, not the client's (the router speaks the client's revision, and
// refuses one it does not with mcp-go's own -32022 carrying the spec's
// requested/supported data). Passed on with its code, a client read
// "-32022" without that data at the top of error.data (the issue 25 HTTP
// upstream bug); it is the router's bad upstream answer instead, the
// upstream's data kept under data.upstream.
func TestUpstreamProtocolErrorsAsTheSpecShapesThem(t *testing.T) {
	upData := map[string]any{"requested": "2025-11-25", "supported": []any{"2025-06-18"}}
	err := fmt.Errorf("tools/call: %w", &upstream.RPCError{Code: mcp.UNSUPPORTED_PROTOCOL_VERSION,
		Message: `protocol version "2025-11-25" is not supported by this server`, Data: upData})
	e := Upstream("gosdk", err)
	if e.Code == mcp.UNSUPPORTED_PROTOCOL_VERSION {
		t.Fatalf("an upstream's -32022 reaches the client as -32022 (data %v)", e.Data())
	}
	if e.Code != CodeBadResponse || e.Reason != ReasonUpstreamProtocol {
		t.Fatalf("code %d reason %q, want %d %q", e.Code, e.Reason, CodeBadResponse, ReasonUpstreamProtocol)
	}
	d := e.Data()
	if d["server"] != "gosdk" || !reflect.DeepEqual(d["upstream"], upData) {
		t.Fatalf("data %v: want the server and the upstream's own data", d)
	}
	if want := `gosdk: upstream error -32022: protocol version "2025-11-25" is not supported by this server`; e.Error() != want {
		t.Fatalf("message %q, want %q", e.Error(), want)
	}

	// -32021: the spec's requiredCapabilities at the top of data (as the
	// upstream sent them, decoded or raw), the upstream's data kept too.
	for _, data := range []any{
		map[string]any{"requiredCapabilities": map[string]any{"sampling": map[string]any{}}},
		json.RawMessage(`{"requiredCapabilities":{"sampling":{}}}`),
	} {
		miss := Upstream("gosdk", &upstream.RPCError{Code: mcp.MISSING_REQUIRED_CLIENT_CAPABILITY, Message: "sampling capability required", Data: data})
		d := miss.Data()
		if miss.Code != mcp.MISSING_REQUIRED_CLIENT_CAPABILITY || d["server"] != "gosdk" || d["upstream"] == nil {
			t.Fatalf("-32021 from the upstream: code %d data %v", miss.Code, d)
		}
		if !reflect.DeepEqual(d["requiredCapabilities"], map[string]any{"sampling": map[string]any{}}) {
			t.Fatalf("-32021 from the upstream (%T data): requiredCapabilities %v not at the top of data %v", data, d["requiredCapabilities"], d)
		}
	}

	// Any other upstream error keeps its own code.
	other := Upstream("gosdk", &upstream.RPCError{Code: mcp.INVALID_PARAMS, Message: "bad"})
	if other.Code != mcp.INVALID_PARAMS || other.Reason != ReasonUpstreamError {
		t.Fatalf("-32602 from the upstream: code %d reason %q", other.Code, other.Reason)
	}
}

// A resource not found carries its URI at error.data.uri (SEP-2164), in
// both revisions' codes: the router's own refusal, and an upstream's
// not-found whose data names the URI (kept under data.upstream too).
func TestResourceNotFoundCarriesItsURI(t *testing.T) {
	for _, modern := range []bool{false, true} {
		e := UnknownResource("test://nope", modern)
		d := e.Data()
		if d["uri"] != "test://nope" || d["reason"] != ReasonUnknownResource || d["server"] != RouterServer {
			t.Fatalf("modern=%v: data %v, want uri test://nope", modern, d)
		}
	}
	for _, code := range []int{mcp.RESOURCE_NOT_FOUND, mcp.INVALID_PARAMS} {
		for _, data := range []any{map[string]any{"uri": "test://gone"}, json.RawMessage(`{"uri":"test://gone"}`)} {
			e := Upstream("gosdk", &upstream.RPCError{Code: code, Message: "Resource not found", Data: data})
			d := e.Data()
			if e.Code != code || d["uri"] != "test://gone" || d["upstream"] == nil {
				t.Fatalf("upstream %d (%T data): code %d data %v, want uri test://gone at the top", code, data, e.Code, d)
			}
		}
	}
	// An error that is not about a resource gets no uri member.
	if d := Upstream("gosdk", &upstream.RPCError{Code: mcp.INTERNAL_ERROR, Message: "x", Data: map[string]any{"uri": "u"}}).Data(); d["uri"] != nil {
		t.Fatalf("-32603 from the upstream: data %v has a uri", d)
	}
}
