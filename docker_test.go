//go:build nogui

package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// This machine has no Docker engine, so the test runs what the image runs —
// the same build (-tags nogui), the same data dir variable and the same
// command — and checks the Dockerfile still says so.
func TestDockerImageCommandWithoutDocker(t *testing.T) {
	dockerfile, err := os.ReadFile("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"-tags nogui", "CGO_ENABLED=0", "USER 1000:1000", "install -d -o mcp -g mcp -m 0700 /data",
		"install -d -o mcp -g mcp -m 0755 /init", `ENV MCP_ROUTER_DATA_DIR=/data`, `ENTRYPOINT ["mcp-router"]`, `CMD ["stdio"]`} {
		if !strings.Contains(string(dockerfile), want) {
			t.Fatalf("Dockerfile no longer has %q; update this test with it", want)
		}
	}
	compose, _ := os.ReadFile("docker-compose.yml")
	for _, want := range []string{"network_mode: host", "stdin_open: true", `command: ["stdio"]`, "target: /data", "create_host_path: false",
		":/init:ro", `user: "${UID:-1000}:${GID:-1000}"`} {
		if !strings.Contains(string(compose), want) {
			t.Fatalf("docker-compose.yml no longer has %q", want)
		}
	}

	bin := filepath.Join(t.TempDir(), "mcp-router")
	build := exec.Command("go", "build", "-tags", "nogui", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build -tags nogui: %v\n%s", err, out)
	}
	// A data dir as a bind mount brings it: made by hand or by Docker, 0755.
	data := t.TempDir()
	if err := os.Chmod(data, 0o755); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "MCP_ROUTER_DATA_DIR="+data)
	add := exec.Command(bin, "servers", "add", "everything", "--env", "API_KEY=sk-secret", "--", testpeers.Everything(t), "stdio")
	add.Env = env
	if out, err := add.CombinedOutput(); err != nil {
		t.Fatalf("servers add: %v\n%s", err, out)
	}
	db := filepath.Join(data, "mcp-router.db")
	checkPrivate := func(when string) {
		t.Helper()
		for _, f := range []struct {
			path     string
			want     os.FileMode
			optional bool // SQLite removes it with the last connection
		}{{data, 0o700, false}, {db, 0o600, false}, {db + "-wal", 0o600, true}, {db + "-shm", 0o600, true}} {
			st, err := os.Stat(f.path)
			switch {
			case os.IsNotExist(err) && f.optional:
			case err != nil:
				t.Errorf("%s: %v", when, err)
			case st.Mode().Perm() != f.want:
				t.Errorf("%s: %s is %04o, want %04o", when, filepath.Base(f.path), st.Mode().Perm(), f.want)
			}
		}
	}
	checkPrivate("after servers add")
	// A data dir an older version left open is made private by the next
	// command, which says so.
	if err := os.Chmod(data, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(db, 0o644); err != nil {
		t.Fatal(err)
	}
	list := exec.Command(bin, "servers", "list")
	list.Env = env
	out, err := list.CombinedOutput()
	if err != nil {
		t.Fatalf("servers list: %v\n%s", err, out)
	}
	for _, want := range []string{data + " was mode 0755: made it 0700", db + " was mode 0644: made it 0600"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("servers list did not say %q:\n%s", want, out)
		}
	}
	checkPrivate("after servers list")

	cmd := exec.Command(bin, "stdio") // the image's ENTRYPOINT + CMD
	cmd.Env = env
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"docker-test","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"everything__echo","arguments":{"message":"from the image"}}}`,
	} {
		if _, err := stdin.Write([]byte(line + "\n")); err != nil {
			t.Fatal(err)
		}
	}
	answers := make(chan string)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			answers <- sc.Text()
		}
		close(answers)
	}()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case line, ok := <-answers:
			if !ok {
				t.Fatal("stdio ended without answering the call")
			}
			var msg struct {
				ID     int             `json:"id"`
				Result json.RawMessage `json:"result"`
			}
			if json.Unmarshal([]byte(line), &msg) == nil && msg.ID == 2 {
				if !strings.Contains(string(msg.Result), "from the image") {
					t.Fatalf("echo answered %s", line)
				}
				checkPrivate("while stdio runs")
				_ = stdin.Close() // a client hanging up ends the container
				if err := cmd.Wait(); err != nil {
					t.Errorf("stdio exited with %v after stdin closed", err)
				}
				return
			}
		case <-deadline:
			t.Fatal("no answer within 30 s")
		}
	}
}
