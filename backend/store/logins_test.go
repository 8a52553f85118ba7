package store

import (
	"context"
	"testing"
)

// A login's change moves its generation and the configuration revision,
// which is how another router process on the data dir notices it.
func TestLoginGenerationsMoveTheRevision(t *testing.T) {
	forEachEngine(t, func(t *testing.T, open opener) {
		s := open(t)
		ctx := context.Background()
		before, err := s.Revision(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if g, err := s.Logins().Generations(ctx); err != nil || len(g) != 0 {
			t.Fatalf("%v %v", g, err)
		}
		for range 2 {
			if err := s.Logins().Changed(ctx, "remote"); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Logins().Changed(ctx, "other"); err != nil {
			t.Fatal(err)
		}
		g, err := s.Logins().Generations(ctx)
		if err != nil || g["remote"] != 2 || g["other"] != 1 || len(g) != 2 {
			t.Fatalf("%v %v", g, err)
		}
		after, err := s.Revision(ctx)
		if err != nil || after != before+3 {
			t.Fatalf("revision %d → %d (%v), want +3", before, after, err)
		}
	})
}
