package core

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"

	"github.com/mcp-router/mcp-router/backend/config"
	"github.com/mcp-router/mcp-router/backend/policy"
	"github.com/mcp-router/mcp-router/backend/stategate"
	"github.com/mcp-router/mcp-router/backend/store"
	"github.com/mcp-router/mcp-router/internal/testbombs"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// newDataDir makes a data dir with state_gate enabled and the loop
// process defined, as a user would have it.
func newDataDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	writeProcess(t, dir, loopProcess)
	c, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Store.Servers().Create(context.Background(), stateGateDef()); err != nil {
		t.Fatal(err)
	}
	return dir
}

// poison plants in dir every file and row of issue 24's "nothing
// persisted stops a start" that this area loads: the ladder as policy.yaml
// and as a process definition, a FIFO among the processes and in place of
// instance-id, hooks that do not compile, that are a bomb for goja's
// parser and whose row cannot be read, and settings that are not valid.
// fifos: whether the FIFOs could be made (not on Windows).
func poison(t *testing.T, dir string) (fifos bool) {
	t.Helper()
	write := func(path, src string) {
		if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir, policy.FileName), testbombs.Policy())
	procs := stategate.ProcessesDir(dir)
	write(filepath.Join(procs, "lol.yaml"), testbombs.Process())
	if err := testbombs.MakeFIFO(filepath.Join(procs, "pipe.yaml")); err == nil {
		fifos = true
		os.Remove(filepath.Join(dir, config.InstanceFile))
		if err := testbombs.MakeFIFO(filepath.Join(dir, config.InstanceFile)); err != nil {
			t.Fatal(err)
		}
	} else if !errors.Is(err, errors.ErrUnsupported) {
		t.Fatal(err)
	}
	st, err := store.Open(config.DBPath(dir))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	for _, h := range []store.Hook{
		{Name: "broken", HookType: store.HookPre, Script: "if (", Enabled: true},
		{Name: "bomb", HookType: store.HookBoth, Script: "return " + strings.Repeat("[", 200_000), Enabled: true},
	} {
		if _, err := st.Hooks().Create(ctx, h); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.DB().Exec(`INSERT INTO hooks (name, enabled, execution_order, hook_type, script, fail_closed)
		VALUES ('garbled', 1, 'first', 'pre', 'return;', 0)`).Error; err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{
		"separator": "!!", "timeout": "forever", "hookTimeout": "-1", "hookMemoryMB": "a lot",
		"retention": "x", "approvalTimeoutSeconds": "1e99", "theme": strings.Repeat("x", 1<<20), "noSuchSetting": "1",
	} {
		if err := st.Settings().Set(ctx, k, v); err != nil {
			t.Fatal(err)
		}
	}
	return fifos
}

// serveDir starts a router process on dir and returns a client session
// and how long it took from the start of the process to the answer of
// tools/list.
func serveDir(t *testing.T, dir string) (*client.Client, []string, time.Duration) {
	t.Helper()
	start := time.Now()
	router := startRouterProcess(t, dir)
	var c *client.Client
	testpeers.Eventually(t, 30*time.Second, "a client session", func() bool {
		var err error
		c, err = mcpClient(t, router.url, "")
		return err == nil
	})
	tools := listTools(t, c)
	return c, tools, time.Since(start)
}

// Issue 24: a data dir with every poison above starts and serves: a
// router process on it answers initialize and tools/list within the start
// time of the same data dir without them (a generous margin: this is not
// a benchmark), serves the good process, answers create_run of the ladder
// with the reason, and reports what it refused.
func TestPoisonedDataDirStartsAndServes(t *testing.T) {
	if testing.Short() {
		t.Skip("starts router processes")
	}
	_, _, cleanTook := serveDir(t, newDataDir(t))
	dir := newDataDir(t)
	fifos := poison(t, dir)
	c, tools, took := serveDir(t, dir)
	t.Logf("clean data dir served tools/list in %s, the poisoned one in %s", cleanTook, took)
	if limit := 3*cleanTook + 10*time.Second; took > limit {
		t.Errorf("the poisoned data dir took %s to serve, over %s", took, limit)
	}
	if !contains(tools, "state_gate__create_run") {
		t.Fatalf("tools/list: %v", tools)
	}
	createRun(t, c, "state_gate__create_run") // the good process
	raw, err := callTool(context.Background(), c, "state_gate__create_run", map[string]any{"process_id": "lol"})
	if err != nil {
		t.Fatal(err)
	}
	var refused struct {
		Error struct{ Code, Message string }
	}
	if json.Unmarshal(raw, &refused) != nil || refused.Error.Code != stategate.CodeProcessNotFound ||
		!strings.Contains(refused.Error.Message, "aliases expand the document past") {
		t.Errorf("create_run of the ladder: %s", raw)
	}

	// What was refused is reported: the policy's status, the processes,
	// the hooks' logs.
	core, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer core.Close()
	if err := core.Run(context.Background(), time.Hour); err != nil {
		t.Fatal(err)
	}
	if st := core.Policy.Status(); st.Active || st.Error == nil || !strings.Contains(st.Error.Error(), "aliases expand") {
		t.Errorf("policy status %+v", st)
	}
	files, err := core.StateGate.Processes()
	if err != nil {
		t.Fatal(err)
	}
	refusedFiles := map[string]string{}
	for _, f := range files {
		if f.Err != nil {
			refusedFiles[f.File] = f.Err.Error()
		}
	}
	if !strings.Contains(refusedFiles["lol.yaml"], "aliases expand") || (fifos && !strings.Contains(refusedFiles["pipe.yaml"], "named pipe")) {
		t.Errorf("refused processes: %v", refusedFiles)
	}
	for hook, want := range map[string]string{"broken": "does not compile", "bomb": "opening brackets", "garbled": "cannot be loaded"} {
		if logs := core.Hooks.Logs(hook); len(logs) == 0 || !strings.Contains(logs[0].Message, want) {
			t.Errorf("hook %s: logs %+v", hook, logs)
		}
	}
	if sep := core.Settings.Separator(context.Background()); sep != "__" {
		t.Errorf("separator %q", sep)
	}
}
