package bundle_test

import (
	"archive/zip"
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcp-router/mcp-router/backend/bundle"
	"github.com/mcp-router/mcp-router/internal/testbundles"
)

// FuzzRead: whatever the bytes, Read returns a bundle or an error and
// never panics; a bundle it accepts has a name and a version, and unpacks
// only inside its folder. Seeded with bundles packed (and signed) by the
// real mcpb and with hostile zips.
func FuzzRead(f *testing.F) {
	lim := bundle.Limits{MaxBytes: 4 << 20}
	packed := testbundles.Echo(f)
	signed := testbundles.Echo(f)
	testbundles.Sign(f, signed)
	for _, p := range []string{packed, signed} {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	manifest := `{"manifest_version":"0.3","name":"x","version":"1","description":"d","author":{"name":"a"},"server":{"type":"node","entry_point":"i.js","mcp_config":{"command":"node","args":["${__dirname}/i.js"]}}}`
	for _, entries := range [][][2]string{
		{{"manifest.json", manifest}},
		{{"manifest.json", manifest}, {"../x", "y"}},
		{{"manifest.json", manifest}, {"a/", ""}, {"a/b", "c"}},
		{{"manifest.json", "{"}},
		{{"a/../../b", "c"}},
	} {
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		for _, e := range entries {
			w, err := zw.Create(e[0])
			if err != nil {
				f.Fatal(err)
			}
			_, _ = w.Write([]byte(e[1]))
		}
		if err := zw.Close(); err != nil {
			f.Fatal(err)
		}
		f.Add(buf.Bytes())
		f.Add(append(bytes.Clone(buf.Bytes()), []byte("MCPB_SIG_V1\x04\x00\x00\x00abcdMCPB_SIG_END")...))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := bundle.Read(data, lim)
		if err != nil {
			return
		}
		if b.Manifest.Name == "" || b.Manifest.Version == "" {
			t.Fatalf("accepted a manifest without name or version: %+v", b.Manifest)
		}
		root := t.TempDir()
		_ = b.Unpack(filepath.Join(root, "b"), lim)
		entries, err := os.ReadDir(root)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if e.Name() != "b" {
				t.Fatalf("unpacking wrote %s beside the bundle's folder", e.Name())
			}
		}
	})
}
