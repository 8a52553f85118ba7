package bundle_test

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/zalando/go-keyring"

	"github.com/mcp-router/mcp-router/backend/bundle"
	"github.com/mcp-router/mcp-router/backend/secrets"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/internal/testbundles"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

func TestMain(m *testing.M) {
	keyring.MockInit() // the tests' secret values never reach the real keychain
	os.Exit(m.Run())
}

func installer(t *testing.T) *bundle.Installer {
	dataDir := t.TempDir()
	return &bundle.Installer{DataDir: dataDir, Secrets: secrets.NewServerValues(dataDir, nil), Limits: bundle.DefaultLimits()}
}

func echoAnswers(t *testing.T) bundle.Answers {
	return bundle.Answers{"api_key": {"sk-test-123"}, "sdk_dir": {testpeers.NodeModules(t)}}
}

// A bundle packed by the real `mcpb pack` is read (manifest, tools,
// unsigned), installed (unpacked under bundles/<name>/<version>, its
// sensitive value in the keychain and only its placeholder in the
// definition), runs with its user_config values, and is removed whole.
func TestInstallPackedBundle(t *testing.T) {
	file := testbundles.Echo(t)
	b, err := bundle.ReadFile(file, bundle.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	m := b.Manifest
	if m.Name != "bundle-echo" || m.Version != "1.2.3" || m.Author.Name != "Test Author" || len(m.Tools) != 1 || m.Tools[0].Name != "show_config" {
		t.Fatalf("manifest = %+v", m)
	}
	if b.Signature.Status != bundle.Unsigned {
		t.Fatalf("signature = %+v, want unsigned", b.Signature)
	}

	in := installer(t)
	var written spec.Server
	def, err := in.Install(b, bundle.InstallOptions{Answers: echoAnswers(t)}, func(d spec.Server) error { written = d; return nil })
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(in.DataDir, "bundles", "bundle-echo", "1.2.3")
	if _, err := os.Stat(filepath.Join(dir, "server", "index.js")); err != nil {
		t.Fatalf("unpacked files: %v", err)
	}
	if def.Name != "bundle-echo" || def.Command != "node" || def.Cwd != dir || def.Args[0] != dir+"/server/index.js" || def.Args[1] != "hello" {
		t.Fatalf("server = %+v", def)
	}
	if strings.Contains(mustJSON(t, written), "sk-test-123") {
		t.Fatalf("the sensitive value reached the stored definition: %s", mustJSON(t, written))
	}
	if len(written.SecretEnv) != 1 || written.SecretEnv[0] != "API_KEY" {
		t.Fatalf("secretEnv = %v, want [API_KEY]", written.SecretEnv)
	}
	if bi := written.Bundle; bi == nil || bi.Name != "bundle-echo" || bi.Version != "1.2.3" || bi.Author != "Test Author" || bi.Signature != bundle.Unsigned ||
		len(bi.Tools) != 1 || bi.Tools[0].Name != "show_config" {
		t.Fatalf("bundle info = %+v", written.Bundle)
	}

	resolved, err := in.Secrets.Resolve(written)
	if err != nil {
		t.Fatal(err)
	}
	got := callShowConfig(t, resolved)
	if got["apiKeySha256"] != sha256hex("sk-test-123") || got["greeting"] != "hello" {
		t.Fatalf("the server got %v", got)
	}

	// Installing it again is refused while it is installed.
	if _, err := in.Install(b, bundle.InstallOptions{Name: "other", Answers: echoAnswers(t)}, func(spec.Server) error { return nil }); err == nil || !strings.Contains(err.Error(), "already installed") {
		t.Fatalf("second install: %v", err)
	}

	if err := in.Remove(written); err != nil {
		t.Fatal(err)
	}
	if err := in.Secrets.Forget(written); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(in.DataDir, "bundles", "bundle-echo")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("bundle folder after remove: %v", err)
	}
	if _, err := in.Secrets.Resolve(written); !errors.Is(err, secrets.ErrNotFound) {
		t.Fatalf("secret after remove: %v, want not found", err)
	}
}

// callShowConfig runs def as the router would and calls its show_config.
func callShowConfig(t *testing.T, def spec.Server) map[string]string {
	t.Helper()
	env := os.Environ()
	for k, v := range def.Env {
		env = append(env, k+"="+v)
	}
	c, err := client.NewStdioMCPClient(def.Command, env, def.Args...)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{}); err != nil {
		t.Fatal(err)
	}
	res, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "show_config"}})
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]string
	if err := json.Unmarshal([]byte(res.Content[0].(mcp.TextContent).Text), &got); err != nil {
		t.Fatal(err)
	}
	return got
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A bundle signed by `mcpb sign --self-signed` reads as self-signed with
// its certificate named; one byte changed after signing refuses it.
func TestSignedBundle(t *testing.T) {
	file := testbundles.Echo(t)
	testbundles.Sign(t, file)
	b, err := bundle.ReadFile(file, bundle.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	if b.Signature.Status != bundle.SelfSigned || b.Signature.Publisher == "" || len(b.Signature.Fingerprint) != 64 {
		t.Fatalf("signature = %+v, want self-signed with a publisher and a fingerprint", b.Signature)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	// Change a byte of the zip (inside manifest.json's stored bytes would
	// also break the zip's CRC; a byte of the central directory's comment
	// area keeps the zip readable): the last byte before the signature.
	sigAt := bytes.LastIndex(data, []byte("MCPB_SIG_V1"))
	for _, at := range []int{sigAt - 1, 10} {
		tampered := bytes.Clone(data)
		tampered[at] ^= 0xff
		if _, err := bundle.Read(tampered, bundle.DefaultLimits()); !errors.Is(err, bundle.ErrInvalid) || !strings.Contains(err.Error(), "does not verify") {
			t.Fatalf("tampered at %d: %v, want refused as a signature that does not verify", at, err)
		}
	}
	// A signature block with a forged length is refused, not read as unsigned.
	forged := bytes.Clone(data)
	forged[sigAt+len("MCPB_SIG_V1")] ^= 0x01
	if _, err := bundle.Read(forged, bundle.DefaultLimits()); !errors.Is(err, bundle.ErrInvalid) {
		t.Fatalf("forged length: %v, want refused", err)
	}
}

// Zips that would write outside the bundle's folder, or hold links, are
// refused before anything is written.
func TestHostileZipPaths(t *testing.T) {
	manifest := testbundles.EchoManifest(t, nil)
	for _, tc := range []struct {
		name  string
		entry testbundles.Entry
		want  string
	}{
		{"dot-dot", testbundles.Entry{Name: "../evil.js", Body: []byte("x")}, "leaves the bundle's folder"},
		{"nested dot-dot", testbundles.Entry{Name: "server/../../evil.js", Body: []byte("x")}, "leaves the bundle's folder"},
		{"absolute", testbundles.Entry{Name: "/tmp/evil.js", Body: []byte("x")}, "absolute path"},
		{"backslash", testbundles.Entry{Name: `..\evil.js`, Body: []byte("x")}, "backslash"},
		{"drive", testbundles.Entry{Name: "C:/evil.js", Body: []byte("x")}, "drive letter"},
		{"symlink", testbundles.Entry{Name: "server/link", Body: []byte("/etc/passwd"), Mode: os.ModeSymlink | 0o777}, "symbolic link"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := testbundles.Zip(t, testbundles.Entry{Name: "manifest.json", Body: manifest}, tc.entry)
			_, err := bundle.ReadFile(file, bundle.DefaultLimits())
			if !errors.Is(err, bundle.ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want refused with %q", err, tc.want)
			}
		})
	}
}

// A zip bomb (an entry inflating far past its packed size), a bundle
// past the unpacked-size cap and one past the entry cap are refused, each
// naming its cap.
func TestZipCaps(t *testing.T) {
	manifest := testbundles.Entry{Name: "manifest.json", Body: testbundles.EchoManifest(t, nil)}
	bomb := testbundles.Zip(t, manifest, testbundles.Entry{Name: "zeros.bin", Body: make([]byte, 64<<20), Method: 8})
	if _, err := bundle.ReadFile(bomb, bundle.DefaultLimits()); !errors.Is(err, bundle.ErrInvalid) || !strings.Contains(err.Error(), "MaxRatio") {
		t.Fatalf("zip bomb: %v, want refused naming MaxRatio", err)
	}
	big := testbundles.Zip(t, manifest, testbundles.Entry{Name: "data.bin", Body: bytes.Repeat([]byte("0123456789abcdef"), 1<<17)}) // 2 MiB stored
	if _, err := bundle.ReadFile(big, bundle.Limits{MaxBytes: 1 << 20}); !errors.Is(err, bundle.ErrInvalid) || !strings.Contains(err.Error(), "bundleMaxMB") {
		t.Fatalf("over the size cap: %v, want refused naming bundleMaxMB", err)
	}
	many := []testbundles.Entry{manifest}
	for i := 0; i <= bundle.MaxEntries; i++ {
		many = append(many, testbundles.Entry{Name: "f/" + strconv.Itoa(i)})
	}
	if _, err := bundle.ReadFile(testbundles.Zip(t, many...), bundle.DefaultLimits()); !errors.Is(err, bundle.ErrInvalid) || !strings.Contains(err.Error(), "MaxEntries") {
		t.Fatalf("too many entries: %v, want refused naming MaxEntries", err)
	}
}

// Manifests the schema refuses, or that the router cannot run, are refused
// with what is wrong.
func TestBadManifests(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func([]byte) []byte
		want string
	}{
		{"no author", func(b []byte) []byte { return bytes.Replace(b, []byte(`"author": {"name": "Test Author"},`), nil, 1) }, "author"},
		{"unknown version", func(b []byte) []byte { return bytes.Replace(b, []byte(`"0.3"`), []byte(`"9.9"`), 1) }, `manifest_version "9.9"`},
		{"bad server type", func(b []byte) []byte { return bytes.Replace(b, []byte(`"type": "node"`), []byte(`"type": "ruby"`), 1) }, "/server/type"},
		{"not JSON", func([]byte) []byte { return []byte("{") }, "not JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := testbundles.Zip(t, testbundles.Entry{Name: "manifest.json", Body: testbundles.EchoManifest(t, tc.edit)})
			_, err := bundle.ReadFile(file, bundle.DefaultLimits())
			if !errors.Is(err, bundle.ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want refused with %q", err, tc.want)
			}
		})
	}
	if _, err := bundle.ReadFile(testbundles.Zip(t, testbundles.Entry{Name: "README", Body: []byte("x")}), bundle.DefaultLimits()); err == nil || !strings.Contains(err.Error(), "no manifest.json") {
		t.Fatalf("no manifest: %v", err)
	}
}

// A missing required user_config value, an unknown key, a value of the
// wrong type and a missing runtime are refused before anything is
// unpacked.
func TestInstallRefusals(t *testing.T) {
	b, err := bundle.ReadFile(testbundles.Echo(t), bundle.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	in := installer(t)
	noWrite := func(spec.Server) error { t.Fatal("nothing may be stored"); return nil }

	_, err = in.Install(b, bundle.InstallOptions{Answers: bundle.Answers{"sdk_dir": {testpeers.NodeModules(t)}}}, noWrite)
	var miss *bundle.MissingError
	if !errors.As(err, &miss) || len(miss.Keys) != 1 || miss.Keys[0] != "api_key" {
		t.Fatalf("missing api_key: %v", err)
	}
	if _, err := in.Install(b, bundle.InstallOptions{Answers: bundle.Answers{"api_key": {"k"}, "sdk_dir": {testpeers.NodeModules(t)}, "nope": {"1"}}}, noWrite); err == nil || !strings.Contains(err.Error(), `no entry "nope"`) {
		t.Fatalf("unknown key: %v", err)
	}
	if _, err := in.Install(b, bundle.InstallOptions{Answers: bundle.Answers{"api_key": {"k"}, "sdk_dir": {"relative/dir"}}}, noWrite); err == nil || !strings.Contains(err.Error(), "absolute path") {
		t.Fatalf("relative directory: %v", err)
	}
	noNode := *in
	noNode.LookPath = func(string) (string, error) { return "", errors.New("not found") }
	if _, err := noNode.Install(b, bundle.InstallOptions{Answers: echoAnswers(t)}, noWrite); err == nil || !strings.Contains(err.Error(), "install Node.js") {
		t.Fatalf("no node: %v", err)
	}
	if entries, _ := os.ReadDir(filepath.Join(in.DataDir, "bundles")); len(entries) != 0 {
		t.Fatalf("refused installs left %v", entries)
	}
	// A failed save leaves no folder behind.
	if _, err := in.Install(b, bundle.InstallOptions{Answers: echoAnswers(t)}, func(spec.Server) error { return errors.New("disk full") }); err == nil {
		t.Fatal("a failed write installed")
	}
	if _, err := os.Stat(bundle.Dir(in.DataDir, "bundle-echo", "1.2.3")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("folder after a failed save: %v", err)
	}
}

// A manifest's name and version cannot steer the bundle's folder out of
// the data dir's bundles folder.
func TestDirStaysInside(t *testing.T) {
	base := filepath.Join("/data", "bundles")
	for _, nv := range [][2]string{{"../../etc", "1"}, {"..", ".."}, {"a/b", "/abs"}, {"", ""}, {`..\..`, "1"}} {
		d := bundle.Dir("/data", nv[0], nv[1])
		rel, err := filepath.Rel(base, d)
		if err != nil || !filepath.IsLocal(rel) || strings.Count(rel, string(filepath.Separator)) != 1 {
			t.Errorf("Dir(%q, %q) = %s, outside %s", nv[0], nv[1], d, base)
		}
	}
}

func sha256hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// An entry whose header declares fewer bytes than it inflates to (the
// caps read declared sizes first) is stopped while it is written
// (archive/zip's reader refuses the excess; writeEntry's limit to the
// declared size backs it), and the install leaves nothing.
func TestLyingEntrySize(t *testing.T) {
	real := make([]byte, 3<<20)
	var comp bytes.Buffer
	fw, err := flate.NewWriter(&comp, flate.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = fw.Write(real)
	_ = fw.Close()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	mw, _ := zw.Create("manifest.json")
	_, _ = mw.Write(testbundles.EchoManifest(t, nil))
	h := &zip.FileHeader{Name: "server/index.js", Method: zip.Deflate, CRC32: crc32.ChecksumIEEE(real),
		CompressedSize64: uint64(comp.Len()), UncompressedSize64: 100}
	w, err := zw.CreateRaw(h)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = w.Write(comp.Bytes())
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := bundle.Read(buf.Bytes(), bundle.DefaultLimits())
	if err != nil {
		t.Fatalf("the declared sizes pass the caps, so Read accepts it: %v", err)
	}
	in := installer(t)
	_, err = in.Install(b, bundle.InstallOptions{Answers: echoAnswers(t)}, func(spec.Server) error { t.Fatal("stored"); return nil })
	t.Logf("refused: %v", err)
	if !errors.Is(err, bundle.ErrInvalid) || !strings.Contains(err.Error(), "server/index.js") {
		t.Fatalf("install of a lying entry: %v", err)
	}
	if entries, _ := os.ReadDir(filepath.Join(in.DataDir, "bundles", "bundle-echo")); len(entries) != 0 {
		t.Fatalf("a refused install left %v", entries)
	}
}

// A binary server's command, one of the bundle's files, is made
// executable (zips often lose the bit); a command naming a file the
// bundle lacks is refused; a bundle's `python` runs on python3 where only
// that is on PATH.
func TestRuntimes(t *testing.T) {
	binary := func(command string) []byte {
		return testbundles.EchoManifest(t, func(b []byte) []byte {
			b = bytes.Replace(b, []byte(`"type": "node"`), []byte(`"type": "binary"`), 1)
			b = bytes.Replace(b, []byte(`"entry_point": "server/index.js"`), []byte(`"entry_point": "server/run"`), 1)
			return bytes.Replace(b, []byte(`"command": "node"`), []byte(`"command": "`+command+`"`), 1)
		})
	}
	file := testbundles.Zip(t, testbundles.Entry{Name: "manifest.json", Body: binary("${__dirname}/server/run")},
		testbundles.Entry{Name: "server/run", Body: []byte("#!/bin/sh\nexit 0\n"), Mode: 0o644})
	b, err := bundle.ReadFile(file, bundle.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	in := installer(t)
	def, err := in.Install(b, bundle.InstallOptions{Answers: echoAnswers(t)}, func(spec.Server) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(def.Command)
	if err != nil || st.Mode().Perm()&0o100 == 0 {
		t.Fatalf("the binary %s: %v, mode %v; want executable", def.Command, err, st.Mode())
	}

	missing := testbundles.Zip(t, testbundles.Entry{Name: "manifest.json", Body: binary("${__dirname}/server/nope")})
	b, err = bundle.ReadFile(missing, bundle.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	in = installer(t)
	if _, err := in.Install(b, bundle.InstallOptions{Answers: echoAnswers(t)}, func(spec.Server) error { t.Fatal("stored"); return nil }); err == nil || !strings.Contains(err.Error(), "not one of its files") {
		t.Fatalf("missing command file: %v", err)
	}

	py := testbundles.Zip(t, testbundles.Entry{Name: "manifest.json", Body: testbundles.EchoManifest(t, func(b []byte) []byte {
		b = bytes.Replace(b, []byte(`"type": "node"`), []byte(`"type": "python"`), 1)
		return bytes.Replace(b, []byte(`"command": "node"`), []byte(`"command": "python"`), 1)
	})})
	b, err = bundle.ReadFile(py, bundle.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	in = installer(t)
	in.LookPath = func(name string) (string, error) {
		if name == "python3" {
			return "/usr/bin/python3", nil
		}
		return "", errors.New("not found")
	}
	if def, err = in.Install(b, bundle.InstallOptions{Answers: echoAnswers(t)}, func(spec.Server) error { return nil }); err != nil || def.Command != "python3" {
		t.Fatalf("python on a python3-only PATH: %q, %v", def.Command, err)
	}
}
