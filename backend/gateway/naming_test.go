package gateway

import (
	"strings"
	"testing"

	"github.com/mcp-router/mcp-router/backend/spec"
)

func TestLegalName(t *testing.T) {
	long := strings.Repeat("x", 80)
	cases := []struct {
		in       string
		same     bool // kept unchanged
		contains string
	}{
		{"everything__echo", true, ""},
		{strings.Repeat("a", 64), true, ""},
		{"srv__get.weather", false, "srv__get_weather_"},
		{"srv__" + long, false, "srv__xxxx"},
		{"", false, "_"},
		{"日本語", false, "_"},
	}
	for _, tc := range cases {
		got := legalName(tc.in, false)
		if !validName.MatchString(got) {
			t.Errorf("legalName(%q) = %q is not a legal name", tc.in, got)
		}
		if tc.same != (got == tc.in) {
			t.Errorf("legalName(%q) = %q; unchanged=%v wanted %v", tc.in, got, got == tc.in, tc.same)
		}
		if !strings.Contains(got, tc.contains) {
			t.Errorf("legalName(%q) = %q lacks %q", tc.in, got, tc.contains)
		}
		if legalName(tc.in, false) != got {
			t.Errorf("legalName(%q) is not deterministic", tc.in)
		}
	}
	if legalName("a.b", false) == legalName("a:b", false) {
		t.Error("different names cleaned to the same legal name")
	}
	if a, b := legalName("p__"+long+"1", false), legalName("p__"+long+"2", false); a == b || len(a) != MaxNameLen {
		t.Errorf("long names: %q %q", a, b)
	}
}

// With a separator holding a dot the names are the seed's exactly
// (state_gate.get_state): dots are kept, nothing is hashed. Other illegal
// characters are still replaced.
func TestDotSeparatorKeepsDots(t *testing.T) {
	items := []upstreamName{{"state_gate", "get_state"}, {"state_gate", "emit_event"}, {"srv", "get.weather"}, {"srv", "a:b"}}
	modes := map[string]spec.PrefixMode{"state_gate": spec.PrefixAlways, "srv": spec.PrefixAlways}
	names, _ := assignNames("tool", items, modes, ".")
	for _, want := range []string{"state_gate.get_state", "state_gate.emit_event", "srv.get.weather"} {
		if _, ok := names[want]; !ok {
			t.Errorf("no tool named %q in %v", want, names)
		}
	}
	for name := range names {
		if !validDotted.MatchString(name) {
			t.Errorf("%q is not a legal dotted name", name)
		}
		if strings.Contains(name, ":") {
			t.Errorf("%q kept a colon", name)
		}
	}
	if got := PrefixedName("state_gate", "list_events", ".", spec.PrefixAlways); got != "state_gate.list_events" {
		t.Errorf("PrefixedName with '.' = %q", got)
	}
	// The default separator still refuses dots (model APIs reject them).
	if got := PrefixedName("srv", "get.weather", "__", spec.PrefixAlways); strings.Contains(got, ".") {
		t.Errorf("PrefixedName with '__' kept a dot: %q", got)
	}
}

func TestAssignNamesCollisions(t *testing.T) {
	items := []upstreamName{
		{"zeta", "echo"}, {"alpha", "echo"}, {"beta", "echo"}, {"alpha", "add"},
	}
	modes := map[string]spec.PrefixMode{"alpha": spec.PrefixNever, "beta": spec.PrefixNever, "zeta": spec.PrefixAlways}
	names, collisions := assignNames("tool", items, modes, "__")
	want := map[string]upstreamName{
		"echo":       {"alpha", "echo"}, // alpha sorts first and keeps the bare name
		"add":        {"alpha", "add"},
		"beta__echo": {"beta", "echo"}, // fell back to the prefixed form
		"zeta__echo": {"zeta", "echo"},
	}
	if len(names) != len(want) {
		t.Fatalf("names = %v", names)
	}
	for n, w := range want {
		if names[n] != w {
			t.Errorf("%s → %v, want %v", n, names[n], w)
		}
	}
	if len(collisions) != 1 || collisions[0].Winner != "alpha" || collisions[0].Loser != "beta" || collisions[0].Renamed != "beta__echo" {
		t.Errorf("collisions = %+v", collisions)
	}
	// The same input in another order gives the same names.
	again, _ := assignNames("tool", []upstreamName{items[3], items[2], items[1], items[0]}, modes, "__")
	for n, w := range want {
		if again[n] != w {
			t.Errorf("order-dependent: %s → %v", n, again[n])
		}
	}
}

func TestAssignNamesSameServerPrefixedTwice(t *testing.T) {
	// "a" + "__b__c" and "a__b" + "c" both prefix to "a__b__c".
	names, collisions := assignNames("tool", []upstreamName{{"a", "b__c"}, {"a__b", "c"}},
		map[string]spec.PrefixMode{}, "__")
	if len(names) != 2 || len(collisions) != 1 {
		t.Fatalf("names %v collisions %v", names, collisions)
	}
	for n := range names {
		if !validName.MatchString(n) {
			t.Errorf("illegal name %q", n)
		}
	}
}
