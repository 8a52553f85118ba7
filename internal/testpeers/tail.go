package testpeers

import (
	"strings"
	"sync"
)

// Tail keeps the last N lines written to it (a process's stderr, say), for
// error messages; safe for concurrent use. The zero Tail keeps 30.
type Tail struct {
	N     int
	mu    sync.Mutex
	lines []string
}

// Add keeps line, dropping the oldest beyond N.
func (t *Tail) Add(line string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := t.N
	if n <= 0 {
		n = 30
	}
	t.lines = append(t.lines, line)
	if len(t.lines) > n {
		t.lines = t.lines[len(t.lines)-n:]
	}
}

// String is the lines kept, oldest first, one per line.
func (t *Tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.Join(t.lines, "\n")
}
