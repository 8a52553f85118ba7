package store

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"
)

func TestPing(t *testing.T) {
	st, err := Open(filepath.Join(t.TempDir(), "router.db"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := st.Ping(ctx); err != nil {
		t.Fatalf("ping of an open store: %v", err)
	}

	// Every connection of the pool taken (a database that no longer hands
	// out connections): Ping waits for its context, not forever.
	var held []interface{ Close() error }
	for i := 0; i < maxOpenConns; i++ {
		c, err := st.sql.Conn(ctx)
		if err != nil {
			break // Revision may hold one already
		}
		held = append(held, c)
	}
	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	start := time.Now()
	err = st.Ping(short)
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("ping with the pool used up: %v, want the deadline", err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("ping with the pool used up took %v, its deadline was 100ms", took)
	}
	for _, c := range held {
		c.Close()
	}
	if err := st.Ping(ctx); err != nil {
		t.Errorf("ping once the connections are back: %v", err)
	}

	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if err := st.Ping(ctx); err == nil {
		t.Error("ping of a closed store succeeded")
	}
}
