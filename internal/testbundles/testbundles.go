// Package testbundles makes .mcpb bundles for tests: the echo bundle
// packed (and signed) by the real `mcpb` CLI of @anthropic-ai/mcpb, and
// hostile zips written with archive/zip that the CLI would never make.
package testbundles

import (
	"archive/zip"
	"bytes"
	"embed"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// The echo bundle's source: a node server (server/index.js) that reports
// the user_config values it got, and its manifest. Its user_config:
// api_key (sensitive, required; env API_KEY), greeting (default "hello";
// the server's first arg), sdk_dir (a directory, required; NODE_PATH, so
// the server finds @modelcontextprotocol/sdk: give testpeers.NodeModules).
//
//go:embed echo
var echoFS embed.FS

// EchoSource writes the echo bundle's source into a new folder, with
// edit applied to its manifest (nil: as it is), and returns the folder.
func EchoSource(t testing.TB, edit func(manifest []byte) []byte) string {
	t.Helper()
	dir := t.TempDir()
	err := fs.WalkDir(echoFS, "echo", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel("echo", p)
		target := filepath.Join(dir, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := echoFS.ReadFile(p)
		if err != nil {
			return err
		}
		if rel == "manifest.json" && edit != nil {
			data = edit(data)
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// Pack runs `mcpb pack` on the folder src and returns the .mcpb file.
func Pack(t testing.TB, src string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "bundle.mcpb")
	run(t, src, testpeers.MCPB(t), "pack", src, out)
	return out
}

// Echo is the echo bundle packed by `mcpb pack`.
func Echo(t testing.TB) string {
	t.Helper()
	return Pack(t, EchoSource(t, nil))
}

// Sign signs file in place with `mcpb sign --self-signed` (a new key and
// certificate in a temporary folder).
func Sign(t testing.TB, file string) {
	t.Helper()
	run(t, t.TempDir(), testpeers.MCPB(t), "sign", "--self-signed", file)
}

func run(t testing.TB, dir, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
}

// Entry is one entry of a crafted zip.
type Entry struct {
	Name   string
	Body   []byte
	Mode   os.FileMode // 0: a 0644 file
	Method uint16      // zip.Store or zip.Deflate (0 is Store)
}

// Zip writes entries as a zip, as given (no name is checked or cleaned),
// and returns the file.
func Zip(t testing.TB, entries ...Entry) string {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		h := &zip.FileHeader{Name: e.Name, Method: e.Method}
		mode := e.Mode
		if mode == 0 {
			mode = 0o644
		}
		h.SetMode(mode)
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(e.Body); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "crafted.mcpb")
	if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// EchoManifest is the echo bundle's manifest.json, with edit applied.
func EchoManifest(t testing.TB, edit func([]byte) []byte) []byte {
	t.Helper()
	data, err := echoFS.ReadFile("echo/manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		data = edit(data)
	}
	return data
}
