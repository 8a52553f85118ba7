// Per-hook logs: console output and the router's notes about each run.

package hook

import (
	"sync"
)

type ring struct {
	mu    sync.Mutex
	lines [ringSize]LogLine
	next  int
	full  bool
}

func (r *ring) add(l LogLine) {
	r.mu.Lock()
	r.lines[r.next] = l
	r.next = (r.next + 1) % ringSize
	if r.next == 0 {
		r.full = true
	}
	r.mu.Unlock()
}

func (r *ring) snapshot() []LogLine {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.full {
		return append([]LogLine(nil), r.lines[:r.next]...)
	}
	out := make([]LogLine, 0, ringSize)
	out = append(out, r.lines[r.next:]...)
	return append(out, r.lines[:r.next]...)
}

// emit records a line in the hook's ring and the app log, and tells the
// subscribers.
func (s *Service) emit(hook string, l LogLine) {
	s.logMu.RLock()
	r := s.logs[hook]
	s.logMu.RUnlock()
	if r == nil {
		s.logMu.Lock()
		if r = s.logs[hook]; r == nil {
			r = &ring{}
			s.logs[hook] = r
		}
		s.logMu.Unlock()
	}
	r.add(l)
	e := s.log.WithField("hook", hook)
	msg := l.Message
	if !l.Router {
		msg = "console." + l.Level + ": " + msg
	}
	switch l.Level {
	case "error":
		e.Error(msg)
	case "warn":
		e.Warn(msg)
	case "debug":
		e.Debug(msg)
	default:
		e.Info(msg)
	}
	s.subMu.RLock()
	for _, fn := range s.subs {
		fn(hook, l)
	}
	s.subMu.RUnlock()
}

// Logs returns the last 500 lines of the named hook's log, oldest first.
func (s *Service) Logs(name string) []LogLine {
	s.logMu.RLock()
	r := s.logs[name]
	s.logMu.RUnlock()
	if r == nil {
		return []LogLine{}
	}
	return r.snapshot()
}

// Subscribe calls fn with every new log line of every hook until the
// returned function is called. fn runs on the hook's goroutine: it must be
// quick and must not call back into the Service.
func (s *Service) Subscribe(fn func(hook string, l LogLine)) (unsubscribe func()) {
	s.subMu.Lock()
	s.subID++
	id := s.subID
	s.subs[id] = fn
	s.subMu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			s.subMu.Lock()
			delete(s.subs, id)
			s.subMu.Unlock()
		})
	}
}

// ---- dry runs ----

// TestResult is what one dry run of a hook did.
type TestResult struct {
	Hook       string         `json:"hook"`
	Phase      string         `json:"phase"`
	Continue   bool           `json:"continue"`
	Block      *Block         `json:"blocked,omitempty"`
	Error      string         `json:"error,omitempty"` // the script failed (the request would go on unless fail-closed)
	Context    map[string]any `json:"context"`         // the context after the hook
	Logs       []LogLine      `json:"logs"`
	DurationMs float64        `json:"durationMs"`
}
