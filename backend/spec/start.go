package spec

import "fmt"

// StartMode says when the router starts a server.
type StartMode string

// Start modes. "" reads as eager.
const (
	// StartEager starts the server when the router starts (or the server
	// is added or enabled), and keeps it running.
	StartEager StartMode = "eager"
	// StartLazy leaves the server stopped until a call needs it; its tools
	// are listed from the persisted catalog meanwhile, and it stops again
	// after the lazyIdleSeconds setting without calls.
	StartLazy StartMode = "lazy"
)

// IsLazy reports whether the server starts on use.
func (s Server) IsLazy() bool { return s.Start == StartLazy }

func (s Server) validateStart() error {
	switch s.Start {
	case "", StartEager, StartLazy:
		return nil
	}
	return fmt.Errorf("start %q must be eager or lazy", string(s.Start))
}
