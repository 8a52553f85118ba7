package spec

import "fmt"

// StartMode says when the router starts a server.
type StartMode string

// Start modes. "" reads as auto.
const (
	// StartAuto (the default) is lazy for a server that starts locked
	// anyway — one with an activate gate of its own — and for one reached
	// only through search profiles (SearchOnly), else eager (issue 27).
	StartAuto StartMode = "auto"
	// StartEager starts the server when the router starts (or the server
	// is added or enabled), and keeps it running.
	StartEager StartMode = "eager"
	// StartLazy leaves the server stopped until a call needs it; its tools
	// are listed from the persisted catalog meanwhile, and it stops again
	// after the lazyIdleSeconds setting without calls.
	StartLazy StartMode = "lazy"
)

// StartModes lists the start modes a definition may name.
var StartModes = []StartMode{StartAuto, StartEager, StartLazy}

// ResolvedStart is when the router starts the server: eager or lazy, auto
// resolved from its gate and SearchOnly (which the router sets from the
// profiles before it uses the definition).
func (s Server) ResolvedStart() StartMode {
	switch s.Start {
	case StartEager, StartLazy:
		return s.Start
	}
	if s.Gate.Enabled || s.SearchOnly {
		return StartLazy
	}
	return StartEager
}

// IsLazy reports whether the server starts on use (ResolvedStart).
func (s Server) IsLazy() bool { return s.ResolvedStart() == StartLazy }

// Why an auto start resolved to lazy (AutoLazyCause).
const (
	LazyBecauseGated      = "gated"
	LazyBecauseSearchOnly = "search-only"
)

// AutoLazyCause is why an auto start resolved to lazy: LazyBecauseGated,
// LazyBecauseSearchOnly, or "" (the start is not auto, or it is eager).
func (s Server) AutoLazyCause() string {
	switch {
	case s.Start != "" && s.Start != StartAuto:
		return ""
	case s.Gate.Enabled:
		return LazyBecauseGated
	case s.SearchOnly:
		return LazyBecauseSearchOnly
	}
	return ""
}

// StartAutoReason says why an auto start resolved as it did ("" when the
// start is not auto).
func (s Server) StartAutoReason() string {
	if s.Start != "" && s.Start != StartAuto {
		return ""
	}
	switch s.AutoLazyCause() {
	case LazyBecauseGated:
		return "auto: the server is gated"
	case LazyBecauseSearchOnly:
		return "auto: the server is only in search profiles"
	}
	return "auto"
}

func (s Server) validateStart() error {
	switch s.Start {
	case "", StartAuto, StartEager, StartLazy:
		return nil
	}
	return fmt.Errorf("start %q must be auto, eager or lazy", string(s.Start))
}
