// Command check-darwin checks the darwin headless archives of make dist
// (package distcheck) and says what each binary loads:
//
//	go run ./internal/distcheck/cmd/check-darwin dist/mcp-router_*_darwin_*.tar.gz
//
// The architecture comes from the archive's name (…_darwin_<arch>.tar.gz).
package main

import (
	"archive/tar"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"

	"github.com/mcp-router/mcp-router/internal/distcheck"
)

var archiveName = regexp.MustCompile(`_darwin_(amd64|arm64)\.tar\.gz$`)

// maxBinary bounds what is unpacked: the headless binary is about 30 MB.
const maxBinary = 256 << 20

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: check-darwin ARCHIVE.tar.gz...")
		os.Exit(2)
	}
	failed := false
	for _, a := range os.Args[1:] {
		if err := check(a); err != nil {
			fmt.Fprintln(os.Stderr, "check-darwin: FAIL:", err)
			failed = true
		}
	}
	if failed {
		os.Exit(1)
	}
}

func check(archive string) error {
	m := archiveName.FindStringSubmatch(archive)
	if m == nil {
		return fmt.Errorf("%s: not named …_darwin_amd64.tar.gz or …_darwin_arm64.tar.gz", archive)
	}
	dir, err := os.MkdirTemp("", "check-darwin")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "mcp-router")
	if err := extract(archive, bin); err != nil {
		return err
	}
	libs, err := distcheck.CheckDarwinHeadless(bin, m[1])
	if err != nil {
		return fmt.Errorf("%s: %w", archive, err)
	}
	fmt.Printf("check-darwin: %s: Mach-O %s executable, CGO_ENABLED=0, -tags nogui, loads only %v\n", filepath.Base(archive), m[1], libs)
	return nil
}

// extract writes the archive's */mcp-router to dst.
func extract(archive, dst string) error {
	f, err := os.Open(archive)
	if err != nil {
		return err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("%s: %w", archive, err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return fmt.Errorf("%s has no mcp-router", archive)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", archive, err)
		}
		if h.Typeflag != tar.TypeReg || path.Base(h.Name) != "mcp-router" {
			continue
		}
		if h.Size > maxBinary {
			return fmt.Errorf("%s: mcp-router is %d bytes, over the %d this check unpacks", archive, h.Size, maxBinary)
		}
		out, err := os.Create(dst)
		if err != nil {
			return err
		}
		_, err = io.Copy(out, io.LimitReader(tr, maxBinary))
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		return err
	}
}
