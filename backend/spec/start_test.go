package spec

import (
	"encoding/json"
	"strings"
	"testing"
)

// An auto start ("" or auto) resolves to lazy for a gated server and for
// one only search profiles have, else eager; eager and lazy are what they
// say whatever the gate and the profiles. Before, "" was eager and auto
// did not exist.
func TestResolvedStart(t *testing.T) {
	gated := Gate{Enabled: true}
	for _, c := range []struct {
		s    Server
		want StartMode
		why  string
	}{
		{Server{}, StartEager, "auto"},
		{Server{Start: StartAuto}, StartEager, "auto"},
		{Server{Gate: gated}, StartLazy, "gated"},
		{Server{Start: StartAuto, SearchOnly: true}, StartLazy, "only in search profiles"},
		{Server{Start: StartEager, Gate: gated, SearchOnly: true}, StartEager, ""},
		{Server{Start: StartLazy}, StartLazy, ""},
		{Server{Gate: Gate{Message: "set but off"}}, StartEager, "auto"},
	} {
		if got := c.s.ResolvedStart(); got != c.want || c.s.IsLazy() != (c.want == StartLazy) {
			t.Errorf("%+v: resolved %s, want %s", c.s, got, c.want)
		}
		if r := c.s.StartAutoReason(); (c.why == "") != (r == "") || !strings.Contains(r, c.why) {
			t.Errorf("%+v: reason %q, want one with %q", c.s, r, c.why)
		}
	}
	if err := (Server{Start: "sometimes"}).validateStart(); err == nil || !strings.Contains(err.Error(), "auto, eager or lazy") {
		t.Errorf("an unknown start: %v", err)
	}
	if err := (Server{Start: StartAuto}).validateStart(); err != nil {
		t.Errorf("auto refused: %v", err)
	}
}

// SearchOnly is the router's own reading of the profiles: a definition
// from outside (an import, the UI's JSON, an exported file edited by hand)
// cannot set it to make a server lazy, and it is never written out.
func TestSearchOnlyCannotComeFromADefinition(t *testing.T) {
	var s Server
	if err := json.Unmarshal([]byte(`{"name":"x","command":"srv","SearchOnly":true,"searchOnly":true,"-":true}`), &s); err != nil {
		t.Fatal(err)
	}
	if s.SearchOnly || s.IsLazy() {
		t.Fatalf("a definition set SearchOnly: %+v", s)
	}
	out, err := json.Marshal(Server{Name: "x", SearchOnly: true})
	if err != nil || strings.Contains(strings.ToLower(string(out)), "searchonly") {
		t.Fatalf("SearchOnly written out: %s %v", out, err)
	}
}
