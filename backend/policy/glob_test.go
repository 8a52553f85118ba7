package policy

import "testing"

func TestGlobs(t *testing.T) {
	for _, tc := range []struct {
		pat, s string
		want   bool
	}{
		{"*", "", true},
		{"*", "everything__echo", true},
		{"delete_*", "delete_file", true},
		{"delete_*", "undelete_file", false},
		{"*_file", "delete_file", true},
		{"*_file", "delete_files", false},
		{"echo", "echo", true},
		{"echo", "Echo", false},
		{"e?ho", "echo", true},
		{"e?ho", "eho", false},
		{"*__echo", "everything__echo", true},
		{"every*__*", "everything__echo", true},
		{"every*__*", "everything_echo", false},
		{"a*b*c", "aXbYbZc", true},
		{"a*b*c", "aXbYbZ", false},
		{"[ab]x", "bx", true},
		{"[!ab]x", "bx", false},
		{"[a-c]*", "cat", true},
		{"[a-c]*", "dog", false},
		{`\*`, "*", true},
		{`\*`, "x", false},
		{"user/*", "user/42/admin", true}, // * crosses slashes
		{"日本*", "日本語", true},
		{"?語", "本語", true},
	} {
		g, err := compileGlob(tc.pat)
		if err != nil {
			t.Fatalf("%q: %v", tc.pat, err)
		}
		if got := g.Match(tc.s); got != tc.want {
			t.Errorf("%q matches %q = %v, want %v", tc.pat, tc.s, got, tc.want)
		}
	}
}

func TestBadGlobs(t *testing.T) {
	for _, p := range []string{"", "[abc", "a]", `trailing\`, "[]", "[a-]", "[-a]"} {
		if _, err := compileGlob(p); err == nil {
			t.Errorf("%q compiled", p)
		}
	}
}

func FuzzGlob(f *testing.F) {
	f.Add("a*b?[c-d]", "axbycz")
	f.Fuzz(func(t *testing.T, p, s string) {
		g, err := compileGlob(p)
		if err != nil {
			return
		}
		g.Match(s) // must not panic or loop
	})
}
