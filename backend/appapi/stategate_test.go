package appapi

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/backend/stategate"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

const uiProcess = `id: review
version: 1.0.0
states:
  - name: draft
    initial: true
  - name: merged
    final: true
events:
  - name: merge
    roles: [maintainer]
transitions:
  - {from: draft, event: merge, to: merged}
`

// The Processes page's methods: enable the built-in server, check and save
// a definition (problems with line and column, nothing stored on a bad
// one), start a run and read it back; stategate:changed tells the page.
func TestProcessesPage(t *testing.T) {
	f := newFixture(t)
	st, err := f.api.GetStateGateStatus()
	if err != nil || st.Added || !strings.HasSuffix(st.Dir, "processes") {
		t.Fatalf("status before: %+v (%v)", st, err)
	}
	if st, err = f.api.EnableStateGate(); err != nil || !st.Added || !st.Enabled {
		t.Fatalf("enable: %+v (%v)", st, err)
	}
	f.waitState(t, stategate.ServerName, "running")

	problems, err := f.api.CheckProcess(strings.Replace(uiProcess, "to: merged", "to: gone", 1))
	if err != nil || len(problems) != 1 || problems[0].Line != 12 || problems[0].Column != 37 || !strings.Contains(problems[0].Message, `unknown state "gone"`) {
		t.Fatalf("problems %+v (%v)", problems, err)
	}
	if _, err := f.api.SaveProcess("id: [", false); err == nil {
		t.Fatal("a bad definition was saved")
	}
	if problems, _ := f.api.CheckProcess(uiProcess); len(problems) != 0 {
		t.Fatalf("problems of a good definition: %+v", problems)
	}
	v, err := f.api.SaveProcess(uiProcess, false)
	if err != nil || v.ID != "review" || len(v.States) != 2 || v.Transitions[0].To != "merged" || v.Events[0].Roles[0] != "maintainer" {
		t.Fatalf("saved %+v (%v)", v, err)
	}
	if _, err := f.api.SaveProcess(uiProcess, false); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("save twice without replace: %v", err)
	}
	list, err := f.api.ListProcesses()
	if err != nil || len(list) != 1 || list[0].Source != uiProcess {
		t.Fatalf("processes %+v (%v)", list, err)
	}

	run, err := f.api.CreateRun("review", `{"pr": 7}`, "")
	if err != nil || run.CurrentState != "draft" {
		t.Fatalf("run %+v (%v)", run, err)
	}
	if _, err := f.api.CreateRun("nope", "", ""); errorStatus(err) != 404 {
		t.Fatalf("a run of a missing process: %v (status %d)", err, errorStatus(err))
	}
	testpeers.Eventually(t, 5*time.Second, "stategate:changed", func() bool { return len(f.rec.of(EventStateGateChanged)) > 0 })
	d, err := f.api.GetRun(run.RunID)
	if err != nil || d.Run.RunID != run.RunID || len(d.Events.Events) != 1 || d.Events.Events[0].IsAllowed {
		// The UI is not a maintainer: the event is listed, blocked.
		t.Fatalf("run detail %s (%v)", mustJSON(t, d), err)
	}
	if _, err := f.api.GetRun("run-nope"); errorStatus(err) != 404 {
		t.Fatalf("a missing run: %v", err)
	}
	runs, err := f.api.ListRuns("")
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs %+v (%v)", runs, err)
	}
	// The JSON the page reads.
	var shape map[string]any
	_ = json.Unmarshal([]byte(mustJSON(t, d)), &shape)
	for _, k := range []string{"run", "state", "events", "summary", "history", "artifacts"} {
		if _, ok := shape[k]; !ok {
			t.Errorf("RunDetail JSON lacks %s", k)
		}
	}
	if err := f.api.RemoveProcess("review"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.c.StateGate.Summary(context.Background(), run.RunID); err != nil {
		t.Fatalf("the run after its process was removed: %v", err)
	}
}
