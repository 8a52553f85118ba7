//go:build !windows

package shellenv

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/upstream"
	"github.com/mcp-router/mcp-router/internal/testmcp"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

func TestMain(m *testing.M) {
	testmcp.ServeIfAsked() // the stdio server the PATH test starts
	os.Exit(m.Run())
}

func TestMerge(t *testing.T) {
	cases := []struct {
		name        string
		cur         []string
		shell       map[string]string
		want        []string
		wantChanged []string
	}{
		{"login PATH first, the rest kept",
			[]string{"PATH=/usr/bin:/bin", "HOME=/h"},
			map[string]string{"PATH": "/h/.nvm/versions/node/v22/bin:/usr/local/bin:/usr/bin:/bin"},
			[]string{"PATH=/h/.nvm/versions/node/v22/bin:/usr/local/bin:/usr/bin:/bin", "HOME=/h"}, []string{"PATH"}},
		{"entries only the process had stay, after",
			[]string{"PATH=/usr/bin:/opt/app/bin"},
			map[string]string{"PATH": "/opt/homebrew/bin:/usr/bin"},
			[]string{"PATH=/opt/homebrew/bin:/usr/bin:/opt/app/bin"}, []string{"PATH"}},
		{"missing variables added, set ones kept, session ones skipped",
			[]string{"PATH=/bin", "LANG=C"},
			map[string]string{"PATH": "/bin", "NVM_DIR": "/h/.nvm", "LANG": "ja_JP.UTF-8", "PWD": "/h", "SHLVL": "2", "_": "/usr/bin/env", "TERM": "dumb"},
			[]string{"PATH=/bin", "LANG=C", "NVM_DIR=/h/.nvm"}, []string{"NVM_DIR"}},
		{"no PATH in the process",
			[]string{"HOME=/h"},
			map[string]string{"PATH": "/usr/local/bin:/usr/bin"},
			[]string{"HOME=/h", "PATH=/usr/local/bin:/usr/bin"}, []string{"PATH"}},
		{"repeats and empty entries dropped",
			[]string{"PATH=/bin::/bin/"},
			map[string]string{"PATH": "/usr/bin::/usr/bin"},
			[]string{"PATH=/usr/bin:/bin"}, []string{"PATH"}},
		{"nothing new", []string{"PATH=/usr/bin:/bin"}, map[string]string{"PATH": "/usr/bin"}, []string{"PATH=/usr/bin:/bin"}, nil},
		{"bad names and values ignored",
			[]string{"PATH=/bin"}, map[string]string{"": "x", "A=B": "x", "NUL": "a\x00b"},
			[]string{"PATH=/bin"}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, changed := Merge(tc.cur, tc.shell)
			if !reflect.DeepEqual(got, tc.want) || !reflect.DeepEqual(changed, tc.wantChanged) {
				t.Errorf("Merge = %q changed %q; want %q changed %q", got, changed, tc.want, tc.wantChanged)
			}
		})
	}
}

func TestParseEnv(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want map[string]string
	}{
		{"env -0", "A=1\x00B=x=y\x00MULTI=l1\nl2\x00", map[string]string{"A": "1", "B": "x=y", "MULTI": "l1\nl2"}},
		{"lines", "A=1\nMULTI=l1\nl2\nB=2\n", map[string]string{"A": "1", "MULTI": "l1\nl2", "B": "2"}},
		{"bad names skipped", "1A=x\x00A-B=y\x00OK=z\x00", map[string]string{"OK": "z"}},
		{"empty", "", map[string]string{}},
	} {
		if got := ParseEnv([]byte(tc.in)); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %q", tc.name, got)
		}
	}
}

// FuzzParseEnv: whatever a shell prints, parsing never panics and only
// yields valid names.
func FuzzParseEnv(f *testing.F) {
	f.Add([]byte("A=1\x00B=2\x00"))
	f.Add([]byte("A=1\nnot a var\nB=2"))
	f.Add([]byte(marker + "A=1\x00" + marker))
	f.Fuzz(func(t *testing.T, b []byte) {
		for k := range ParseEnv(b) {
			if !validName(k) {
				t.Fatalf("invalid name %q", k)
			}
		}
		_, _ = parseOutput(b)
	})
}

// home makes a home directory whose bash login profile prints a greeting,
// puts bin first on PATH and sets a version manager's variable, as nvm's
// lines in a profile do. It returns the home and the bin directory.
func home(t *testing.T) (string, string) {
	t.Helper()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	h := t.TempDir()
	bin := filepath.Join(h, ".nvm", "versions", "node", "v22", "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	profile := "echo 'Welcome back!'\nexport NVM_DIR=\"$HOME/.nvm\"\nexport PATH=\"" + bin + ":$PATH\"\n"
	if err := os.WriteFile(filepath.Join(h, ".bash_profile"), []byte(profile), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", h)
	t.Setenv("SHELL", "/bin/bash")
	return h, bin
}

func TestLoadRunsTheLoginShell(t *testing.T) {
	h, bin := home(t)
	env, err := Load(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(env["PATH"], bin+":") || env["NVM_DIR"] != filepath.Join(h, ".nvm") {
		t.Errorf("PATH %q, NVM_DIR %q", env["PATH"], env["NVM_DIR"])
	}
}

// A profile that hangs costs the timeout, not the app: Load gives up and
// kills the shell with what it started.
func TestLoadGivesUpOnAHangingShell(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	shell := filepath.Join(dir, "hangs")
	if err := os.WriteFile(shell, []byte("#!/bin/sh\necho $$ > "+pidFile+"\nsleep 30\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err := Load(context.Background(), Options{Shell: shell, Timeout: 500 * time.Millisecond})
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("Load = %v, want ErrTimeout", err)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("gave up after %v", took)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid := strings.TrimSpace(string(b))
	testpeers.Eventually(t, 2*time.Second, "the shell to be gone", func() bool {
		_, err := os.Stat("/proc/" + pid)
		return err != nil
	})
	// A shell that prints nothing usable is an error too, not an empty env.
	if _, err := Load(context.Background(), Options{Shell: "/bin/false"}); err == nil {
		t.Error("Load with /bin/false succeeded")
	}
}

// A profile that floods its output costs at most MaxOutput of memory and
// the timeout: Load refuses it, naming the cap.
func TestLoadRefusesAFloodingProfile(t *testing.T) {
	h, _ := home(t)
	flood := "head -c 5000000 /dev/zero | tr '\\0' x\n"
	if err := os.WriteFile(filepath.Join(h, ".bash_profile"), []byte(flood), 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err := Load(context.Background(), Options{Timeout: 3 * time.Second})
	if !errors.Is(err, ErrTooMuchOutput) || !strings.Contains(err.Error(), "4 MiB") || !strings.Contains(err.Error(), "MaxOutput") {
		t.Fatalf("Load = %v, want ErrTooMuchOutput", err)
	}
	if took := time.Since(start); took > 6*time.Second {
		t.Errorf("gave up after %v", took)
	}
}

// Issue 28 item 6: the model vendors' keys and base URLs a login profile
// exports reach the GUI launch's environment, where the chat reads them;
// Apply names them (what the app logs) and never carries the values.
func TestLoginProfileGivesTheChatItsKeys(t *testing.T) {
	h, _ := home(t)
	const key = "sk-login-profile-41c7"
	profile := "export OPENAI_API_KEY=" + key + "\nexport OPENAI_BASE_URL=http://127.0.0.1:11434/v1\n"
	if err := os.WriteFile(filepath.Join(h, ".bash_profile"), []byte(profile), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", os.Getenv("PATH")) // restored after Apply
	for _, k := range UserVariables {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	env, err := Load(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	changed, err := Apply(env)
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv("OPENAI_API_KEY") != key || os.Getenv("OPENAI_BASE_URL") != "http://127.0.0.1:11434/v1" {
		t.Fatalf("after Apply: OPENAI_API_KEY %q OPENAI_BASE_URL %q", os.Getenv("OPENAI_API_KEY"), os.Getenv("OPENAI_BASE_URL"))
	}
	joined := strings.Join(changed, ",")
	if !strings.Contains(joined, "OPENAI_API_KEY") || !strings.Contains(joined, "OPENAI_BASE_URL") || strings.Contains(joined, key) {
		t.Fatalf("changed %q", changed)
	}
}

// The case: a stdio server whose command is only on the login
// shell's PATH fails with "not found" in a GUI launch's environment and
// runs once the login environment is applied.
func TestStdioServerOnlyOnTheLoginShellsPath(t *testing.T) {
	_, bin := home(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\nexec '" + self + "' \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "my-mcp-server"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", "/usr/bin:/bin") // what a desktop launcher gives
	t.Setenv("NVM_DIR", "")
	os.Unsetenv("NVM_DIR")

	svc := upstream.New(upstream.Options{BackoffBase: 200 * time.Millisecond, BackoffMax: time.Second})
	defer svc.Close()
	def := testmcp.Server("login")
	def.Command = "my-mcp-server"
	if err := svc.Sync([]spec.Server{def}); err != nil {
		t.Fatal(err)
	}
	testpeers.Eventually(t, 10*time.Second, "the server to fail", func() bool {
		st, _ := svc.Status("login")
		return st.State == upstream.StateErrored
	})
	if st, _ := svc.Status("login"); !strings.Contains(st.Error, `command "my-mcp-server" not found`) {
		t.Fatalf("error %q, want not found", st.Error)
	}

	env, err := Load(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	changed, err := Apply(env)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(os.Getenv("PATH"), bin+":") || os.Getenv("NVM_DIR") == "" || !reflect.DeepEqual(changed, []string{"NVM_DIR", "PATH"}) {
		t.Fatalf("after Apply: PATH %q NVM_DIR %q changed %q", os.Getenv("PATH"), os.Getenv("NVM_DIR"), changed)
	}
	if err := svc.Restart("login"); err != nil {
		t.Fatal(err)
	}
	testpeers.Eventually(t, 15*time.Second, "the server to run", func() bool {
		st, _ := svc.Status("login")
		return st.State == upstream.StateRunning
	})
	raw, err := svc.Request(context.Background(), "login", "tools/call", map[string]any{"name": "show", "arguments": map[string]any{}})
	if err != nil || !strings.Contains(string(raw), `\"args\":[]`) {
		t.Errorf("tools/call show: %s %v", raw, err)
	}
}
