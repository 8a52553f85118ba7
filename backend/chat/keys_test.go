package chat

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zalando/go-keyring"
)

func TestKeysInTheKeychain(t *testing.T) {
	keyring.MockInit()
	t.Setenv(EnvKeyStore, "")
	dir := t.TempDir()
	k := NewKeys(dir)
	if k.Backend() != KeysInKeychain {
		t.Fatalf("backend %q with a working keychain", k.Backend())
	}
	if _, err := k.Get("openai"); !errors.Is(err, ErrNoKey) {
		t.Fatalf("get before set: %v", err)
	}
	if err := k.Set("openai", "sk-secret-123456"); err != nil {
		t.Fatal(err)
	}
	if v, err := k.Get("openai"); err != nil || v != "sk-secret-123456" {
		t.Fatalf("%q %v", v, err)
	}
	if _, err := os.Stat(filepath.Join(dir, KeyFileName)); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("a key file was written although the keychain works")
	}
	if err := k.Delete("openai"); err != nil {
		t.Fatal(err)
	}
	if err := k.Delete("openai"); err != nil {
		t.Fatalf("deleting twice: %v", err)
	}
	if _, err := k.Get("openai"); !errors.Is(err, ErrNoKey) {
		t.Fatalf("after delete: %v", err)
	}
}

func TestKeysFallBackToA0600File(t *testing.T) {
	keyring.MockInitWithError(errors.New("org.freedesktop.secrets was not provided by any .service files"))
	t.Setenv(EnvKeyStore, "")
	dir := t.TempDir()
	k := NewKeys(dir)
	if k.Backend() != KeysInFile || k.File() != filepath.Join(dir, KeyFileName) {
		t.Fatalf("backend %q file %q", k.Backend(), k.File())
	}
	if err := k.Set("a", "key-a-0123456789"); err != nil {
		t.Fatal(err)
	}
	if err := k.Set("b", "key-b-0123456789"); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(k.File())
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("key file mode %v %v", st.Mode(), err)
	}
	if v, _ := k.Get("a"); v != "key-a-0123456789" {
		t.Fatalf("a = %q", v)
	}
	if err := k.Set("a", ""); err != nil { // "" removes
		t.Fatal(err)
	}
	if _, err := k.Get("a"); !errors.Is(err, ErrNoKey) {
		t.Fatalf("a after removal: %v", err)
	}
	if v, _ := NewKeys(dir).Get("b"); v != "key-b-0123456789" {
		t.Fatalf("another process reads %q", v)
	}
	// A damaged file is reported, not overwritten.
	os.WriteFile(k.File(), []byte("{not json"), 0o600)
	if err := k.Set("c", "x"); err == nil || !strings.Contains(err.Error(), "is not a JSON object") {
		t.Fatalf("damaged file: %v", err)
	}
	if b, _ := os.ReadFile(k.File()); string(b) != "{not json" {
		t.Fatal("the damaged file was overwritten")
	}
}

func TestKeyStoreForced(t *testing.T) {
	keyring.MockInit()
	t.Setenv(EnvKeyStore, KeysInFile)
	if b := NewKeys(t.TempDir()).Backend(); b != KeysInFile {
		t.Fatalf("forced file: %q", b)
	}
}

func TestMask(t *testing.T) {
	for in, want := range map[string]string{"": "", "short": "••••", "sk-proj-abcdefghijkl1234": "sk-…1234"} {
		if got := Mask(in); got != want {
			t.Errorf("Mask(%q) = %q, want %q", in, got, want)
		}
		if in != "" && len(in) >= 12 && strings.Contains(Mask(in), in[3:len(in)-4]) {
			t.Errorf("Mask(%q) shows the middle", in)
		}
	}
}
