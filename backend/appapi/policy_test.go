package appapi

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// The Policy page's calls over the UI's HTTP API: the file's state, the
// editor's check, a save that refuses a bad file and writes nothing, and
// a bad edit on disk shown with its line and column while the last good
// policy stays in force.
func TestPolicyOverTheUIAPI(t *testing.T) {
	h := newHTTPFixture(t, nil)
	get := func() PolicyView {
		t.Helper()
		r := h.call(t, "GetPolicy", h.token, "[]")
		var v PolicyView
		if r.code != 200 || json.Unmarshal([]byte(r.body), &v) != nil {
			t.Fatalf("GetPolicy: %d %s", r.code, r.body)
		}
		return v
	}
	if v := get(); v.Source != "" || v.Status.Active || v.Status.Exists || !strings.HasSuffix(v.Path, "policy.yaml") {
		t.Errorf("no file: %+v", v)
	}
	bad := "policies:\n  - name: a\n    servers: {deny: [\"[x\"]}\n"
	arg, _ := json.Marshal([]string{bad})
	r := h.call(t, "CheckPolicy", h.token, string(arg))
	var problems []PolicyProblem
	if r.code != 200 || json.Unmarshal([]byte(r.body), &problems) != nil || len(problems) != 1 || problems[0].Line != 3 || problems[0].Column != 22 {
		t.Errorf("CheckPolicy: %d %s", r.code, r.body)
	}
	r = h.call(t, "SavePolicy", h.token, string(arg))
	if msg := errorOf(t, r); r.code == 200 || !strings.Contains(msg, "3:22: bad pattern") {
		t.Errorf("SavePolicy(bad): %d %s", r.code, r.body)
	}
	if _, err := os.Stat(get().Path); !os.IsNotExist(err) {
		t.Errorf("a refused save wrote the file: %v", err)
	}
	good := "policies:\n  - name: no-everything\n    servers: {deny: [everything]}\n"
	arg, _ = json.Marshal([]string{good})
	if r := h.call(t, "CheckPolicy", h.token, string(arg)); r.code != 200 || strings.TrimSpace(r.body) != "[]" {
		t.Errorf("CheckPolicy(good): %d %s", r.code, r.body)
	}
	if r := h.call(t, "SavePolicy", h.token, string(arg)); r.code != 200 {
		t.Fatalf("SavePolicy: %d %s", r.code, r.body)
	}
	v := get()
	if v.Source != good || !v.Status.Active || v.Status.Rules != 1 || v.Status.Error != nil {
		t.Errorf("after save: %+v", v)
	}
	// The saved policy is in force: the UI's own tool calls are refused.
	r = h.call(t, "CallTool", h.token, `["everything__echo", "{\"message\":\"x\"}"]`)
	if !strings.Contains(r.body, `"error":"everything: denied by policy \"no-everything\"`) {
		t.Errorf("CallTool under the policy: %d %s", r.code, r.body)
	}
	// A bad edit on disk: shown, the old policy kept.
	if err := os.WriteFile(v.Path, []byte("policies:\n  - name: x\n    limit: {requests_per_minute: -1}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := h.c.Policy.Poll(); err == nil {
		t.Fatal("the bad file loaded")
	}
	v = get()
	if !v.Status.Active || v.Status.Rules != 1 || v.Status.Error == nil || v.Status.Error.Problems[0].Line != 3 || v.Status.ErrorAt.IsZero() {
		t.Errorf("after a bad edit: %+v", v.Status)
	}
}
