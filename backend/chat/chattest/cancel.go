package chattest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/backend/chat"
)

// CheckCancelMidStream streams from p, a provider pointed at srv whose
// next step sends some text and then hangs; once text has arrived it
// cancels, and checks that Stream returns context.Canceled and that srv
// saw the request go away (the vendor stops generating).
func CheckCancelMidStream(t *testing.T, srv *Server, p chat.Provider) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got := make(chan struct{}, 1)
	done := make(chan error, 1)
	go func() {
		_, err := p.Stream(ctx, chat.Request{Model: "m", Messages: []chat.Message{{Role: chat.RoleUser, Text: "x"}}},
			func(chat.Delta) {
				select {
				case got <- struct{}{}:
				default:
				}
			})
		done <- err
	}()
	select {
	case <-got:
	case <-time.After(10 * time.Second):
		t.Fatal("no text before the hang")
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	select {
	case <-srv.Cancelled:
	case <-time.After(10 * time.Second):
		t.Fatal("the server never saw the request cancelled")
	}
}
