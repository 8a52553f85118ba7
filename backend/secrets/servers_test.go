package secrets

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/zalando/go-keyring"

	"github.com/mcp-router/mcp-router/backend/spec"
)

// serverValuesIn returns the secret values of a fresh data dir, in the
// keychain (go-keyring's in-memory mock) or in the file.
func serverValuesIn(t *testing.T, backend string) *ServerValues {
	t.Helper()
	keyring.MockInit()
	t.Setenv(EnvStore, backend)
	return NewServerValues(t.TempDir(), nil)
}

func stdioWith(name string, env map[string]string, secret ...string) spec.Server {
	return spec.Server{Name: name, Command: "srv", Env: env, SecretEnv: secret, Enabled: true}
}

// saved runs Save with a write that keeps what it was given.
func saved(t *testing.T, v *ServerValues, cur *spec.Server, in spec.Server) spec.Server {
	t.Helper()
	var got spec.Server
	out, err := v.Save(cur, in, func(s spec.Server) error { got = s; return nil })
	if err != nil {
		t.Fatal(err)
	}
	if out.Name != got.Name {
		t.Fatalf("Save returned %q, wrote %q", out.Name, got.Name)
	}
	return out
}

func resolvedEnv(t *testing.T, v *ServerValues, def spec.Server, k string) string {
	t.Helper()
	r, err := v.Resolve(def)
	if err != nil {
		t.Fatal(err)
	}
	return r.Env[k]
}

// The life of one secret value: saved out of the definition, resolved
// back, kept by its placeholder, changed (the revision moves), moved by a
// rename, made plain, forgotten.
func TestServerValuesLifecycle(t *testing.T) {
	for _, backend := range []string{InKeychain, InFile} {
		t.Run(backend, func(t *testing.T) {
			v := serverValuesIn(t, backend)
			in := stdioWith("gh", map[string]string{"API_KEY": "s3cret", "DEBUG": "1"}, "API_KEY")
			st := saved(t, v, nil, in)
			if st.Env["API_KEY"] != "${secret:API_KEY}" || st.Env["DEBUG"] != "1" || st.SecretRevision != 0 {
				t.Fatalf("stored %+v", st)
			}
			if in.Env["API_KEY"] != "s3cret" {
				t.Fatal("Save changed the caller's map")
			}
			if err := st.Seal(); err != nil {
				t.Fatalf("the stored definition does not seal: %v", err)
			}
			if got := resolvedEnv(t, v, st, "API_KEY"); got != "s3cret" {
				t.Fatalf("resolved %q", got)
			}
			if st.Env["API_KEY"] != "${secret:API_KEY}" {
				t.Fatal("Resolve changed the definition's map")
			}
			if backend == InFile {
				b, err := os.ReadFile(v.File())
				if err != nil || !strings.Contains(string(b), "s3cret") {
					t.Fatalf("secrets file: %s %v", b, err)
				}
				if fi, _ := os.Stat(v.File()); fi.Mode().Perm() != 0o600 {
					t.Fatalf("secrets file mode %v", fi.Mode())
				}
			}

			// Saved again with the placeholder (the UI's form, an update of
			// something else): kept, the revision stays.
			again := saved(t, v, &st, st)
			if again.SecretRevision != 0 || resolvedEnv(t, v, again, "API_KEY") != "s3cret" {
				t.Fatalf("kept: %+v", again)
			}
			// A new value: stored, the revision moves (a running router
			// restarts the server).
			next := again
			next.Env = map[string]string{"API_KEY": "n3w", "DEBUG": "1"}
			changed := saved(t, v, &again, next)
			if changed.SecretRevision != 1 || resolvedEnv(t, v, changed, "API_KEY") != "n3w" {
				t.Fatalf("changed: %+v", changed)
			}
			// Renamed: the value moves with it; the old name's is gone.
			ren := changed
			ren.Name = "github"
			moved := saved(t, v, &changed, ren)
			if resolvedEnv(t, v, moved, "API_KEY") != "n3w" {
				t.Fatal("the value did not follow the rename")
			}
			if ok, _ := v.Has(spec.SecretRef{Server: "gh", Kind: spec.KindEnv, Name: "API_KEY"}); ok {
				t.Fatal("the old name's value outlived the rename")
			}
			// Made plain: the value comes back into the definition and
			// leaves the store.
			plain := moved
			plain.SecretEnv = nil
			back := saved(t, v, &moved, plain)
			if back.Env["API_KEY"] != "n3w" || len(back.SecretEnv) != 0 {
				t.Fatalf("made plain: %+v", back)
			}
			if ok, _ := v.Has(spec.SecretRef{Server: "github", Kind: spec.KindEnv, Name: "API_KEY"}); ok {
				t.Fatal("a value made plain stayed in the store")
			}
			// And secret again, by name only (`--secret-env API_KEY`): the
			// plain value is what the caller passes.
			sec := back
			sec.SecretEnv = []string{"API_KEY"}
			resec := saved(t, v, &back, sec)
			if resec.Env["API_KEY"] != "${secret:API_KEY}" || resolvedEnv(t, v, resec, "API_KEY") != "n3w" {
				t.Fatalf("secret again: %+v", resec)
			}
			if err := v.Forget(resec); err != nil {
				t.Fatal(err)
			}
			_, err := v.Resolve(resec)
			var miss *MissingError
			if !errors.As(err, &miss) || !errors.Is(err, ErrNotFound) {
				t.Fatalf("after Forget: %v", err)
			}
			want := "secret env API_KEY of server github is not in "
			if !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "mcp-router servers update github --secret-env API_KEY=…") {
				t.Fatalf("missing error %q", err)
			}
		})
	}
}

// A secret with no value, given or stored, is refused before anything is
// written; with AllowMissing it is saved and reported.
func TestServerValuesNoValue(t *testing.T) {
	v := serverValuesIn(t, InFile)
	in := spec.Server{Name: "remote", URL: "http://127.0.0.1:1/mcp", Headers: map[string]string{"Authorization": "${secret:Authorization}"},
		SecretHeaders: []string{"Authorization"}}
	wrote := false
	_, err := v.Save(nil, in, func(spec.Server) error { wrote = true; return nil })
	var nv *NoValueError
	if !errors.As(err, &nv) || !errors.Is(err, spec.ErrInvalid) || wrote {
		t.Fatalf("no value: %v (wrote %v)", err, wrote)
	}
	if !strings.Contains(err.Error(), "secret header Authorization of server remote") {
		t.Fatalf("message %q", err)
	}
	defs, miss, err := v.SaveAll([]Change{{In: in}}, SaveOptions{AllowMissing: true}, func([]spec.Server) error { return nil })
	if err != nil || len(defs) != 1 || len(miss) != 1 || miss[0] != (spec.SecretRef{Server: "remote", Kind: spec.KindHeader, Name: "Authorization"}) {
		t.Fatalf("allow missing: %v %v %v", defs, miss, err)
	}
	// A new server never inherits a value left under its name.
	if err := v.s.Set(account("fresh", spec.KindEnv, "TOKEN"), "stale"); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Save(nil, stdioWith("fresh", nil, "TOKEN"), func(spec.Server) error { return nil }); !errors.As(err, &nv) {
		t.Fatalf("a new server took a stale value: %v", err)
	}
}

// A failed database write puts the values back as they were.
func TestServerValuesUndoOnFailedWrite(t *testing.T) {
	v := serverValuesIn(t, InFile)
	st := saved(t, v, nil, stdioWith("a", map[string]string{"TOKEN": "old"}, "TOKEN"))
	next := st
	next.Env = map[string]string{"TOKEN": "new", "OTHER_KEY": "k"}
	next.SecretEnv = []string{"OTHER_KEY", "TOKEN"}
	boom := errors.New("database is locked")
	if _, err := v.Save(&st, next, func(spec.Server) error { return boom }); !errors.Is(err, boom) {
		t.Fatalf("write error: %v", err)
	}
	if got := resolvedEnv(t, v, st, "TOKEN"); got != "old" {
		t.Fatalf("after a failed write TOKEN = %q", got)
	}
	if ok, _ := v.Has(spec.SecretRef{Server: "a", Kind: spec.KindEnv, Name: "OTHER_KEY"}); ok {
		t.Fatal("a value of a failed write stayed")
	}
}

// A placeholder on an entry that is not secret and was not either is an
// error, not a value; so is a placeholder naming another entry.
func TestServerValuesStrayPlaceholder(t *testing.T) {
	v := serverValuesIn(t, InFile)
	for _, env := range []map[string]string{{"A": "${secret:A}"}, {"A": "${secret:B}"}} {
		if _, err := v.Save(nil, stdioWith("x", env), func(spec.Server) error { return nil }); !errors.Is(err, spec.ErrInvalid) {
			t.Errorf("%v: %v", env, err)
		}
	}
}
