package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"sync"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// What the router's own transports (pipe.go for stdio, httptransport.go
// for streamable HTTP) share in reading a server's messages: each message
// is decoded once into a serverMessage; answers go back to the request
// that waits for them (each transport its own way), and the server's own
// notifications and requests go to the handlers held in serverHandlers.

// serverMessage is what a transport reads of every message from the
// server, the result kept as raw bytes.
type serverMessage struct {
	ID     json.RawMessage          `json:"id"`
	Method string                   `json:"method"`
	Result json.RawMessage          `json:"result"`
	Error  *mcp.JSONRPCErrorDetails `json:"error"`
}

func (m *serverMessage) hasID() bool { return len(m.ID) > 0 && string(m.ID) != "null" }

// serverHandlers holds the handlers for the notifications and requests a
// server sends on its own; a transport embeds it.
type serverHandlers struct {
	hmu    sync.RWMutex
	onNote func(mcp.JSONRPCNotification)
	onReq  transport.RequestHandler
}

func (s *serverHandlers) SetNotificationHandler(h func(mcp.JSONRPCNotification)) {
	s.hmu.Lock()
	s.onNote = h
	s.hmu.Unlock()
}

func (s *serverHandlers) SetRequestHandler(h transport.RequestHandler) {
	s.hmu.Lock()
	s.onReq = h
	s.hmu.Unlock()
}

// requestHandler is the handler set for the server's requests, or nil.
func (s *serverHandlers) requestHandler() transport.RequestHandler {
	s.hmu.RLock()
	defer s.hmu.RUnlock()
	return s.onReq
}

// fromServer takes m (decoded from raw) if the server sent it on its own:
// a notification goes to the handler; a request to serve, in a goroutine
// of its own (it may take a while: sampling asks a person). It reports
// false for an answer, which is the caller's. A message that does not
// decode as what it claims to be is dropped.
func (s *serverHandlers) fromServer(m *serverMessage, raw []byte, serve func(transport.JSONRPCRequest)) bool {
	switch {
	case m.Method != "" && !m.hasID():
		var n mcp.JSONRPCNotification
		if json.Unmarshal(raw, &n) != nil {
			return true
		}
		s.hmu.RLock()
		h := s.onNote
		s.hmu.RUnlock()
		if h != nil {
			h(n)
		}
		return true
	case m.Method != "":
		var req transport.JSONRPCRequest
		if json.Unmarshal(raw, &req) == nil {
			go serve(req)
		}
		return true
	}
	return false
}

// answerRequest runs handler h (nil: none is set) on a request the server
// sent and returns the answer to send back, or nil for none. A handler's
// failure goes back as a JSON-RPC error; a request whose wait was cancelled
// or timed out — also one that arrives after its context ended — is
// answered "interrupted", as mcp-go's transports do. No time limit is set
// here: sampling and elicitation may wait for a person, and the server
// decides how long it waits.
func answerRequest(ctx context.Context, h transport.RequestHandler, req transport.JSONRPCRequest) []byte {
	var resp *transport.JSONRPCResponse
	if h == nil {
		resp = transport.NewJSONRPCErrorResponse(req.ID, mcp.METHOD_NOT_FOUND, "no handler configured for method: "+req.Method, nil)
	} else {
		err := ctx.Err()
		if err == nil {
			resp, err = h(ctx, req)
		}
		switch {
		case errors.Is(err, context.Canceled):
			resp = transport.NewJSONRPCErrorResponse(req.ID, mcp.REQUEST_INTERRUPTED, "request was cancelled", nil)
		case errors.Is(err, context.DeadlineExceeded):
			resp = transport.NewJSONRPCErrorResponse(req.ID, mcp.REQUEST_INTERRUPTED, "request timed out", nil)
		case err != nil:
			resp = transport.NewJSONRPCErrorResponse(req.ID, mcp.INTERNAL_ERROR, err.Error(), nil)
		}
	}
	if resp == nil {
		return nil
	}
	b, err := json.Marshal(resp)
	if err != nil {
		return nil
	}
	return b
}
