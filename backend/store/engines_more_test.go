package store

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"
)

// state_gate's append on both engines, with two Stores (two processes or
// replicas) appending to one run at once: every event lands exactly once,
// seq 1..n without a gap, and the run's revision is n. On PostgreSQL this
// holds by the run's row lock (lockRunForAppend); without it, concurrent
// appends read the same revision and all but one fail.
func TestStateGateConcurrentAppendsOnBothEngines(t *testing.T) {
	forEachEngine(t, func(t *testing.T, open opener) {
		a, b := open(t), open(t)
		ctx := context.Background()
		now := time.Now().UTC()
		if err := a.StateGate().CreateRun(ctx, StateGateDefinition{Hash: "h", ProcessID: "p", Version: "1", Source: "s", CreatedAt: now},
			StateGateRun{ID: "r1", ProcessID: "p", ProcessVersion: "1", DefinitionHash: "h", State: "start", Context: "{}", Workspace: "/w", CreatedAt: now, UpdatedAt: now}); err != nil {
			t.Fatal(err)
		}
		const n = 8
		var wg sync.WaitGroup
		errs := make(chan error, n)
		for i := 0; i < n; i++ {
			s := a
			if i%2 == 1 {
				s = b
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, _, err := s.StateGate().AppendEvent(ctx, "r1", fmt.Sprint("k", i), "req", func(snap AppendSnapshot) (Append, error) {
					return Append{Event: StateGateEvent{EventID: fmt.Sprint("e", i), Name: "step", Payload: "{}",
						FromState: snap.Run.State, ToState: "start", Result: "{}"}}, nil
				})
				errs <- err
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Error(err)
			}
		}
		evs, err := b.StateGate().Events(ctx, "r1")
		if err != nil {
			t.Fatal(err)
		}
		var seqs []int
		for _, e := range evs {
			seqs = append(seqs, int(e.Seq))
		}
		sort.Ints(seqs)
		if len(seqs) != n || seqs[0] != 1 || seqs[n-1] != n {
			t.Errorf("seqs %v, want 1..%d", seqs, n)
		}
		if run, err := a.StateGate().Run(ctx, "r1"); err != nil || run.Revision != n {
			t.Errorf("run revision %d (%v), want %d", run.Revision, err, n)
		}
		// The same key and request again is a replay, not a new event.
		_, replayed, err := a.StateGate().AppendEvent(ctx, "r1", "k0", "req", func(AppendSnapshot) (Append, error) {
			t.Error("decide asked for a replay")
			return Append{}, nil
		})
		if err != nil || !replayed {
			t.Errorf("replay: %v, replayed %v", err, replayed)
		}
	})
}

// The append-only tables refuse UPDATE and DELETE even from raw SQL, on
// both engines (a database user editing the audit trail or a run's history
// is refused by the database itself).
func TestAppendOnlyTablesOnBothEngines(t *testing.T) {
	forEachEngine(t, func(t *testing.T, open opener) {
		s := open(t)
		ctx := context.Background()
		if _, err := s.Audit().Append(ctx, AuditRow{Client: "c", Server: "s", Tool: "t", Status: "ok"}, time.Time{}); err != nil {
			t.Fatal(err)
		}
		now := time.Now().UTC()
		if err := s.StateGate().CreateRun(ctx, StateGateDefinition{Hash: "h", ProcessID: "p", Version: "1", Source: "s", CreatedAt: now},
			StateGateRun{ID: "r1", ProcessID: "p", ProcessVersion: "1", DefinitionHash: "h", State: "start", Context: "{}", Workspace: "/w", CreatedAt: now, UpdatedAt: now}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.StateGate().AppendEvent(ctx, "r1", "k", "req", func(AppendSnapshot) (Append, error) {
			return Append{Event: StateGateEvent{EventID: "e1", Name: "step", Payload: "{}", FromState: "start", ToState: "start", Result: "{}"},
				Artifacts: []StateGateArtifact{{Path: "a.txt", Size: 1, SHA256: "x"}}}, nil
		}); err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{
			`UPDATE policy_audit SET status = 'blocked'`,
			`DELETE FROM policy_audit`,
			`UPDATE stategate_events SET name = 'x'`,
			`DELETE FROM stategate_artifacts`,
		} {
			if err := s.DB().Exec(q).Error; err == nil {
				t.Errorf("%s: allowed", q)
			}
		}
		if rep, err := s.Audit().Verify(ctx); err != nil || !rep.OK() || rep.Rows != 1 {
			t.Errorf("Verify = %+v, %v", rep, err)
		}
	})
}

// Profiles round-trip and move the configuration revision on both engines.
func TestProfilesOnBothEngines(t *testing.T) {
	forEachEngine(t, func(t *testing.T, open opener) {
		s := open(t)
		ctx := context.Background()
		r0, _ := s.Revision(ctx)
		p, err := s.Profiles().Create(ctx, Profile{Name: "dev", Mode: "all", Servers: []string{"fs"}, Tools: map[string][]string{"fs": {"read"}}})
		if err != nil {
			t.Fatal(err)
		}
		r1, _ := s.Revision(ctx)
		if r1 == r0 {
			t.Error("creating a profile did not move the revision")
		}
		got, err := s.Profiles().Get(ctx, "dev")
		if err != nil || got.Servers[0] != "fs" || got.Tools["fs"][0] != "read" || !got.CreatedAt.Equal(p.CreatedAt) {
			t.Errorf("Get = %+v, %v (created %+v)", got, err, p)
		}
		if _, err := s.Profiles().Create(ctx, Profile{Name: "dev", Mode: "all"}); err == nil {
			t.Error("a second profile named dev was stored")
		}
		if err := s.Profiles().Delete(ctx, "dev"); err != nil {
			t.Fatal(err)
		}
		if r2, _ := s.Revision(ctx); r2 == r1 {
			t.Error("deleting a profile did not move the revision")
		}
	})
}
