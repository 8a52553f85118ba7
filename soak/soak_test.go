package main

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// TestMain lets the test binary be the router the soak starts, as the soak
// binary is in `make soak`.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == routerArg {
		os.Exit(runRouter(os.Args[2:]))
	}
	os.Exit(m.Run())
}

// TestSoakOneMinute is the soak, short: 100 sessions for a minute with the
// upstream killed every 20 s. Every request must be answered, errors only
// around the kills, every kill followed by a restart, and the router's RSS
// and goroutines flat (looser than make soak's 20%: one minute of a
// race-instrumented router is mostly warm-up). The pause is longer and the
// restart grace wider than make soak's: under -race the router is several
// times slower, and a restart (the upstream's initialize and tools/list,
// the catalog rebuilt, list_changed to every session) takes it longer.
func TestSoakOneMinute(t *testing.T) {
	o := defaultOptions()
	o.Upstream = testpeers.GoEverything(t)
	o.Duration = time.Minute
	o.Window = 15 * time.Second
	o.Sample = 2 * time.Second
	o.KillEvery = 20 * time.Second
	o.RestartGrace = 15 * time.Second
	o.Pause = 250 * time.Millisecond
	o.Tolerance = 0.5
	if err := o.check(); err != nil {
		t.Fatal(err)
	}
	var progress strings.Builder
	rep, err := Run(t.Context(), o, &progress)
	if err != nil {
		t.Fatalf("%v\n%s", err, progress.String())
	}
	var out strings.Builder
	rep.Print(&out)
	t.Log(out.String())
	if !rep.Passed() {
		t.Fatal("the soak failed (report above)")
	}
	for i, k := range rep.Kinds {
		if k.OK == 0 {
			t.Errorf("no %s answered: the mix did not run", kindNames[i])
		}
	}
	if rep.Kills < 2 || rep.Restarts != rep.Kills {
		t.Errorf("upstream killed %d times, restarted %d: want at least 2 kills, each restarted", rep.Kills, rep.Restarts)
	}
	if rep.Opened <= int64(o.Sessions) {
		t.Errorf("%d sessions opened for %d workers: no churn", rep.Opened, o.Sessions)
	}
	if rep.Notes == 0 {
		t.Error("no progress or log notification reached a client")
	}
	if len(rep.Samples) < 20 {
		t.Errorf("%d samples in a minute at 2 s", len(rep.Samples))
	}
	if left := testpeers.ProcessesWithEnv(markerEnv, rep.Marker); len(left) > 0 {
		t.Errorf("processes of the soak outlived it: %v", left)
	}
}

// The verdict's parts, on made-up figures: each can fail.
func TestSoakVerdict(t *testing.T) {
	o := Options{Duration: 5 * time.Minute, Window: time.Minute, Tolerance: 0.2, RestartGrace: 10 * time.Second}
	curve := func(grow float64) []Sample {
		var out []Sample
		for at := 10 * time.Second; at <= o.Duration; at += 10 * time.Second {
			out = append(out, Sample{At: at, RSS: int64(100e6 * (1 + grow*at.Minutes())), Goroutines: 600})
		}
		return out
	}
	rss := func(sm Sample) float64 { return float64(sm.RSS) }
	if f := flatness(curve(0.01), o, rss); !f.Flat || f.N2 != 6 || f.NL != 7 {
		t.Errorf("1%%/min growth: %+v, want flat over 6 and 7 samples", f)
	}
	if f := flatness(curve(0.1), o, rss); f.Flat {
		t.Errorf("10%%/min growth (+30%% from minute 2 to 5): %+v, want not flat", f)
	}
	if f := flatness(curve(0)[:5], o, rss); f.Flat {
		t.Errorf("no sample in the last window: %+v, want not flat", f)
	}

	s := &soak{o: o, start: time.Now()}
	s.record(kindCall, time.Now(), false, nil)
	s.record(kindCall, time.Now(), false, fmt.Errorf("wrapped: %w", errors.New("context deadline exceeded")))
	s.record(kindCall, time.Now(), false, fmt.Errorf("calling: %w", &jsonrpc.Error{Code: -32603, Message: "upstream gone"}))
	s.record(kindCall, time.Now(), true, nil)
	k := &s.kinds[kindCall]
	if k.ok.Load() != 1 || k.unanswered.Load() != 1 || k.errUnexpected.Load() != 2 || k.errRestart.Load() != 0 {
		t.Errorf("no kill yet: ok %d unanswered %d unexpected %d restart %d, want 1 1 2 0", k.ok.Load(), k.unanswered.Load(), k.errUnexpected.Load(), k.errRestart.Load())
	}
	s.kills = []time.Time{time.Now().Add(-5 * time.Second)}
	s.record(kindCall, time.Now(), false, &jsonrpc.Error{Code: -32603, Message: "upstream gone"})
	s.kills = []time.Time{time.Now().Add(-11 * time.Second)}
	s.record(kindCall, time.Now(), true, nil)
	if k.errRestart.Load() != 1 || k.errUnexpected.Load() != 3 {
		t.Errorf("an error 5 s after a kill is allowed, 11 s after not (grace 10 s): restart %d unexpected %d, want 1 3", k.errRestart.Load(), k.errUnexpected.Load())
	}
	rep := s.report(0, 0)
	rep.RSS.Flat, rep.Goroutines.Flat = true, true
	if rep.Passed() {
		t.Error("a report with unanswered requests passed")
	}
}
