// Package distcheck checks what scripts/dist.sh builds for platforms this
// machine cannot run: the darwin headless binaries are read as files
// (Mach-O header, load commands, Go build info), since no macOS and no
// emulator for it is at hand (docs/install.md).
package distcheck

import (
	"debug/buildinfo"
	"debug/macho"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"
)

// darwinSystemLibraries are the only libraries a pure-Go (CGO_ENABLED=0)
// darwin program loads: Go calls the kernel through libSystem, the resolver
// through libresolv, and crypto/x509 reads the system's roots through
// CoreFoundation and Security. All ship with every macOS. Anything else (a
// GUI framework, a Homebrew dylib) means the build is not the headless one.
var darwinSystemLibraries = []string{
	"/usr/lib/libSystem.B.dylib",
	"/usr/lib/libresolv.9.dylib",
	"/System/Library/Frameworks/CoreFoundation.framework/Versions/A/CoreFoundation",
	"/System/Library/Frameworks/Security.framework/Versions/A/Security",
}

var darwinCPU = map[string]macho.Cpu{"amd64": macho.CpuAmd64, "arm64": macho.CpuArm64}

// CheckDarwinHeadless checks that the file at path is the headless
// mcp-router for darwin/goarch: a thin Mach-O executable of that CPU, built
// by Go for GOOS=darwin with CGO_ENABLED=0 and the nogui tag, loading only
// darwinSystemLibraries. It returns the libraries it loads.
func CheckDarwinHeadless(path, goarch string) ([]string, error) {
	cpu, ok := darwinCPU[goarch]
	if !ok {
		return nil, fmt.Errorf("no darwin CPU known for GOARCH %q (amd64, arm64)", goarch)
	}
	f, err := macho.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s is not a thin Mach-O file: %w", path, err)
	}
	defer f.Close()
	if f.Cpu != cpu {
		return nil, fmt.Errorf("%s is a Mach-O file for %v, want %v (%s)", path, f.Cpu, cpu, goarch)
	}
	if f.Type != macho.TypeExec {
		return nil, fmt.Errorf("%s is a Mach-O file of type %v, want an executable", path, f.Type)
	}
	libs, err := f.ImportedLibraries()
	if err != nil {
		return nil, fmt.Errorf("%s: reading its load commands: %w", path, err)
	}
	if err := checkDarwinLibraries(libs); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	info, err := buildinfo.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s has no Go build info: %w", path, err)
	}
	if err := checkHeadlessSettings(info.Settings, "darwin", goarch); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return libs, nil
}

// checkDarwinLibraries: libSystem, which every darwin program loads, and
// nothing outside darwinSystemLibraries.
func checkDarwinLibraries(libs []string) error {
	if !slices.Contains(libs, "/usr/lib/libSystem.B.dylib") {
		return fmt.Errorf("loads no /usr/lib/libSystem.B.dylib (libraries: %v)", libs)
	}
	for _, l := range libs {
		if !slices.Contains(darwinSystemLibraries, l) {
			return fmt.Errorf("loads %s, beyond the system libraries a pure-Go program loads (%s)", l, strings.Join(darwinSystemLibraries, ", "))
		}
	}
	return nil
}

// checkHeadlessSettings reads the build settings Go records in every binary
// (go version -m): the target, no cgo and the nogui tag.
func checkHeadlessSettings(settings []debug.BuildSetting, goos, goarch string) error {
	got := map[string]string{}
	for _, s := range settings {
		got[s.Key] = s.Value
	}
	if got["GOOS"] != goos || got["GOARCH"] != goarch {
		return fmt.Errorf("built for %s/%s, want %s/%s", got["GOOS"], got["GOARCH"], goos, goarch)
	}
	if got["CGO_ENABLED"] != "0" {
		return fmt.Errorf("built with CGO_ENABLED=%q, want 0 (the headless build is pure Go)", got["CGO_ENABLED"])
	}
	if !slices.Contains(strings.Split(got["-tags"], ","), "nogui") {
		return fmt.Errorf("built with -tags %q, without nogui (the desktop build, not the headless one)", got["-tags"])
	}
	return nil
}
