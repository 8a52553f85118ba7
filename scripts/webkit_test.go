package scripts_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fakeTools writes stand-ins for apt-cache, dpkg-query and pkg-config that
// answer from the FAKE_* environment variables, and returns their
// directory, to put first on PATH.
func fakeTools(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	tools := map[string]string{
		// apt-cache policy PKG: a candidate when PKG is in $FAKE_OFFERED.
		"apt-cache": `[ "$1" = policy ] || exit 1
c="(none)"; for p in $FAKE_OFFERED; do [ "$p" = "$2" ] && c="2.50.6-1"; done
printf '%s:\n  Installed: (none)\n  Candidate: %s\n' "$2" "$c"`,
		// dpkg-query -W -f=... PKG: installed when PKG is in $FAKE_INSTALLED.
		"dpkg-query": `p="${@: -1}"; for i in $FAKE_INSTALLED; do [ "$i" = "$p" ] && { printf 'install ok installed'; exit 0; }; done
echo "dpkg-query: no packages found matching $p" >&2; exit 1`,
		// pkg-config --exists webkit2gtk-X: true when X is in $FAKE_PC.
		"pkg-config": `[ "$1" = --exists ] || exit 1
for v in $FAKE_PC; do [ "webkit2gtk-$v" = "$2" ] && exit 0; done; exit 1`,
	}
	for name, body := range tools {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/usr/bin/env bash\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func runScript(t *testing.T, fake string, env []string, name string, args ...string) (string, string, int) {
	t.Helper()
	script, err := filepath.Abs(name)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(script, args...)
	cmd.Env = append(os.Environ(), append(env, "PATH="+fake+":"+os.Getenv("PATH"))...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

const (
	w40 = "libwebkit2gtk-4.0-dev"
	w41 = "libwebkit2gtk-4.1-dev"
)

// The install script uses 4.0 where the distribution has it, 4.1 where it
// has only that, and installs 4.1 beside 4.0 where both are offered.
func TestInstallScriptPicksTheWebKitLine(t *testing.T) {
	fake := fakeTools(t)
	for _, tc := range []struct {
		name, offered, installed string
		want                     string
		code                     int
	}{
		{"Debian 12: both offered", w40 + " " + w41, "", w40 + "\n" + w41 + "\n", 0},
		{"Ubuntu 24.04, Debian 13: 4.1 only", w41, "", w41 + "\n", 0},
		{"an old distribution: 4.0 only", w40, "", w40 + "\n", 0},
		{"4.0 installed, no lists", "", w40, w40 + "\n", 0},
		{"4.1 installed, no lists", "", w41, w41 + "\n", 0},
		{"neither", "", "", "", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, stderr, code := runScript(t, fake, []string{"FAKE_OFFERED=" + tc.offered, "FAKE_INSTALLED=" + tc.installed},
				"install-system-deps.sh", "--print-webkit")
			if out != tc.want || code != tc.code {
				t.Errorf("printed %q, exit %d (stderr %q); want %q, exit %d", out, code, stderr, tc.want, tc.code)
			}
			if code != 0 && !strings.Contains(stderr, "neither libwebkit2gtk-4.0-dev nor libwebkit2gtk-4.1-dev") {
				t.Errorf("stderr %q", stderr)
			}
		})
	}
	if _, stderr, code := runScript(t, fake, nil, "install-system-deps.sh", "--frobnicate"); code != 2 || !strings.Contains(stderr, "unknown argument") {
		t.Errorf("bad argument: exit %d, %q", code, stderr)
	}
}

// The build tag follows what is installed: webkit2_41 only when 4.1 is the
// only line, or when asked for.
func TestWebKitTags(t *testing.T) {
	fake := fakeTools(t)
	for _, tc := range []struct {
		name, pc, choose string
		want             string
		code             int
	}{
		{"4.0 only", "4.0", "", "", 0},
		{"4.1 only", "4.1", "", "webkit2_41\n", 0},
		{"both: 4.0 by default", "4.0 4.1", "", "", 0},
		{"both, 4.1 chosen", "4.0 4.1", "4.1", "webkit2_41\n", 0},
		{"4.1 chosen, missing", "4.0", "4.1", "", 1},
		{"4.0 chosen, missing", "4.1", "4.0", "", 1},
		{"bad choice", "4.0", "5.0", "", 1},
		{"neither", "", "", "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, stderr, code := runScript(t, fake, []string{"FAKE_PC=" + tc.pc, "MCPR_WEBKIT=" + tc.choose}, "webkit-tags.sh")
			if out != tc.want || code != tc.code {
				t.Errorf("printed %q, exit %d (stderr %q); want %q, exit %d", out, code, stderr, tc.want, tc.code)
			}
		})
	}
}

// make build passes the tag to wails build, and go build/test/vet get it
// through GOFLAGS, when only 4.1 is installed.
func TestMakefilePassesTheTag(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make")
	}
	fake := fakeTools(t)
	for _, tc := range []struct {
		pc   string
		want bool
	}{{"4.1", true}, {"4.0", false}} {
		cmd := exec.Command("make", "-s", "-n", "-C", "..", "build", "print-goflags")
		cmd.Env = append(os.Environ(), "FAKE_PC="+tc.pc, "PATH="+fake+":"+os.Getenv("PATH"), "GOFLAGS=")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("make -n build: %v\n%s", err, out)
		}
		var wails, goflags string
		for _, line := range strings.Split(string(out), "\n") {
			if strings.Contains(line, "wails build") {
				wails = line
			}
			if strings.HasPrefix(line, "echo GOFLAGS=") {
				goflags = line
			}
		}
		if got := strings.Contains(wails, "-tags webkit2_41"); got != tc.want {
			t.Errorf("webkit %s: wails build line %q", tc.pc, wails)
		}
		if got := strings.Contains(goflags, "-tags=webkit2_41"); got != tc.want {
			t.Errorf("webkit %s: %q", tc.pc, goflags)
		}
	}
}
