package distcheck

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

// build cross-builds testdata/darwinprog with CGO_ENABLED=0 for GOOS/GOARCH
// and extra go build flags.
func build(t *testing.T, goos, goarch string, flags ...string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "prog")
	args := append([]string{"build", "-trimpath", "-o", out}, flags...)
	cmd := exec.Command("go", append(args, "./testdata/darwinprog")...)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+goos, "GOARCH="+goarch)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s/%s: %v\n%s", goos, goarch, err, b)
	}
	return out
}

func TestCheckDarwinHeadless(t *testing.T) {
	amd64 := build(t, "darwin", "amd64", "-tags", "nogui", "-ldflags", "-s -w")
	arm64 := build(t, "darwin", "arm64", "-tags", "nogui", "-ldflags", "-s -w")
	for arch, bin := range map[string]string{"amd64": amd64, "arm64": arm64} {
		libs, err := CheckDarwinHeadless(bin, arch)
		if err != nil {
			t.Fatalf("%s: %v", arch, err)
		}
		if !strings.Contains(strings.Join(libs, " "), "libSystem.B.dylib") {
			t.Errorf("%s: libraries %v", arch, libs)
		}
	}
	// Each of these is a build the release must not ship as the headless
	// darwin archive; the check names what is wrong.
	for name, c := range map[string]struct{ bin, arch, want string }{
		"amd64 binary in the arm64 archive": {amd64, "arm64", "want CpuArm64"},
		"arm64 binary in the amd64 archive": {arm64, "amd64", "want CpuAmd64"},
		"desktop build (no nogui tag)":      {build(t, "darwin", "arm64"), "arm64", "without nogui"},
		"a Linux binary":                    {build(t, "linux", "arm64", "-tags", "nogui"), "arm64", "not a thin Mach-O file"},
		"unknown arch":                      {arm64, "riscv64", "no darwin CPU known"},
	} {
		_, err := CheckDarwinHeadless(c.bin, c.arch)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error with %q", name, err, c.want)
		}
	}
}

// A cgo build or a GUI framework cannot be cross-built here (no darwin C
// toolchain), so what the Mach-O and build info would say is given directly.
func TestDarwinChecksRejectCgoAndFrameworks(t *testing.T) {
	settings := func(kv ...string) []debug.BuildSetting {
		var s []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			s = append(s, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return s
	}
	if err := checkHeadlessSettings(settings("GOOS", "darwin", "GOARCH", "arm64", "CGO_ENABLED", "0", "-tags", "nogui"), "darwin", "arm64"); err != nil {
		t.Fatalf("the headless settings: %v", err)
	}
	for name, c := range map[string]struct {
		s    []debug.BuildSetting
		want string
	}{
		"cgo":            {settings("GOOS", "darwin", "GOARCH", "arm64", "CGO_ENABLED", "1", "-tags", "nogui"), "CGO_ENABLED=\"1\""},
		"cgo unrecorded": {settings("GOOS", "darwin", "GOARCH", "arm64", "-tags", "nogui"), "CGO_ENABLED=\"\""},
		"other tags":     {settings("GOOS", "darwin", "GOARCH", "arm64", "CGO_ENABLED", "0", "-tags", "noguix,webkit2_41"), "without nogui"},
		"linux":          {settings("GOOS", "linux", "GOARCH", "arm64", "CGO_ENABLED", "0", "-tags", "nogui"), "built for linux/arm64"},
	} {
		if err := checkHeadlessSettings(c.s, "darwin", "arm64"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error with %q", name, err, c.want)
		}
	}
	system := "/usr/lib/libSystem.B.dylib"
	if err := checkDarwinLibraries(darwinSystemLibraries); err != nil {
		t.Fatalf("the system libraries: %v", err)
	}
	for name, c := range map[string]struct {
		libs []string
		want string
	}{
		"WebKit (the desktop app)": {[]string{system, "/System/Library/Frameworks/WebKit.framework/Versions/A/WebKit"}, "loads /System/Library/Frameworks/WebKit.framework"},
		"a Homebrew dylib":         {[]string{system, "/opt/homebrew/lib/libsqlite3.dylib"}, "loads /opt/homebrew/lib/libsqlite3.dylib"},
		"no libSystem":             {[]string{"/usr/lib/libresolv.9.dylib"}, "loads no /usr/lib/libSystem.B.dylib"},
	} {
		if err := checkDarwinLibraries(c.libs); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error with %q", name, err, c.want)
		}
	}
}
