package upstream

import (
	"errors"
	"fmt"
)

// Sentinel errors, checked with errors.Is.
var (
	ErrUnknownServer = errors.New("unknown server")
	ErrNotRunning    = errors.New("server is not running")
	ErrExists        = errors.New("server already exists")
	ErrClosed        = errors.New("service is closed")
	ErrDisabled      = errors.New("server is disabled")
	// ErrConnectionLost: the connection ended while a request was waiting
	// for its answer (the process exited, the HTTP session expired).
	ErrConnectionLost = errors.New("connection lost")
	// ErrNoBuiltin: a built-in server this process does not provide (the
	// CLI probing one, say).
	ErrNoBuiltin = errors.New("built-in server not available here")
)

// lostError is a request cut off by the end of its connection. Its message
// is "<method>: <why the connection ended>"; it matches ErrConnectionLost.
type lostError struct{ method, reason string }

func (e *lostError) Error() string        { return e.method + ": " + e.reason }
func (e *lostError) Is(target error) bool { return target == ErrConnectionLost }

// RPCError is a JSON-RPC error answered by an upstream server.
type RPCError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

func (e *RPCError) Error() string {
	return fmt.Sprintf("upstream error %d: %s", e.Code, e.Message)
}
