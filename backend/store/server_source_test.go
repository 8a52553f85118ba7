package store

import (
	"context"
	"errors"
	"testing"

	"github.com/mcp-router/mcp-router/backend/spec"
)

// A server's registry source (migration 1600) is kept, read back and
// checked; a hand-added server has none.
func TestServerSourceRoundTrip(t *testing.T) {
	forEachEngine(t, func(t *testing.T, open opener) {
		s := open(t)
		ctx := context.Background()
		r := s.Servers()
		src := spec.Source{Registry: "http://127.0.0.1:8080", Name: "io.github.a/weather", Version: "1.2.3"}
		if _, err := r.Create(ctx, spec.Server{Name: "weather", Command: "npx", Source: src}); err != nil {
			t.Fatal(err)
		}
		if _, err := r.Create(ctx, spec.Server{Name: "hand", Command: "x"}); err != nil {
			t.Fatal(err)
		}
		got, err := r.Get(ctx, "weather")
		if err != nil || got.Source != src {
			t.Fatalf("source %+v, %v", got.Source, err)
		}
		if hand, _ := r.Get(ctx, "hand"); !hand.Source.IsZero() {
			t.Fatalf("hand-added server has source %+v", hand.Source)
		}
		bad := src
		bad.Name = "io.github.a/../x"
		if _, err := r.Create(ctx, spec.Server{Name: "bad", Command: "x", Source: bad}); !errors.Is(err, spec.ErrInvalid) {
			t.Fatalf("a source name with ../: %v", err)
		}
	})
}
