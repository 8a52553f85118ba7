package upstream

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"
)

type otherKey struct{}

var noteSink context.Context // keeps the context on the heap, as a caller does

// The start note's context is its parent's in all else: its values, its
// deadline, and its cancellation, which reaches contexts made from it
// (with the parent's cause), and it costs one allocation.
func TestStartNoteContextIsItsParents(t *testing.T) {
	parent, cancel := context.WithCancelCause(context.WithValue(context.Background(), otherKey{}, "v"))
	deadlined, stop := context.WithDeadline(parent, time.Now().Add(time.Hour))
	defer stop()
	ctx, note := WithStartNote(deadlined)
	if got, _ := ctx.Value(startNoteKey{}).(*StartNote); got != note {
		t.Fatal("the note is not the context's")
	}
	if ctx.Value(otherKey{}) != "v" {
		t.Fatal("the parent's value is lost")
	}
	if d, ok := ctx.Deadline(); !ok || time.Until(d) < 59*time.Minute {
		t.Fatalf("deadline %v %v", d, ok)
	}
	child, childCancel := context.WithTimeoutCause(ctx, time.Hour, errors.New("child's own"))
	defer childCancel()
	// The context package registers a child with the parent's cancel
	// context, found through the note's; had it not found it, it would
	// watch the parent from a goroutine per child.
	before := runtime.NumGoroutine()
	for range 100 {
		_, c := context.WithCancel(ctx)
		defer c()
	}
	if n := runtime.NumGoroutine() - before; n >= 50 {
		t.Fatalf("%d goroutines for 100 contexts made from the note's", n)
	}
	gone := errors.New("the client went away")
	cancel(gone)
	select {
	case <-child.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the parent's cancellation did not reach a context made from the note's")
	}
	if ctx.Err() != context.Canceled || context.Cause(ctx) != gone || context.Cause(child) != gone {
		t.Fatalf("err %v, cause %v, child's cause %v", ctx.Err(), context.Cause(ctx), context.Cause(child))
	}
	if raceDetector {
		return
	}
	if n := testing.AllocsPerRun(100, func() { noteSink, _ = WithStartNote(parent) }); n != 1 {
		t.Fatalf("WithStartNote: %.0f allocations, want 1", n)
	}
}

// BenchmarkWithStartNote: the note every forwarded call makes, and the
// lookup Request makes of a context made from it.
func BenchmarkWithStartNote(b *testing.B) {
	parent, cancel := context.WithCancel(context.Background())
	defer cancel()
	b.ReportAllocs()
	for b.Loop() {
		ctx, _ := WithStartNote(parent)
		noteSink = ctx
		if ctx.Value(activityKey{}) != nil {
			b.Fatal("an activity")
		}
	}
}
