package upstream

import (
	"bufio"
	"io"
	"sync"
)

// DefaultConsoleLines is how many stderr lines a server keeps.
const DefaultConsoleLines = 1000

// maxConsoleLine caps one line so a server that prints a megabyte without a
// newline cannot grow the buffer without bound.
const maxConsoleLine = 8 * 1024

// Console is a bounded ring of a server's stderr lines. It survives restarts
// of the server so the user can read why it crashed.
type Console struct {
	mu    sync.Mutex
	lines []string
	next  int // index of the oldest line once the ring is full
	full  bool
	total int64
	onAdd func(line string)
}

// NewConsole keeps at most capacity lines; capacity <= 0 means DefaultConsoleLines.
func NewConsole(capacity int, onAdd func(line string)) *Console {
	if capacity <= 0 {
		capacity = DefaultConsoleLines
	}
	return &Console{lines: make([]string, 0, capacity), onAdd: onAdd}
}

// Add appends one line, dropping the oldest when full.
func (c *Console) Add(line string) {
	if len(line) > maxConsoleLine {
		line = line[:maxConsoleLine] + "…"
	}
	c.mu.Lock()
	if len(c.lines) < cap(c.lines) {
		c.lines = append(c.lines, line)
	} else {
		c.lines[c.next] = line
		c.next = (c.next + 1) % len(c.lines)
		c.full = true
	}
	c.total++
	onAdd := c.onAdd
	c.mu.Unlock()
	if onAdd != nil {
		onAdd(line)
	}
}

// Lines returns the buffered lines, oldest first.
func (c *Console) Lines() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]string, 0, len(c.lines))
	if c.full {
		out = append(out, c.lines[c.next:]...)
		out = append(out, c.lines[:c.next]...)
		return out
	}
	return append(out, c.lines...)
}

// Total counts every line ever added, including dropped ones.
func (c *Console) Total() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total
}

// drain reads r line by line into the console until EOF. Reading never
// stops early: an unread stderr pipe fills and blocks the child.
func (c *Console) drain(r io.Reader) {
	br := bufio.NewReaderSize(r, 4096)
	var pending []byte
	for {
		chunk, isPrefix, err := br.ReadLine()
		if len(chunk) > 0 || (err == nil && !isPrefix) {
			if len(pending) < maxConsoleLine+1 {
				pending = append(pending, chunk...)
			}
			if !isPrefix {
				c.Add(string(pending))
				pending = pending[:0]
			}
		}
		if err != nil {
			if len(pending) > 0 {
				c.Add(string(pending))
			}
			return
		}
	}
}
