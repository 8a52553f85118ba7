package appapi

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/mcp-router/mcp-router/backend/stategate"
	"github.com/mcp-router/mcp-router/internal/testbombs"
)

// Issue 24 on the Policy and Processes pages: the editor's check refuses
// the ladder at its line and column; written over a good policy.yaml, the
// ladder is shown as the file's error while the good policy stays in
// force.
func TestLadderOverTheUIAPI(t *testing.T) {
	h := newHTTPFixture(t, nil)
	arg, _ := json.Marshal([]string{testbombs.Policy()})
	r := h.call(t, "CheckPolicy", h.token, string(arg))
	var problems []PolicyProblem
	if r.code != 200 || json.Unmarshal([]byte(r.body), &problems) != nil || len(problems) != 1 ||
		problems[0].Line != 13 || problems[0].Column != 18 || !strings.Contains(problems[0].Message, "aliases expand") {
		t.Errorf("CheckPolicy: %d %s", r.code, r.body)
	}
	arg, _ = json.Marshal([]string{testbombs.Process()})
	r = h.call(t, "CheckProcess", h.token, string(arg))
	var pproblems []stategate.Problem
	if r.code != 200 || json.Unmarshal([]byte(r.body), &pproblems) != nil || len(pproblems) != 1 || pproblems[0].Line != 15 {
		t.Errorf("CheckProcess: %d %s", r.code, r.body)
	}

	good, _ := json.Marshal([]string{"policies:\n  - name: no-everything\n    servers: {deny: [everything]}\n"})
	if r := h.call(t, "SavePolicy", h.token, string(good)); r.code != 200 {
		t.Fatalf("SavePolicy: %d %s", r.code, r.body)
	}
	if err := os.WriteFile(h.c.Policy.Path(), []byte(testbombs.Policy()), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := h.c.Policy.Poll(); err == nil {
		t.Fatal("the ladder loaded")
	}
	r = h.call(t, "GetPolicy", h.token, "[]")
	var v PolicyView
	if r.code != 200 || json.Unmarshal([]byte(r.body), &v) != nil {
		t.Fatalf("GetPolicy: %d %s", r.code, r.body)
	}
	if !v.Status.Active || v.Status.Rules != 1 || v.Status.Error == nil || v.Status.Error.Problems[0].Line != 13 ||
		!strings.Contains(v.Status.Error.Problems[0].Message, "aliases expand") || v.Source != testbombs.Policy() {
		t.Errorf("after the ladder: %+v", v.Status)
	}
	r = h.call(t, "CallTool", h.token, `["everything__echo", "{\"message\":\"x\"}"]`)
	if !strings.Contains(r.body, `denied by policy \"no-everything\"`) {
		t.Errorf("the good policy is not in force: %d %s", r.code, r.body)
	}
}
