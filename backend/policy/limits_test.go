package policy

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/mcp-router/mcp-router/backend/filelimit"
	"github.com/mcp-router/mcp-router/backend/pipeline"
	"github.com/mcp-router/mcp-router/internal/testbombs"
)

// Issue 24: the ladder under abilities[0].input_schema.$defs killed the
// router (its JSON Schema was marshalled with every alias expanded, 9^9
// strings). It is refused at the alias that passes the cap, with its
// line and column, in well under the bounds here.
func TestAliasLadderIsRefused(t *testing.T) {
	src := []byte(testbombs.Policy())
	var err error
	start := time.Now()
	alloc := testbombs.Allocated(func() { _, err = Parse(src) })
	took := time.Since(start)
	var fe *FileError
	if !errors.As(err, &fe) || len(fe.Problems) != 1 {
		t.Fatalf("err = %v", err)
	}
	p := fe.Problems[0]
	if p.Line < 9 || p.Column == 0 || !strings.Contains(p.Message, "aliases expand the document past") || !strings.Contains(p.Message, "docs/limits.md") {
		t.Errorf("problem %+v", p)
	}
	t.Logf("%d-byte ladder refused in %s, %d KB allocated: %s", len(src), took, alloc>>10, p)
	if took > 5*time.Second || alloc > 64<<20 {
		t.Errorf("refusing it took %s and %d MB", took, alloc>>20)
	}
}

// The running router keeps the last good policy when the ladder is
// written over it, and says why (Status, the log).
func TestServiceKeepsTheLastGoodPolicyOverABomb(t *testing.T) {
	rg := newRig(t, "policies:\n  - name: no-fs\n    servers: {deny: [fs]}\n")
	var logs bytes.Buffer
	log := logrus.New()
	log.SetOutput(&logs)
	rg.svc.o.Logger = log
	if err := os.WriteFile(rg.svc.Path(), []byte(testbombs.Policy()), 0o600); err != nil {
		t.Fatal(err)
	}
	changed, err := rg.svc.Poll()
	if !changed || !errors.As(err, new(*FileError)) {
		t.Fatalf("poll: %v %v", changed, err)
	}
	st := rg.svc.Status()
	if !st.Active || st.Rules != 1 || st.Error == nil || !strings.Contains(st.Error.Error(), "aliases expand") {
		t.Errorf("status %+v", st)
	}
	routeErr(t, rg.call("a", "fs", "t"), pipeline.ReasonDenied) // still in force
	if !strings.Contains(logs.String(), "the previous policy stays in force") || !strings.Contains(logs.String(), "aliases expand") {
		t.Errorf("log: %s", logs.String())
	}
}

// A policy.yaml that is a FIFO is refused at once (it was opened before
// it was checked, and the open waited for a writer forever); the last
// good policy stays. So does one over the size cap, unread.
func TestServiceRefusesWhatIsNotARegularFile(t *testing.T) {
	rg := newRig(t, "policies:\n  - name: no-fs\n    servers: {deny: [fs]}\n")
	os.Remove(rg.svc.Path())
	if err := testbombs.MakeFIFO(rg.svc.Path()); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	done := make(chan error, 1)
	go func() { done <- rg.svc.Reload() }()
	select {
	case err := <-done:
		if !errors.Is(err, filelimit.ErrNotRegular) && !strings.Contains(errText(err), "named pipe") {
			t.Errorf("reload: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Reload blocked on a FIFO")
	}
	if _, err := rg.svc.Source(); err == nil || !strings.Contains(err.Error(), "named pipe") {
		t.Errorf("source: %v", err)
	}
	routeErr(t, rg.call("a", "fs", "t"), pipeline.ReasonDenied)

	os.Remove(rg.svc.Path())
	if err := os.WriteFile(rg.svc.Path(), bytes.Repeat([]byte("#"), MaxFileBytes+1), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := rg.svc.Reload(); err == nil || !strings.Contains(err.Error(), "the policy file is 1048577 bytes, over 1 MiB, the size cap of a policy file") {
		t.Errorf("reload: %v", err)
	}
	routeErr(t, rg.call("a", "fs", "t"), pipeline.ReasonDenied)
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// ParseContext returns as soon as its context ends (the CLI's check on
// SIGTERM) and at the parse deadline.
func TestParseStopsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ParseContext(ctx, []byte(testbombs.KeysYAML(4000)), FileLimits()); err == nil || !strings.Contains(err.Error(), "stopped") {
		t.Errorf("err = %v", err)
	}
	lim := FileLimits()
	lim.Deadline = time.Nanosecond
	if _, err := ParseContext(context.Background(), []byte(testbombs.KeysYAML(4000)), lim); err == nil || !strings.Contains(err.Error(), "parse deadline") {
		t.Errorf("err = %v", err)
	}
}

// policySeeds are the bombs FuzzParse starts from.
func policySeeds(t testing.TB) [][]byte {
	src, err := os.ReadFile(filepath.Join("testdata", "seed.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	seeds := [][]byte{src}
	for _, s := range []string{
		testbombs.Policy(),
		"policies:\n  - name: a\n    tools: {hide: " + testbombs.FlowYAML(50_000) + "}\n",
		"policies:\n" + testbombs.BlockYAML(50_000),
		testbombs.KeysYAML(6000),
		"policies:\n  - name: " + testbombs.Scalar(MaxFileBytes) + "\n",
		"abilities:\n  - name: a\n    input_schema: &s {type: object, properties: {x: *s}}\n",
	} {
		seeds = append(seeds, []byte(s))
	}
	return seeds
}
