package appapi

import (
	"context"
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

// The audit trail over the UI API: a call the UI makes under an audit rule
// is listed, newest first, and the chain verifies.
func TestAuditOverTheUIAPI(t *testing.T) {
	h := newHTTPFixture(t, nil)
	arg, _ := json.Marshal([]string{"policies:\n  - name: audit-all\n    require: {log_level: audit}\n"})
	if r := h.call(t, "SavePolicy", h.token, string(arg)); r.code != 200 {
		t.Fatalf("SavePolicy: %d %s", r.code, r.body)
	}
	h.c.WaitStarted(context.Background())
	h.c.Gateway.Rebuild()
	for _, msg := range []string{"one", "two", "three"} {
		r := h.call(t, "CallTool", h.token, `["everything__echo", "{\"message\":\"`+msg+`\"}"]`)
		if r.code != 200 || strings.Contains(r.body, `"error"`) {
			t.Fatalf("CallTool: %d %s", r.code, r.body)
		}
	}
	r := h.call(t, "AuditRows", h.token, "[0, 2]")
	var page AuditPage
	if r.code != 200 || json.Unmarshal([]byte(r.body), &page) != nil {
		t.Fatalf("AuditRows: %d %s", r.code, r.body)
	}
	if len(page.Rows) != 2 || page.Rows[0].ID != 3 || page.Rows[0].Client != "ui" || page.Rows[0].Arguments != `{"message":"three"}` || page.Before != 2 {
		t.Errorf("first page %+v", page)
	}
	r = h.call(t, "AuditRows", h.token, "[2, 2]")
	if json.Unmarshal([]byte(r.body), &page) != nil || len(page.Rows) != 1 || page.Rows[0].ID != 1 || page.Before != 0 {
		t.Errorf("second page %s", r.body)
	}
	r = h.call(t, "VerifyAudit", h.token, "[]")
	if r.code != 200 || !strings.Contains(r.body, `"rows":3`) || !strings.Contains(r.body, `"problems":[]`) {
		t.Errorf("VerifyAudit: %d %s", r.code, r.body)
	}
}
