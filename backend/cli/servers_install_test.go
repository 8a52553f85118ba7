package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-router/mcp-router/backend/config"
	"github.com/mcp-router/mcp-router/backend/secrets"
	"github.com/mcp-router/mcp-router/backend/store"
	"github.com/mcp-router/mcp-router/internal/testbundles"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// A bundle packed by the real `mcpb pack`: without a terminal its missing
// required user_config is named and nothing is installed; on a terminal
// the sensitive value is asked for without echo (ReadSecret) and kept out
// of the database; the server runs through the router with its values,
// and `servers remove` deletes its files and its value.
func TestServersInstallBundle(t *testing.T) {
	t.Setenv(secrets.EnvStore, secrets.InFile)
	dir := t.TempDir()
	file := testbundles.Echo(t)
	nodeModules := testpeers.NodeModules(t)
	bundleDir := filepath.Join(dir, "bundles", "bundle-echo", "1.2.3")

	r := run(t, dir, "", "servers", "install", file, "--config", "sdk_dir="+nodeModules)
	if r.code != ExitError || !strings.Contains(r.stderr, "user_config needs a value for api_key") {
		t.Fatalf("no terminal: exit %d, stderr %s", r.code, r.stderr)
	}
	if _, err := os.Stat(bundleDir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a refused install left %s: %v", bundleDir, err)
	}

	const key = "sk-bundle-7731"
	var asked []string
	var out, errb testpeers.SyncBuffer
	code := Main(context.Background(), []string{"--data-dir", dir, "servers", "install", file, "--config", "sdk_dir=" + nodeModules, "--config", "greeting=hi there"},
		Options{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
			ReadSecret: func(prompt string) (string, error) { asked = append(asked, prompt); return key, nil },
			ReadLine:   func(prompt string) (string, error) { t.Errorf("asked with echo: %s", prompt); return "", nil }})
	if code != 0 {
		t.Fatalf("install: exit %d: %s", code, errb.String())
	}
	if len(asked) != 1 || !strings.Contains(asked[0], "api_key") || !strings.Contains(asked[0], "not shown") {
		t.Fatalf("asked %q, want the api_key once, without echo", asked)
	}
	for _, want := range []string{"bundle bundle-echo 1.2.3 by Test Author: unsigned", "installed bundle-echo as server bundle-echo", "tools: show_config"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("install output lacks %q:\n%s", want, out.String())
		}
	}
	show := mustRun(t, dir, "servers", "show", "bundle-echo")
	for _, want := range []string{"Bundle:", "bundle-echo 1.2.3 by Test Author (unsigned)", "Bundle tools:", "show_config", "Secret env:", "API_KEY"} {
		if !strings.Contains(show, want) {
			t.Errorf("servers show lacks %q:\n%s", want, show)
		}
	}

	// Listed with its tools: servers test connects as the router does
	// (the sensitive value from the secrets store) and lists them.
	tested := mustRun(t, dir, "servers", "test", "bundle-echo")
	if !strings.Contains(tested, "1 tools") || !strings.Contains(tested, "show_config") {
		t.Fatalf("servers test:\n%s", tested)
	}
	texts := callStdio(t, dir, &testpeers.SyncBuffer{}, "bundle-echo__show_config")
	var got map[string]string
	if err := json.Unmarshal([]byte(texts[0]), &got); err != nil || got["apiKeySha256"] != sha256hex(key) || got["greeting"] != "hi there" {
		t.Fatalf("the bundle's server got %s (%v)", texts[0], err)
	}
	checkpoint(t, dir)
	for _, f := range []string{config.DBPath(dir), config.DBPath(dir) + "-wal"} {
		if data, err := os.ReadFile(f); err == nil && strings.Contains(string(data), key) {
			t.Fatalf("%s holds the sensitive value", f)
		}
	}

	rm := mustRun(t, dir, "servers", "remove", "bundle-echo")
	if !strings.Contains(rm, "removed the files of bundle bundle-echo 1.2.3") || !strings.Contains(rm, "removed its secret values") {
		t.Fatalf("remove said %s", rm)
	}
	if _, err := os.Stat(filepath.Join(dir, "bundles", "bundle-echo")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("bundle files after remove: %v", err)
	}
	if data, err := os.ReadFile(filepath.Join(dir, secrets.ServerFileName)); err == nil && strings.Contains(string(data), key) {
		t.Fatalf("the secrets file still holds the value after remove")
	}
}

// A bundle with a ../ entry, a tampered signed bundle and a bundle past
// the bundleMaxMB setting are refused by `servers install`, and nothing is
// stored or unpacked.
func TestServersInstallRefuses(t *testing.T) {
	dir := t.TempDir()
	slip := testbundles.Zip(t, testbundles.Entry{Name: "manifest.json", Body: testbundles.EchoManifest(t, nil)},
		testbundles.Entry{Name: "../../outside.js", Body: []byte("x")})
	signed := testbundles.Echo(t)
	testbundles.Sign(t, signed)
	data, err := os.ReadFile(signed)
	if err != nil {
		t.Fatal(err)
	}
	data[20] ^= 0xff
	tampered := filepath.Join(t.TempDir(), "tampered.mcpb")
	if err := os.WriteFile(tampered, data, 0o644); err != nil {
		t.Fatal(err)
	}
	big := testbundles.Zip(t, testbundles.Entry{Name: "manifest.json", Body: testbundles.EchoManifest(t, nil)},
		testbundles.Entry{Name: "blob", Body: make([]byte, 3<<20)})
	mustRun(t, dir, "settings", "set", "bundleMaxMB", "1")
	for _, tc := range []struct{ file, want string }{
		{slip, "leaves the bundle's folder"},
		{tampered, "the signature does not verify"},
		{big, "setting bundleMaxMB"},
	} {
		r := run(t, dir, "", "servers", "install", tc.file, "--config", "api_key=k", "--config", "sdk_dir="+dir)
		if r.code == 0 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%s: exit %d, stderr %s; want refused with %q", tc.file, r.code, r.stderr, tc.want)
		}
	}
	if rows := list(t, dir); len(rows) != 0 {
		t.Fatalf("refused bundles stored %v", rows)
	}
	if _, err := os.Stat(filepath.Join(dir, "bundles")); err == nil {
		entries, _ := os.ReadDir(filepath.Join(dir, "bundles"))
		if len(entries) != 0 {
			t.Fatalf("refused bundles unpacked %v", entries)
		}
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "outside.js")); err == nil {
		t.Fatal("the ../ entry was written")
	}
}

// checkpoint folds the WAL into the database file, so a search of the
// file sees every row written.
func checkpoint(t *testing.T, dir string) {
	t.Helper()
	st, err := store.Open(config.DBPath(dir))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.DB().Exec("PRAGMA wal_checkpoint(TRUNCATE)").Error; err != nil {
		t.Fatal(err)
	}
}

func sha256hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
