// Package scripts_test runs the repository's shell scripts against
// throw-away inputs: what they decide is part of `make test`'s contract.
package scripts_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitRepo makes an empty git repository and returns its path.
func gitRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	run(t, dir, "git", "init", "-q")
	return dir
}

func run(t *testing.T, dir string, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
}

func writeSized(t *testing.T, path string, size int) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, bytes.Repeat([]byte{'x'}, size), 0o644); err != nil {
		t.Fatal(err)
	}
}

// checkLarge runs check-large-files.sh on repo and returns its exit code
// and stderr.
func checkLarge(t *testing.T, repo string, env ...string) (int, string) {
	t.Helper()
	script, err := filepath.Abs("check-large-files.sh")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(script, repo)
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), stderr.String()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, stderr.String()
}

func TestCheckLargeFiles(t *testing.T) {
	const mb = 1 << 20
	t.Run("a tracked 2 MB file fails", func(t *testing.T) {
		repo := gitRepo(t)
		writeSized(t, filepath.Join(repo, "small.txt"), 1000)
		writeSized(t, filepath.Join(repo, "dir with space", "big.bin"), 2*mb)
		run(t, repo, "git", "add", ".")
		code, stderr := checkLarge(t, repo)
		if code != 1 {
			t.Fatalf("exit %d, want 1; stderr: %s", code, stderr)
		}
		if !strings.Contains(stderr, "dir with space/big.bin is 2097152 bytes") || strings.Contains(stderr, "small.txt") {
			t.Fatalf("stderr should name only the big file: %s", stderr)
		}
	})
	t.Run("files up to 1 MB pass", func(t *testing.T) {
		repo := gitRepo(t)
		writeSized(t, filepath.Join(repo, "exactly.bin"), mb)
		writeSized(t, filepath.Join(repo, "small.txt"), 10)
		run(t, repo, "git", "add", ".")
		if code, stderr := checkLarge(t, repo); code != 0 {
			t.Fatalf("exit %d, want 0; stderr: %s", code, stderr)
		}
	})
	t.Run("an untracked or ignored big file does not count", func(t *testing.T) {
		repo := gitRepo(t)
		writeSized(t, filepath.Join(repo, "build", "bin", "mcp-router"), 2*mb)
		writeSized(t, filepath.Join(repo, "README"), 10)
		run(t, repo, "git", "add", "README")
		if code, stderr := checkLarge(t, repo); code != 0 {
			t.Fatalf("exit %d, want 0; stderr: %s", code, stderr)
		}
	})
	t.Run("git rm --cached clears it", func(t *testing.T) {
		repo := gitRepo(t)
		writeSized(t, filepath.Join(repo, "mcp-router"), 2*mb)
		run(t, repo, "git", "add", ".")
		if code, _ := checkLarge(t, repo); code != 1 {
			t.Fatalf("exit %d before git rm, want 1", code)
		}
		run(t, repo, "git", "rm", "-q", "--cached", "mcp-router")
		if code, stderr := checkLarge(t, repo); code != 0 {
			t.Fatalf("exit %d after git rm, want 0; stderr: %s", code, stderr)
		}
	})
	t.Run("the limit can be set", func(t *testing.T) {
		repo := gitRepo(t)
		writeSized(t, filepath.Join(repo, "a.bin"), 2000)
		run(t, repo, "git", "add", ".")
		if code, _ := checkLarge(t, repo, "MCPR_MAX_FILE_BYTES=1000"); code != 1 {
			t.Fatalf("exit %d with a 1000-byte limit, want 1", code)
		}
		if code, stderr := checkLarge(t, repo, "MCPR_MAX_FILE_BYTES=lots"); code != 2 || !strings.Contains(stderr, "not a number") {
			t.Fatalf("a bad limit: exit %d, stderr %q", code, stderr)
		}
	})
	t.Run("this repository passes", func(t *testing.T) {
		if code, stderr := checkLarge(t, ".."); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
	})
}
