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
)

// RPCError is a JSON-RPC error answered by an upstream server.
type RPCError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

func (e *RPCError) Error() string {
	return fmt.Sprintf("upstream error %d: %s", e.Code, e.Message)
}
