package appapi

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-router/mcp-router/backend/bundle"
	"github.com/mcp-router/mcp-router/backend/secrets"
	"github.com/mcp-router/mcp-router/backend/settings"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/upstream"
	"github.com/mcp-router/mcp-router/internal/testbundles"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// uploadFile sends file through Begin/AppendBundleUpload in chunks of n
// bytes, as the Servers page does, and returns the upload's id.
func uploadFile(t *testing.T, a *API, file string, n int) string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	id, err := a.BeginBundleUpload()
	if err != nil {
		t.Fatal(err)
	}
	for len(data) > 0 {
		k := min(n, len(data))
		if _, err := a.AppendBundleUpload(id, base64.StdEncoding.EncodeToString(data[:k])); err != nil {
			t.Fatal(err)
		}
		data = data[k:]
	}
	return id
}

// The Servers page's bundle install: a bundle packed by mcpb, sent in
// chunks, is previewed (name, version, author, signature, tools, the
// user_config form), installed with the form's values (the sensitive one
// into the secrets store, not the definition), runs with them, keeps its
// bundle through an edit, and RemoveServer deletes its files and value.
func TestInstallBundleThroughTheUIAPI(t *testing.T) {
	t.Setenv(secrets.EnvStore, secrets.InFile)
	f := newFixture(t)
	file := testbundles.Echo(t)
	testbundles.Sign(t, file)
	id := uploadFile(t, f.api, file, 700)

	p, err := f.api.InspectBundle(id)
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "bundle-echo" || p.Version != "1.2.3" || p.Author != "Test Author" || p.ServerType != "node" || p.ServerName != "bundle-echo" ||
		p.Signature.Status != bundle.SelfSigned || len(p.Tools) != 1 || p.Tools[0].Name != "show_config" {
		t.Fatalf("preview = %+v", p)
	}
	keys := []string{}
	for _, o := range p.UserConfig {
		keys = append(keys, o.Key)
		if o.Key == "api_key" && (!o.Sensitive || !o.Required) || o.Key == "greeting" && (len(o.Default) != 1 || o.Default[0] != "hello") {
			t.Errorf("user_config entry %+v", o)
		}
	}
	if strings.Join(keys, ",") != "api_key,greeting,sdk_dir" {
		t.Fatalf("user_config keys %v", keys)
	}

	// A missing required value is named; the upload stays for a retry.
	if _, err := f.api.InstallBundle(id, "", map[string][]string{"sdk_dir": {testpeers.NodeModules(t)}, "api_key": {" "}}); err == nil || !strings.Contains(err.Error(), "api_key") {
		t.Fatalf("missing api_key: %v", err)
	}
	const key = "ui-bundle-key-5521"
	v, err := f.api.InstallBundle(id, "echo", map[string][]string{"api_key": {key}, "sdk_dir": {testpeers.NodeModules(t)}, "greeting": {""}})
	if err != nil {
		t.Fatal(err)
	}
	if v.Name != "echo" || v.Bundle == nil || v.Bundle.Name != "bundle-echo" || v.Bundle.Signature != bundle.SelfSigned || v.Bundle.SignedBy == "" {
		t.Fatalf("view = %+v (bundle %+v)", v, v.Bundle)
	}
	if _, err := f.api.InspectBundle(id); err == nil {
		t.Fatal("the upload outlived its install")
	}
	f.waitState(t, "echo", string(upstream.StateRunning))
	var got map[string]string
	if err := json.Unmarshal([]byte(toolText(t, f, "echo", "show_config")), &got); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(key))
	if got["apiKeySha256"] != hex.EncodeToString(sum[:]) || got["greeting"] != "hello" {
		t.Fatalf("the server got %v", got)
	}
	def, err := f.api.GetServer("echo")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(mustJSONString(t, def), key) {
		t.Fatal("GetServer shows the sensitive value")
	}
	// The edit form sends no bundle; the server stays the bundle's.
	def.Bundle = nil
	def.TimeoutSeconds = 30
	if _, err := f.api.UpdateServer("echo", def); err != nil {
		t.Fatal(err)
	}
	if def, _ = f.api.GetServer("echo"); def.Bundle == nil {
		t.Fatal("an edit dropped the bundle")
	}

	// A definition added by hand cannot claim the bundle (its removal
	// would delete the bundle's files).
	claim := spec.Server{Name: "claimer", Command: "true", Enabled: false, Bundle: &spec.Bundle{Name: "bundle-echo", Version: "1.2.3"}}
	if _, err := f.api.AddServer(claim); err != nil {
		t.Fatal(err)
	}
	if got, _ := f.api.GetServer("claimer"); got.Bundle != nil {
		t.Fatalf("AddServer stored a bundle claim: %+v", got.Bundle)
	}
	if err := f.api.RemoveServer("claimer"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(f.c.DataDir, "bundles", "bundle-echo", "1.2.3", "server", "index.js")); err != nil {
		t.Fatalf("removing another server took the bundle's files: %v", err)
	}

	if err := f.api.RemoveServer("echo"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(f.c.DataDir, "bundles", "bundle-echo")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("bundle files after RemoveServer: %v", err)
	}
	if data, err := os.ReadFile(filepath.Join(f.c.DataDir, secrets.ServerFileName)); err == nil && strings.Contains(string(data), key) {
		t.Fatal("the sensitive value outlived RemoveServer")
	}
}

// Uploads are bounded: a chunk past MaxBundleChunkBytes, an upload past
// the bundleMaxMB setting (then discarded), and a bundle with a ../ entry
// is refused at InspectBundle.
func TestBundleUploadCaps(t *testing.T) {
	f := newFixture(t)
	if err := f.c.Settings.Set(context.Background(), settings.KeyBundleMaxMB, "1"); err != nil {
		t.Fatal(err)
	}
	id, err := f.api.BeginBundleUpload()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.api.AppendBundleUpload(id, base64.StdEncoding.EncodeToString(make([]byte, MaxBundleChunkBytes+1))); err == nil || !strings.Contains(err.Error(), "MaxBundleChunkBytes") {
		t.Fatalf("big chunk: %v", err)
	}
	half := base64.StdEncoding.EncodeToString(make([]byte, 600<<10))
	if _, err := f.api.AppendBundleUpload(id, half); err != nil {
		t.Fatal(err)
	}
	if _, err := f.api.AppendBundleUpload(id, half); err == nil || !strings.Contains(err.Error(), "bundleMaxMB") {
		t.Fatalf("past bundleMaxMB: %v", err)
	}
	if _, err := f.api.AppendBundleUpload(id, half); err == nil || !strings.Contains(err.Error(), "no bundle upload") {
		t.Fatalf("an upload past the cap was kept: %v", err)
	}

	slip := testbundles.Zip(t, testbundles.Entry{Name: "manifest.json", Body: testbundles.EchoManifest(t, nil)},
		testbundles.Entry{Name: "../escape.js", Body: []byte("x")})
	if _, err := f.api.InspectBundle(uploadFile(t, f.api, slip, 1<<20)); err == nil || !strings.Contains(err.Error(), "leaves the bundle's folder") {
		t.Fatalf("../ entry: %v", err)
	}
}

func mustJSONString(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
