package chat

import (
	"strings"
	"testing"
)

func TestNamesMapRefusedNamesReversibly(t *testing.T) {
	long := "server__" + strings.Repeat("x", 70)
	names := []string{"a__echo", "fs.read_file", "fs.read-file", "fs_read_file_e0f4bb1d", long, "日本__天気"}
	n := NewNames(names)
	seen := map[string]bool{}
	for _, name := range names {
		w := n.Wire(name)
		if !wireNameRe.MatchString(w) {
			t.Errorf("%q → %q: not a name the providers take", name, w)
		}
		if seen[w] {
			t.Errorf("%q → %q: taken twice", name, w)
		}
		seen[w] = true
		if back, ok := n.Router(w); !ok || back != name {
			t.Errorf("%q → %q → %q", name, w, back)
		}
	}
	if n.Wire("a__echo") != "a__echo" {
		t.Errorf("a name the providers take is changed: %q", n.Wire("a__echo"))
	}
	if NewNames(names).Wire(long) != n.Wire(long) {
		t.Error("the mapping is not deterministic")
	}
	if _, ok := n.Router("never_offered"); ok {
		t.Error("a name never offered maps back")
	}
	var none *Names
	if none.Wire("x") != "x" {
		t.Error("nil Names")
	}
	if _, ok := none.Router("x"); ok {
		t.Error("nil Names maps back")
	}
}

func FuzzNames(f *testing.F) {
	for _, s := range []string{"a__b", "a.b", "", strings.Repeat("é", 80), "x y"} {
		f.Add(s, "other")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		if a == "" || b == "" || a == b {
			return
		}
		n := NewNames([]string{a, b})
		for _, name := range []string{a, b} {
			w := n.Wire(name)
			if !wireNameRe.MatchString(w) {
				t.Fatalf("%q → %q", name, w)
			}
			if back, ok := n.Router(w); !ok || back != name {
				t.Fatalf("%q → %q → %q", name, w, back)
			}
		}
		if n.Wire(a) == n.Wire(b) {
			t.Fatalf("%q and %q share %q", a, b, n.Wire(a))
		}
	})
}
