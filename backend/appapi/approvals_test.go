package appapi

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

type trayLike struct{}

func (trayLike) Emit(string, any) {}
func (trayLike) Observer()        {}

// Approvals over the UI API: an observer (the tray) is no UI, so nobody
// can be asked; a browser's event stream is, and hears approvals:changed;
// PendingApprovals lists the call, DecideApproval answers it (bad
// decisions and unknown ids are errors that leave it pending).
func TestApprovalsOverTheUIAPI(t *testing.T) {
	h := newHTTPFixture(t, nil)
	src := "policies:\n  - name: ask\n    match: {tools: [\"echo\"]}\n    require: {human_approval: true, approval_timeout_seconds: 60}\n"
	arg, _ := json.Marshal([]string{src})
	if r := h.call(t, "SavePolicy", h.token, string(arg)); r.code != 200 {
		t.Fatalf("SavePolicy: %d %s", r.code, r.body)
	}
	detachTray := Attach(h.api, trayLike{})
	defer detachTray()
	echo := `["everything__echo", "{\"message\":\"hi\"}"]`
	if r := h.call(t, "CallTool", h.token, echo); !strings.Contains(r.body, "nobody can be asked") {
		t.Fatalf("only the tray attached: %d %s", r.code, r.body)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, h.base+PathEvents+"?token="+h.token, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	lists := make(chan []PendingApproval, 100)
	connected := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(resp.Body)
		var name string
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == ": connected":
				close(connected) // sent after the stream attached
			case strings.HasPrefix(line, "event: "):
				name = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: ") && name == EventApprovalsChanged:
				var l []PendingApproval
				if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &l); err != nil {
					t.Errorf("approvals:changed data %s: %v", line, err)
				}
				lists <- l
			}
		}
		close(lists)
	}()
	select {
	case <-connected:
	case <-ctx.Done():
		t.Fatal("the event stream never attached")
	}
	if !h.api.core.Approvals.UIAttached() {
		t.Fatal("an event stream is attached but the broker sees no UI")
	}
	done := make(chan reply, 1)
	go func() { done <- h.call(t, "CallTool", h.token, echo) }()
	var l []PendingApproval
	for len(l) != 1 {
		select {
		case l = <-lists:
		case <-ctx.Done():
			t.Fatal("no approvals:changed with the call")
		}
	}
	if l[0].Target != "everything__echo" || l[0].Server != "everything" || string(l[0].Arguments) != `{"message":"hi"}` || l[0].Rule != "ask" {
		t.Errorf("pending %+v", l[0])
	}
	var listed []PendingApproval
	if r := h.call(t, "PendingApprovals", h.token, "[]"); r.code != 200 || json.Unmarshal([]byte(r.body), &listed) != nil || len(listed) != 1 || listed[0].ID != l[0].ID {
		t.Errorf("PendingApprovals: %d %s", r.code, r.body)
	}
	if r := h.call(t, "DecideApproval", h.token, `["`+l[0].ID+`", "yes"]`); r.code == 200 || !strings.Contains(r.body, `the decision is \"approve\", \"deny\" or \"always\", not \"yes\"`) {
		t.Errorf("bad decision: %d %s", r.code, r.body)
	}
	if r := h.call(t, "DecideApproval", h.token, `["nope", "approve"]`); r.code == 200 || !strings.Contains(r.body, "no pending approval") {
		t.Errorf("unknown id: %d %s", r.code, r.body)
	}
	if r := h.call(t, "DecideApproval", h.token, `["`+l[0].ID+`", "approve"]`); r.code != 200 {
		t.Fatalf("DecideApproval: %d %s", r.code, r.body)
	}
	if r := <-done; r.code != 200 || !strings.Contains(r.body, "hi") || strings.Contains(r.body, "denied") {
		t.Errorf("the approved call: %d %s", r.code, r.body)
	}
	for len(l) != 0 {
		select {
		case l = <-lists:
		case <-ctx.Done():
			t.Fatal("no approvals:changed with the empty list")
		}
	}
}
