package appapi

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// TestCallToolGoesThroughTheGatewayHooksAndLog: a UI call is a real client
// call: hooks see it (and can block it), the request log records it with
// client "ui", the page gets logs:appended and hooks:log events.
func TestCallToolGoesThroughTheGatewayHooksAndLog(t *testing.T) {
	f := newFixture(t, everything(t, "everything"))
	f.waitState(t, "everything", "running")
	testpeers.Eventually(t, 10*time.Second, "the echo tool", func() bool {
		tools, _ := f.api.ListTools()
		return slices.ContainsFunc(tools, func(x AggregatedTool) bool { return x.Name == "everything__echo" })
	})

	res, err := f.api.CallTool("everything__echo", `{"message": "hello from the UI"}`)
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || res.Error != "" || len(res.Content) != 1 || !strings.Contains(mustJSON(t, res.Content[0]), "hello from the UI") {
		t.Errorf("echo result = %s", mustJSON(t, res))
	}

	// A hook that logs and blocks one word; saved through the API.
	h, err := f.api.SaveHook(HookInput{Name: "no-secrets", Enabled: true, HookType: "pre", Script: `
console.log('client ' + context.client.tokenName + ' calls ' + context.toolName);
if (/secret/.test(context.arguments?.message ?? '')) {
  return { continue: false, error: { message: 'no secrets' } };
}`})
	if err != nil {
		t.Fatal(err)
	}
	blocked, err := f.api.CallTool("everything__echo", `{"message": "a secret"}`)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(blocked.Error+mustJSON(t, blocked.Content), "no secrets") {
		t.Errorf("blocked call = %s", mustJSON(t, blocked))
	}

	// Protocol errors come back in the result; bad input is an error.
	unknown, err := f.api.CallTool("no_such_tool", "")
	if err != nil || unknown.Error == "" {
		t.Errorf("unknown tool = %+v, %v", unknown, err)
	}
	for _, tc := range []struct{ name, args, want string }{
		{"", "{}", "name is empty"},
		{"everything__echo", "[1, 2]", "JSON object"},
		{"everything__echo", "{oops", "JSON object"},
	} {
		_, err := f.api.CallTool(tc.name, tc.args)
		wantErr(t, "CallTool("+tc.name+", "+tc.args+")", err, tc.want)
	}

	// The request log has the UI's calls under client "ui".
	if err := f.c.Requests.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	page, err := f.api.QueryLogs(LogQuery{Client: UIClient, Method: "tools/call"})
	if err != nil {
		t.Fatal(err)
	}
	statuses := map[string]int{}
	for _, r := range page.Rows {
		statuses[r.Status]++
		if r.Client != "ui" {
			t.Errorf("row client %q", r.Client)
		}
	}
	if statuses["ok"] < 1 || statuses["blocked"] != 1 {
		t.Errorf("ui rows by status = %v (%s)", statuses, mustJSON(t, page.Rows))
	}
	detail, err := f.api.GetLog(page.Rows[len(page.Rows)-1].ID)
	if err != nil || !strings.Contains(detail.Request, "hello from the UI") {
		t.Errorf("GetLog = %+v, %v", detail, err)
	}
	testpeers.Eventually(t, 5*time.Second, "logs:appended", func() bool {
		for _, d := range f.rec.of(EventLogsAppended) {
			for _, r := range d.([]LogRow) {
				if r.Client == "ui" && r.Status == "blocked" {
					return true
				}
			}
		}
		return false
	})

	// The hook's console output: in HookLogs and as hooks:log events.
	testpeers.Eventually(t, 5*time.Second, "hooks:log", func() bool {
		for _, d := range f.rec.of(EventHookLog) {
			hl := d.(HookLogLines)
			if hl.HookID == h.ID && slices.ContainsFunc(hl.Lines, func(l string) bool { return strings.Contains(l, "client ui calls echo") }) {
				return true
			}
		}
		return false
	})
	logs, err := f.api.HookLogs(h.ID)
	if err != nil || !slices.ContainsFunc(logs, func(l string) bool { return strings.Contains(l, "client ui calls echo") }) {
		t.Errorf("HookLogs = %v, %v", logs, err)
	}
}

func TestHookMethods(t *testing.T) {
	f := newFixture(t)
	a, err := f.api.SaveHook(HookInput{Name: "a", Enabled: true, HookType: "pre", Script: "return;"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := f.api.SaveHook(HookInput{Name: "b", Enabled: false, HookType: "post", Script: "context.response = {x: 1};"})
	if err != nil {
		t.Fatal(err)
	}
	if a.ExecutionOrder != 1 || b.ExecutionOrder != 2 || a.ID == 0 || a.UpdatedAt.IsZero() {
		t.Errorf("created a=%+v b=%+v", a, b)
	}

	// Rename and edit by id; the order is kept.
	b2, err := f.api.SaveHook(HookInput{ID: b.ID, Name: "b-renamed", Enabled: true, HookType: "both", Script: "return null;"})
	if err != nil {
		t.Fatal(err)
	}
	if b2.ID != b.ID || b2.Name != "b-renamed" || b2.ExecutionOrder != 2 || b2.HookType != "both" {
		t.Errorf("renamed = %+v", b2)
	}
	if err := f.api.ReorderHooks([]uint{b.ID, a.ID}); err != nil {
		t.Fatal(err)
	}
	list, err := f.api.ListHooks()
	if err != nil || len(list) != 2 || list[0].Name != "b-renamed" || list[0].ExecutionOrder != 1 || list[1].ExecutionOrder != 2 {
		t.Errorf("after reorder: %+v, %v", list, err)
	}
	if err := f.api.SetHookEnabled(a.ID, false); err != nil {
		t.Fatal(err)
	}

	bad := []struct {
		name string
		call func() error
		want string
	}{
		{"syntax error", func() error {
			_, err := f.api.SaveHook(HookInput{Name: "c", HookType: "pre", Script: "if ("})
			return err
		}, "syntax error"},
		{"bad type", func() error {
			_, err := f.api.SaveHook(HookInput{Name: "c", HookType: "around", Script: ""})
			return err
		}, "want pre, post or both"},
		{"bad name", func() error { _, err := f.api.SaveHook(HookInput{Name: "", HookType: "pre"}); return err }, "hook name"},
		{"duplicate name", func() error { _, err := f.api.SaveHook(HookInput{Name: "a", HookType: "pre"}); return err }, "already exists"},
		{"rename onto another", func() error {
			_, err := f.api.SaveHook(HookInput{ID: a.ID, Name: "b-renamed", HookType: "pre"})
			return err
		}, "already exists"},
		{"unknown id", func() error { _, err := f.api.SaveHook(HookInput{ID: 999, Name: "z", HookType: "pre"}); return err }, "not found"},
		{"reorder missing one", func() error { return f.api.ReorderHooks([]uint{a.ID}) }, "list every hook once"},
		{"reorder twice", func() error { return f.api.ReorderHooks([]uint{a.ID, a.ID}) }, "listed twice"},
		{"reorder unknown", func() error { return f.api.ReorderHooks([]uint{a.ID, 999}) }, "no hook has id 999"},
		{"remove unknown", func() error { return f.api.RemoveHook(999) }, "not found"},
		{"enable unknown", func() error { return f.api.SetHookEnabled(999, true) }, "not found"},
		{"logs unknown", func() error { _, err := f.api.HookLogs(999); return err }, "not found"},
	}
	for _, tc := range bad {
		wantErr(t, tc.name, tc.call(), tc.want)
	}
	// Nothing the refused calls did changed the hooks.
	after, _ := f.api.ListHooks()
	if len(after) != 2 || after[0].Name != "b-renamed" || after[1].Name != "a" || after[1].Enabled {
		t.Errorf("hooks after refused calls: %+v", after)
	}

	probs, err := f.api.CheckHookScript("let x = 1;\nlet y = ;")
	if err != nil || len(probs) != 1 || probs[0].Line != 2 || probs[0].Column == 0 {
		t.Errorf("CheckHookScript = %+v, %v", probs, err)
	}
	if probs, _ := f.api.CheckHookScript("return { continue: true };"); probs == nil || len(probs) != 0 {
		t.Errorf("a good script has problems: %+v", probs)
	}

	// TestHook runs the editor's unsaved script.
	res, err := f.api.TestHook(HookInput{Name: "draft", HookType: "pre", Script: `
console.warn('seen ' + context.toolName);
if (context.arguments.n > 1) return { continue: false, error: { message: 'too big' } };`},
		`{"requestType": "CallTool", "toolName": "add", "arguments": {"n": 2}}`)
	if err != nil {
		t.Fatal(err)
	}
	if res.Result.Continue || res.Result.Blocked == nil || !strings.Contains(res.Result.Blocked.Message, "too big") ||
		len(res.Console) != 1 || !strings.Contains(res.Console[0], "warn: seen add") {
		t.Errorf("TestHook = %s", mustJSON(t, res))
	}
	post, err := f.api.TestHook(HookInput{Name: "p", HookType: "post", Script: "context.response = {ok: true};"},
		`{"requestType": "CallTool", "response": {"ok": false}}`)
	if err != nil || !post.Result.Continue || mustJSON(t, post.Result.Context["response"]) != `{"ok":true}` {
		t.Errorf("post TestHook = %s, %v", mustJSON(t, post), err)
	}
	if thrown, _ := f.api.TestHook(HookInput{Name: "t", HookType: "pre", Script: "throw new Error('boom')"}, ""); !strings.Contains(thrown.Error, "boom") {
		t.Errorf("a throwing script: %s", mustJSON(t, thrown))
	}
	for _, tc := range []struct{ ctx, want string }{
		{"{not json", "JSON object"},
		{`{"phase": "middle"}`, "want \"pre\" or \"post\""},
		{`{"colour": 1}`, "unknown context key"},
	} {
		_, err := f.api.TestHook(HookInput{Name: "x", HookType: "pre", Script: "return;"}, tc.ctx)
		wantErr(t, "TestHook context "+tc.ctx, err, tc.want)
	}

	if err := f.api.RemoveHook(a.ID); err != nil {
		t.Fatal(err)
	}
	if list, _ := f.api.ListHooks(); len(list) != 1 {
		t.Errorf("after remove: %+v", list)
	}
	var raw []map[string]any
	_ = json.Unmarshal([]byte(mustJSON(t, list)), &raw)
	for _, k := range []string{"id", "name", "enabled", "executionOrder", "hookType", "script", "failClosed", "updatedAt"} {
		if _, ok := raw[0][k]; !ok {
			t.Errorf("HookView JSON lacks %q: %v", k, raw[0])
		}
	}
}
