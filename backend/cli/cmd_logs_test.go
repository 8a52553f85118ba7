package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/mcp-router/mcp-router/internal/testpeers"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/backend/config"
	"github.com/mcp-router/mcp-router/backend/reqlog"
	"github.com/mcp-router/mcp-router/backend/store"
)

// openLogStore opens the data dir's database the way a second process (the
// running app) would.
func openLogStore(t *testing.T, dir string) *store.Store {
	t.Helper()
	st, err := store.Open(config.DBPath(dir))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func insertLogs(t *testing.T, st *store.Store, entries []store.RequestLog) []store.RequestLog {
	t.Helper()
	if err := st.Logs().Insert(context.Background(), entries); err != nil {
		t.Fatal(err)
	}
	return entries
}

// jsonLines parses JSONL output into maps (to see every key) and entries.
func jsonLines(t *testing.T, out string) ([]map[string]any, []store.RequestLog) {
	t.Helper()
	var raw []map[string]any
	var rows []store.RequestLog
	for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		var e store.RequestLog
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("not a JSON line: %q: %v", line, err)
		}
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatal(err)
		}
		raw = append(raw, m)
		rows = append(rows, e)
	}
	return raw, rows
}

func targets(rows []store.RequestLog) string {
	var s []string
	for _, r := range rows {
		s = append(s, r.Target)
	}
	return strings.Join(s, ",")
}

// sixty entries a minute apart ending a minute ago: every 3rd on server
// "remote", every 10th an error, every 7th a resources/read.
func seedLogs(t *testing.T, dir string) []store.RequestLog {
	st := openLogStore(t, dir)
	now := time.Now()
	var batch []store.RequestLog
	for i := 0; i < 60; i++ {
		e := store.RequestLog{Time: now.Add(time.Duration(i-60) * time.Minute), Client: "claude-code", Server: "fs",
			Method: "tools/call", Target: fmt.Sprintf("t%02d", i), DurationMs: float64(i) + 0.25, Status: store.StatusOK,
			Request: fmt.Sprintf(`{"i":%d}`, i), Response: `{"content":[]}`}
		if i%3 == 0 {
			e.Server = "remote"
		}
		if i%7 == 0 {
			e.Method = "resources/read"
		}
		if i%10 == 0 {
			e.Status, e.Error, e.Response = store.StatusError, "remote: timeout\nafter 30s", ""
		}
		if i == 59 {
			e.BackendTool = "read_file"  // t59 is an ability of fs's read_file
			e.Instance = "#2 (pid 4242)" // served by a per-client instance
		}
		batch = append(batch, e)
	}
	return insertLogs(t, st, batch)
}

func TestLogsTable(t *testing.T) {
	dir := t.TempDir()
	seeded := seedLogs(t, dir)

	out := mustRun(t, dir, "logs")
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) != 51 {
		t.Fatalf("default logs printed %d lines, want a header and 50:\n%s", len(lines), out)
	}
	header := strings.Fields(lines[0])
	if strings.Join(header, " ") != "TIME CLIENT SERVER METHOD TARGET DURATION STATUS ERROR" {
		t.Errorf("header %q", lines[0])
	}
	// Oldest first: the most recent 50 are t10..t59.
	first, last := lines[1], lines[50]
	e10 := seeded[10]
	for _, want := range []string{e10.Time.Local().Format("15:04:05.000"), "claude-code", "fs", "tools/call", "t10",
		"10.2ms", "error", "remote: timeout after 30s"} {
		if !strings.Contains(first, want) {
			t.Errorf("first row lacks %q: %q", want, first)
		}
	}
	if !strings.Contains(last, "t59") || !strings.Contains(last, "59.2ms") || !strings.HasSuffix(last, "ok") {
		t.Errorf("last row: %q", last)
	}
	// Columns line up: TARGET starts at the same offset in every line.
	col := strings.Index(lines[0], "TARGET")
	for _, l := range lines[1:] {
		if !strings.HasPrefix(l[col:], "t") {
			t.Fatalf("TARGET column misaligned in %q (header at %d)", l, col)
		}
	}

	if out := mustRun(t, dir, "logs", "--limit", "3"); strings.Count(out, "\n") != 4 || !strings.Contains(out, "t57") {
		t.Errorf("--limit 3:\n%s", out)
	}
	if out := mustRun(t, dir, "logs", "--server", "nowhere"); strings.TrimSpace(out) != "No matching request logs." {
		t.Errorf("no match: %q", out)
	}
	if out := mustRun(t, dir, "logs", "--limit", "0"); strings.TrimSpace(out) != "No matching request logs." {
		t.Errorf("--limit 0: %q", out)
	}
}

func TestLogsJSONAndFilters(t *testing.T) {
	dir := t.TempDir()
	seeded := seedLogs(t, dir)

	raw, rows := jsonLines(t, mustRun(t, dir, "logs", "--json", "--limit", "3"))
	if targets(rows) != "t57,t58,t59" {
		t.Fatalf("--json --limit 3: %s", targets(rows))
	}
	// Every field is always there, empty or not.
	for _, k := range []string{"id", "time", "client", "server", "method", "target", "durationMs", "status", "error", "request", "response", "backendTool", "instance"} {
		if _, ok := raw[0][k]; !ok {
			t.Errorf("JSON line lacks %q: %v", k, raw[0])
		}
	}
	if len(raw[0]) != 13 {
		t.Errorf("JSON line has %d keys, want 13: %v", len(raw[0]), raw[0])
	}
	if raw[0]["instance"] != "" || raw[2]["instance"] != "#2 (pid 4242)" {
		t.Errorf("instance: %v, %v", raw[0]["instance"], raw[2]["instance"])
	}
	if raw[0]["backendTool"] != "" || raw[2]["backendTool"] != "read_file" {
		t.Errorf("backendTool: %v, %v", raw[0]["backendTool"], raw[2]["backendTool"])
	}
	want := seeded[59]
	got := rows[2]
	if got.ID != want.ID || !got.Time.Equal(want.Time) || got.Request != `{"i":59}` || got.Response != `{"content":[]}` ||
		got.DurationMs != 59.25 || got.Client != "claude-code" || got.Status != store.StatusOK {
		t.Errorf("JSON entry %+v, stored %+v", got, want)
	}
	if ts := raw[2]["time"].(string); !strings.HasSuffix(ts, "Z") {
		t.Errorf("time %q is not RFC 3339 UTC", ts)
	}

	count := func(args ...string) []store.RequestLog {
		t.Helper()
		_, rows := jsonLines(t, mustRun(t, dir, append([]string{"logs", "--json", "--limit", "1000"}, args...)...))
		for i := 1; i < len(rows); i++ {
			if rows[i].ID <= rows[i-1].ID {
				t.Fatalf("%v: not oldest first", args)
			}
		}
		return rows
	}
	if n := len(count("--server", "remote")); n != 20 {
		t.Errorf("--server remote: %d entries, want 20", n)
	}
	if n := len(count("--method", "resources/read")); n != 9 {
		t.Errorf("--method resources/read: %d entries, want 9", n)
	}
	if rows := count("--status", "error"); len(rows) != 6 || rows[0].Error != "remote: timeout\nafter 30s" {
		t.Errorf("--status error: %d entries %+v", len(rows), rows)
	}
	if n := len(count("--status", "blocked")); n != 0 {
		t.Errorf("--status blocked: %d entries", n)
	}
	// Entries are 1..60 minutes old.
	if rows := count("--since", "10m30s"); targets(rows) != "t50,t51,t52,t53,t54,t55,t56,t57,t58,t59" {
		t.Errorf("--since 10m30s: %s", targets(rows))
	}
	if n := len(count("--since", "1d")); n != 60 {
		t.Errorf("--since 1d: %d entries", n)
	}
	if rows := count("--server", "remote", "--status", "error", "--method", "resources/read"); targets(rows) != "t00" {
		t.Errorf("combined filters: %s", targets(rows))
	}
	if rows := count("--server", "remote", "--limit", "2"); targets(rows) != "t54,t57" {
		t.Errorf("--server remote --limit 2: %s", targets(rows))
	}
}

func TestLogsBadInput(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--status", "failed"}, `bad --status "failed": want ok, error or blocked`},
		{[]string{"--since", "yesterday"}, `bad --since "yesterday"`},
		{[]string{"--since", "-5m"}, `bad --since "-5m"`},
		{[]string{"--since", "0s"}, `bad --since "0s"`},
		{[]string{"--since", "xd"}, `bad --since "xd"`},
		{[]string{"--limit", "-1"}, "bad --limit -1: want 0 or more"},
		{[]string{"--limit", "many"}, "invalid argument"},
		{[]string{"extra"}, "unknown command"},
	} {
		r := run(t, dir, "", append([]string{"logs"}, tc.args...)...)
		if r.code != ExitUsage {
			t.Errorf("%v: exit %d, want %d (stderr %q)", tc.args, r.code, ExitUsage, r.stderr)
		}
		lines := strings.Split(strings.TrimRight(r.stderr, "\n"), "\n")
		if len(lines) != 1 || !strings.HasPrefix(lines[0], "mcp-router: ") || !strings.Contains(lines[0], tc.want) {
			t.Errorf("%v: stderr %q, want one line with %q", tc.args, r.stderr, tc.want)
		}
		if r.stdout != "" {
			t.Errorf("%v: printed %q", tc.args, r.stdout)
		}
	}
}

// follow runs `logs --follow` in the background until stop is called.
func follow(t *testing.T, dir string, args ...string) (out *testpeers.SyncBuffer, stop func() result) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out = &testpeers.SyncBuffer{}
	errb := &testpeers.SyncBuffer{}
	code := make(chan int, 1)
	go func() {
		code <- Main(ctx, append([]string{"--data-dir", dir, "logs", "--follow"}, args...),
			Options{Stdin: strings.NewReader(""), Stdout: out, Stderr: errb})
	}()
	var once sync.Once
	var res result
	stop = func() result {
		once.Do(func() {
			cancel()
			select {
			case c := <-code:
				res = result{c, out.String(), errb.String()}
			case <-time.After(10 * time.Second):
				t.Fatal("logs --follow did not stop when its context was cancelled")
			}
		})
		return res
	}
	t.Cleanup(func() { stop() })
	return out, stop
}

// waitLines waits until out has n lines; the deadline only turns a hang
// into a failure.
func waitLines(t *testing.T, out *testpeers.SyncBuffer, n int) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for strings.Count(out.String(), "\n") < n {
		if time.Now().After(deadline) {
			t.Fatalf("waited for %d lines, have:\n%s", n, out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestLogsFollowPicksUpAnotherProcessesWrites(t *testing.T) {
	dir := t.TempDir()
	seedLogs(t, dir)

	out, stop := follow(t, dir, "--json", "--limit", "3")
	waitLines(t, out, 3)

	// The "app": a second handle on the same file, writing directly and
	// through the request log writer.
	app := openLogStore(t, dir)
	insertLogs(t, app, []store.RequestLog{{Server: "fs", Method: "tools/call", Target: "new1", Status: store.StatusOK},
		{Server: "fs", Method: "tools/call", Target: "new2", Status: store.StatusBlocked, Error: "blocked by hook"}})
	waitLines(t, out, 5)

	// More than one follow page at once, through the async writer.
	w := reqlog.New(app.Logs(), reqlog.Options{})
	for i := 0; i < 1200; i++ {
		w.Log(store.RequestLog{Server: "fs", Method: "tools/list", Target: fmt.Sprintf("burst%d", i), Status: store.StatusOK})
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	waitLines(t, out, 1205)
	insertLogs(t, app, []store.RequestLog{{Server: "fs", Method: "tools/call", Target: "last", Status: store.StatusOK}})
	waitLines(t, out, 1206)

	res := stop()
	if res.code != ExitOK || res.stderr != "" {
		t.Fatalf("follow ended with exit %d, stderr %q", res.code, res.stderr)
	}
	_, rows := jsonLines(t, res.stdout)
	if len(rows) != 1206 {
		t.Fatalf("printed %d entries, want 1206", len(rows))
	}
	seen := map[uint]bool{}
	for i, r := range rows {
		if seen[r.ID] {
			t.Fatalf("entry %d (%s) printed twice", r.ID, r.Target)
		}
		seen[r.ID] = true
		if i > 0 && r.ID <= rows[i-1].ID {
			t.Fatalf("out of order at %d: %d after %d", i, r.ID, rows[i-1].ID)
		}
	}
	if got := targets(rows[:5]); got != "t57,t58,t59,new1,new2" {
		t.Errorf("first entries: %s", got)
	}
	if rows[4].Status != store.StatusBlocked || rows[1204].Target != "burst1199" || rows[1205].Target != "last" {
		t.Errorf("followed entries: %+v … %+v", rows[4], rows[1205])
	}
}

// With a filter, follow prints only matching new entries, and skipping the
// others doesn't make it print anything twice.
func TestLogsFollowFiltersAndTable(t *testing.T) {
	dir := t.TempDir()
	app := openLogStore(t, dir) // an empty database: nothing to show first

	out, stop := follow(t, dir, "--status", "error")
	waitLines(t, out, 1) // the header
	if !strings.HasPrefix(out.String(), "TIME") {
		t.Fatalf("follow began with %q", out.String())
	}
	for round := 0; round < 3; round++ {
		var batch []store.RequestLog
		for i := 0; i < 5; i++ {
			st, msg := store.StatusOK, ""
			if i == 2 {
				st, msg = store.StatusError, fmt.Sprintf("boom %d", round)
			}
			batch = append(batch, store.RequestLog{Client: "cursor", Server: "remote", Method: "tools/call",
				Target: fmt.Sprintf("r%d-%d", round, i), DurationMs: 3, Status: st, Error: msg})
		}
		insertLogs(t, app, batch)
		waitLines(t, out, 2+round)
	}
	res := stop()
	if res.code != ExitOK {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	lines := strings.Split(strings.TrimRight(res.stdout, "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("printed %d lines, want a header and 3 errors:\n%s", len(lines), res.stdout)
	}
	for round, l := range lines[1:] {
		if !strings.Contains(l, fmt.Sprintf("r%d-2", round)) || !strings.HasSuffix(l, fmt.Sprintf("error    boom %d", round)) ||
			!strings.Contains(l, "3.0ms") {
			t.Errorf("row %d: %q", round, l)
		}
	}
}
