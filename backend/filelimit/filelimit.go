// Package filelimit bounds the files the router parses: policy.yaml, process
// definitions, client configs and their JSON, hook scripts and their
// contexts, the secrets file. One bad file must cost its loader an error,
// never the process: every loader takes a Limits (size, nesting depth, YAML
// tokens and alias expansion, a parse deadline), reads through ReadFile
// (regular files only, never blocking on a FIFO or a device) and parses
// through ParseYAML or CheckJSON, which refuse a file past a cap before a
// parser builds anything from it (docs/limits.md, "Files the router
// parses").
//
// The caps are fixed, not settings: they sit far above any file a person
// writes, and they guard code that runs before the settings can be read
// (the CLI's checks, the start of the router) and against a file in the
// data dir, where the settings' own database lives. Errors name the cap.
package filelimit

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Limits are the caps of one kind of file. A zero field takes the default.
type Limits struct {
	// What the file is, for errors: "policy file", "process definition".
	What string
	// MaxBytes bounds the file's size.
	MaxBytes int64
	// MaxDepth bounds nesting: YAML collections and JSON arrays and objects,
	// counted after YAML aliases are expanded.
	MaxDepth int
	// MaxNodes bounds a YAML document's words and indicators as written
	// (so the tokens go-yaml's scanner makes of it) and its nodes as its
	// aliases would expand them.
	MaxNodes int
	// MaxKeys bounds the keys of one YAML block mapping (go-yaml's parser
	// takes time quadratic in them).
	MaxKeys int
	// AliasFactor bounds alias expansion: a YAML document may expand to
	// AliasFactor times the nodes it has as written (at least AliasFloor).
	AliasFactor int
	// Deadline bounds one parse.
	Deadline time.Duration
}

// The defaults (docs/limits.md lists them with what was measured).
const (
	DefaultMaxBytes    = 1 << 20
	DefaultMaxDepth    = 64
	DefaultMaxNodes    = 100_000
	DefaultMaxKeys     = 1_000
	DefaultAliasFactor = 10
	// AliasFloor is the expansion every YAML document may have whatever its
	// size, so a small file may reuse its anchors freely.
	AliasFloor      = 10_000
	DefaultDeadline = 10 * time.Second
)

// WithDefaults fills the zero fields.
func (l Limits) WithDefaults() Limits {
	if l.What == "" {
		l.What = "file"
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultMaxDepth
	}
	if l.MaxNodes <= 0 {
		l.MaxNodes = DefaultMaxNodes
	}
	if l.MaxKeys <= 0 {
		l.MaxKeys = DefaultMaxKeys
	}
	if l.AliasFactor <= 0 {
		l.AliasFactor = DefaultAliasFactor
	}
	if l.Deadline <= 0 {
		l.Deadline = DefaultDeadline
	}
	return l
}

// The caps, for errors.Is on an *Error.
var (
	ErrTooLarge       = errors.New("file size cap")
	ErrNotRegular     = errors.New("not a regular file")
	ErrTooDeep        = errors.New("nesting depth cap")
	ErrTooManyNodes   = errors.New("node cap")
	ErrTooManyKeys    = errors.New("mapping key cap")
	ErrAliasExpansion = errors.New("alias expansion cap")
	ErrDeadline       = errors.New("parse deadline")
)

// Error is a file refused at a cap. Line and Column (1-based) are where,
// when the cap was passed at one place; Message says which cap and its
// value.
type Error struct {
	Line, Column int
	Message      string
	Cap          error // one of the Err* caps
}

func (e *Error) Error() string {
	if e.Line == 0 {
		return e.Message
	}
	return fmt.Sprintf("%d:%d: %s", e.Line, e.Column, e.Message)
}

func (e *Error) Unwrap() error { return e.Cap }

// fixed ends every message: the caps are not settings.
const fixed = "a fixed cap, docs/limits.md"

func refuse(capErr error, line, col int, format string, args ...any) *Error {
	return &Error{Line: line, Column: col, Cap: capErr, Message: fmt.Sprintf(format, args...) + " (" + fixed + ")"}
}

// Within runs parse on its own goroutine and returns what it returns, or an
// error as soon as ctx ends or the parse deadline passes. The context parse
// gets ends then too, so ParseYAML and CheckJSON stop at their next check;
// work that cannot stop (a decoder) is bounded by the other caps and ends
// on its own. A panic in parse is an error, not a crash of the process.
func Within[T any](ctx context.Context, l Limits, parse func(context.Context) (T, error)) (T, error) {
	l = l.WithDefaults()
	pctx, cancel := context.WithTimeout(ctx, l.Deadline)
	defer cancel()
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		var r result
		defer func() {
			if p := recover(); p != nil {
				r = result{err: fmt.Errorf("the %s could not be parsed (the parser failed: %v)", l.What, p)}
			}
			done <- r
		}()
		r.v, r.err = parse(pctx)
	}()
	var zero T
	select {
	case r := <-done:
		if r.err == nil || pctx.Err() == nil {
			return r.v, r.err
		}
	case <-pctx.Done():
	}
	if ctx.Err() != nil {
		return zero, fmt.Errorf("parsing the %s was stopped: %w", l.What, context.Cause(ctx))
	}
	return zero, deadlineError(l)
}

func deadlineError(l Limits) *Error {
	return refuse(ErrDeadline, 0, 0, "parsing the %s took longer than %s, its parse deadline", l.What, l.Deadline)
}

// checkEvery is how often the scanners look at their context.
const checkEvery = 4096
