package secrets

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zalando/go-keyring"
)

// Two kinds of secret in one data dir (chat keys, upstream logins) never
// see each other's values, in the keychain or in their files.
func TestStoresKeepTheirOwnValues(t *testing.T) {
	for _, backend := range []string{InKeychain, InFile} {
		t.Run(backend, func(t *testing.T) {
			keyring.MockInit()
			t.Setenv(EnvStore, backend)
			dir := t.TempDir()
			keys := New(dir, "chat-keys.json", "chat-provider:", "API key")
			logins := New(dir, "upstream-logins.json", "upstream-login:", "login")
			if err := keys.Set("same", "key-value"); err != nil {
				t.Fatal(err)
			}
			if err := logins.Set("same", "login-value"); err != nil {
				t.Fatal(err)
			}
			if v, err := keys.Get("same"); err != nil || v != "key-value" {
				t.Fatalf("keys: %q %v", v, err)
			}
			if v, err := logins.Get("same"); err != nil || v != "login-value" {
				t.Fatalf("logins: %q %v", v, err)
			}
			if err := logins.Delete("same"); err != nil {
				t.Fatal(err)
			}
			if _, err := logins.Get("same"); !errors.Is(err, ErrNotFound) {
				t.Fatalf("after delete: %v", err)
			}
			if v, _ := keys.Get("same"); v != "key-value" {
				t.Fatal("deleting a login removed a chat key")
			}
			if backend == InFile {
				for _, f := range []string{keys.File(), logins.File()} {
					st, err := os.Stat(f)
					if err != nil || st.Mode().Perm() != 0o600 {
						t.Fatalf("%s: %v %v", f, st, err)
					}
				}
				b, _ := os.ReadFile(filepath.Join(dir, "chat-keys.json"))
				if strings.Contains(string(b), "login-value") {
					t.Fatal("a login went into the chat key file")
				}
				// A damaged file is reported with its kind, not overwritten.
				os.WriteFile(logins.File(), []byte("{"), 0o600)
				if err := logins.Set("x", "y"); err == nil || !strings.Contains(err.Error(), "the login file") {
					t.Fatalf("damaged file: %v", err)
				}
			}
		})
	}
}
