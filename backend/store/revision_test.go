package store

import (
	"context"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/backend/spec"
)

// TestRevisionMovesOnConfigurationOnly: every write to a configuration
// table moves Revision, whichever connection makes it; the request log and
// a token's last use never do.
func TestRevisionMovesOnConfigurationOnly(t *testing.T) {
	app, path := openTest(t)
	ctx := context.Background()
	other, err := Open(path) // the CLI in another process: its own connections
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.Servers().Create(ctx, spec.Server{Name: "s", Command: "x"}); err != nil {
		t.Fatal(err)
	}
	if _, err := other.Tokens().Create(ctx, Token{Name: "t", Hash: HashToken("secret"), Prefix: "mcpr_x"}); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"t", "a"} { // one hook for each writer ("this…", "another…")
		if _, err := other.Hooks().Create(ctx, Hook{Name: "h" + n, HookType: HookPre, Script: "1", Enabled: true}); err != nil {
			t.Fatal(err)
		}
	}
	now := time.Now()
	for _, tc := range []struct {
		name  string
		write func(s *Store, n string) error
		moves bool
	}{
		{"request log batch", func(s *Store, n string) error {
			return s.Logs().Insert(ctx, []RequestLog{{Time: now, Client: "c", Server: "s", Method: "tools/call", Status: StatusOK}})
		}, false},
		{"request log pruning", func(s *Store, n string) error {
			_, err := s.Logs().DeleteOlderThan(ctx, now.Add(time.Hour))
			return err
		}, false},
		{"token last used", func(s *Store, n string) error { return s.Tokens().Touch(ctx, "t", time.Now()) }, false},
		{"token last used again", func(s *Store, n string) error { return s.Tokens().Touch(ctx, "t", time.Now().Add(time.Minute)) }, false},
		{"server added", func(s *Store, n string) error {
			_, err := s.Servers().Create(ctx, spec.Server{Name: "s2" + n, Command: "x"})
			return err
		}, true},
		{"server disabled", func(s *Store, n string) error { return s.Servers().SetEnabled(ctx, "s", false) }, true},
		{"server removed", func(s *Store, n string) error { return s.Servers().Delete(ctx, "s2"+n) }, true},
		{"setting set", func(s *Store, n string) error { return s.Settings().Set(ctx, "port", "4000") }, true},
		{"settings set together", func(s *Store, n string) error {
			return s.Settings().SetMany(ctx, map[string]string{"port": "4001", "auth" + n: "off"})
		}, true},
		{"setting removed", func(s *Store, n string) error { return s.Settings().Delete(ctx, "auth"+n) }, true},
		{"hook disabled", func(s *Store, n string) error { return s.Hooks().SetEnabled(ctx, "h"+n, false) }, true},
		{"hook removed", func(s *Store, n string) error { return s.Hooks().Delete(ctx, "h"+n) }, true},
		{"token created", func(s *Store, n string) error {
			_, err := s.Tokens().Create(ctx, Token{Name: "t2" + n, Hash: HashToken("other" + n), Prefix: "mcpr_y"})
			return err
		}, true},
		{"token scope changed", func(s *Store, n string) error { return s.Tokens().SetServers(ctx, "t", []string{"s"}) }, true},
		{"token revoked", func(s *Store, n string) error { return s.Tokens().Revoke(ctx, "t2"+n, now) }, true},
		{"token deleted", func(s *Store, n string) error { return s.Tokens().Delete(ctx, "t2"+n) }, true},
	} {
		for _, who := range []struct {
			name string
			s    *Store
		}{{"this process", app}, {"another process", other}} {
			t.Run(tc.name+" by "+who.name, func(t *testing.T) {
				before, err := app.Revision(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if err := tc.write(who.s, who.name[:1]); err != nil {
					t.Fatal(err)
				}
				after, err := app.Revision(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if moved := after != before; moved != tc.moves {
					t.Errorf("revision %d -> %d: moved %v, want %v", before, after, moved, tc.moves)
				}
			})
		}
	}
}
