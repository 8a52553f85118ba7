package upstream

import (
	"context"
	"errors"
	"testing"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// Both transports answer a server's request through answerRequest: what
// each handler outcome becomes on the wire.
func TestAnswerRequest(t *testing.T) {
	req := transport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(int64(7)), Method: "sampling/createMessage"}
	ok := &transport.JSONRPCResponse{JSONRPC: mcp.JSONRPC_VERSION, ID: req.ID, Result: []byte(`{"role":"assistant"}`)}
	returning := func(r *transport.JSONRPCResponse, err error) transport.RequestHandler {
		return func(context.Context, transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) { return r, err }
	}
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	for _, c := range []struct {
		name string
		ctx  context.Context
		h    transport.RequestHandler
		want string // "" for no answer
	}{
		{"no handler", context.Background(), nil,
			`{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"no handler configured for method: sampling/createMessage"}}`},
		{"answered", context.Background(), returning(ok, nil),
			`{"jsonrpc":"2.0","id":7,"result":{"role":"assistant"}}`},
		{"handler failed", context.Background(), returning(nil, errors.New("the client has no model")),
			`{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"the client has no model"}}`},
		{"wait cancelled", context.Background(), returning(nil, context.Canceled),
			`{"jsonrpc":"2.0","id":7,"error":{"code":-32800,"message":"request was cancelled"}}`},
		{"wait timed out", context.Background(), returning(nil, context.DeadlineExceeded),
			`{"jsonrpc":"2.0","id":7,"error":{"code":-32800,"message":"request timed out"}}`},
		{"context already ended: the handler is not asked", ended, returning(ok, nil),
			`{"jsonrpc":"2.0","id":7,"error":{"code":-32800,"message":"request was cancelled"}}`},
		{"nothing to send", context.Background(), returning(nil, nil), ""},
	} {
		if got := string(answerRequest(c.ctx, c.h, req)); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
}
