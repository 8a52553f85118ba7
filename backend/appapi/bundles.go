package appapi

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mcp-router/mcp-router/backend/bundle"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/store"
)

// The Servers page installs a .mcpb bundle (docs/bundles.md) the user
// drops or picks: the page reads the file and sends it in chunks (one UI
// call's body is capped at MaxCallBytes), then shows what InspectBundle
// says and installs it with the user's user_config answers. Both shells do
// the same, so a dropped file needs no Wails file-drop hook.

// Caps of bundle uploads (docs/limits.md, "Bundles").
const (
	// MaxBundleChunkBytes bounds one AppendBundleUpload chunk, decoded.
	MaxBundleChunkBytes = 2 << 20
	// MaxBundleUploads bounds the uploads held at once; the oldest past it
	// is discarded.
	MaxBundleUploads = 4
	// bundleUploadTTL: an upload not installed by then is discarded.
	bundleUploadTTL = time.Hour
)

// BundlePreview is what the install dialog shows of a bundle.
type BundlePreview struct {
	Name        string             `json:"name"`
	DisplayName string             `json:"displayName,omitempty"`
	Version     string             `json:"version"`
	Description string             `json:"description"`
	Author      string             `json:"author"`
	ServerType  string             `json:"serverType"` // node, python, binary, uv
	Signature   bundle.Signature   `json:"signature"`
	Tools       []spec.BundleTool  `json:"tools"`
	UserConfig  []BundleUserOption `json:"userConfig"`
	// ServerName is the name the server gets unless the user gives another.
	ServerName string `json:"serverName"`
}

// BundleUserOption is one user_config entry of the dialog's form.
type BundleUserOption struct {
	Key         string   `json:"key"`
	Type        string   `json:"type"` // string, number, boolean, directory, file
	Title       string   `json:"title"`
	Description string   `json:"description"`
	Required    bool     `json:"required"`
	Sensitive   bool     `json:"sensitive"`
	Multiple    bool     `json:"multiple"`
	Default     []string `json:"default"`
}

type bundleUpload struct {
	file    string
	size    int64
	started time.Time
}

// bundleUploads are the uploads in progress, by id.
type bundleUploads struct {
	mu sync.Mutex
	m  map[string]*bundleUpload
}

func (u *bundleUploads) closeAll() {
	u.mu.Lock()
	defer u.mu.Unlock()
	for id, up := range u.m {
		_ = os.Remove(up.file)
		delete(u.m, id)
	}
}

// BeginBundleUpload starts an upload of a .mcpb file and returns its id.
func (a *API) BeginBundleUpload() (string, error) {
	dir := filepath.Join(a.core.DataDir, bundle.DirName)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	f, err := os.CreateTemp(dir, ".upload-*.mcpb")
	if err != nil {
		return "", err
	}
	_ = f.Close()
	var raw [12]byte
	_, _ = rand.Read(raw[:])
	id := hex.EncodeToString(raw[:])
	u := &a.uploads
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.m == nil {
		u.m = map[string]*bundleUpload{}
	}
	for oid, up := range u.m { // the stale, then the oldest past the cap
		if time.Since(up.started) > bundleUploadTTL {
			_ = os.Remove(up.file)
			delete(u.m, oid)
		}
	}
	for len(u.m) >= MaxBundleUploads {
		ids := make([]string, 0, len(u.m))
		for oid := range u.m {
			ids = append(ids, oid)
		}
		sort.Slice(ids, func(i, j int) bool { return u.m[ids[i]].started.Before(u.m[ids[j]].started) })
		_ = os.Remove(u.m[ids[0]].file)
		delete(u.m, ids[0])
	}
	u.m[id] = &bundleUpload{file: f.Name(), started: time.Now()}
	return id, nil
}

func (a *API) upload(id string) (*bundleUpload, error) {
	up, ok := a.uploads.m[id]
	if !ok {
		return nil, fmt.Errorf("no bundle upload %q (it was installed, discarded, or is over %v old): drop the file again", id, bundleUploadTTL)
	}
	return up, nil
}

// AppendBundleUpload adds a chunk (base64) to upload id and returns the
// upload's size so far. The whole is capped by the bundleMaxMB setting.
func (a *API) AppendBundleUpload(id string, chunk string) (int64, error) {
	if len(chunk) > base64.StdEncoding.EncodedLen(MaxBundleChunkBytes) {
		return 0, fmt.Errorf("%w: a chunk is over %d bytes, the cap (MaxBundleChunkBytes)", bundle.ErrInvalid, MaxBundleChunkBytes)
	}
	data, err := base64.StdEncoding.DecodeString(chunk)
	if err != nil {
		return 0, fmt.Errorf("%w: the chunk is not base64: %v", bundle.ErrInvalid, err)
	}
	if len(data) > MaxBundleChunkBytes {
		return 0, fmt.Errorf("%w: a chunk is over %d bytes, the cap (MaxBundleChunkBytes)", bundle.ErrInvalid, MaxBundleChunkBytes)
	}
	a.uploads.mu.Lock()
	defer a.uploads.mu.Unlock()
	up, err := a.upload(id)
	if err != nil {
		return 0, err
	}
	if max := a.core.Settings.BundleMaxBytes(bg()); up.size+int64(len(data)) > max {
		_ = os.Remove(up.file)
		delete(a.uploads.m, id)
		return 0, fmt.Errorf("%w: the file is over %d MB, the cap (setting bundleMaxMB)", bundle.ErrInvalid, max>>20)
	}
	f, err := os.OpenFile(up.file, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return 0, err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, err
	}
	up.size += int64(len(data))
	return up.size, nil
}

// DiscardBundleUpload drops upload id (the dialog was cancelled).
func (a *API) DiscardBundleUpload(id string) error {
	a.uploads.mu.Lock()
	defer a.uploads.mu.Unlock()
	up, err := a.upload(id)
	if err != nil {
		return nil // gone already
	}
	delete(a.uploads.m, id)
	return os.Remove(up.file)
}

func (a *API) readUpload(id string) (*bundle.Bundle, bundle.Limits, error) {
	a.uploads.mu.Lock()
	up, err := a.upload(id)
	a.uploads.mu.Unlock()
	if err != nil {
		return nil, bundle.Limits{}, err
	}
	lim := bundle.Limits{MaxBytes: a.core.Settings.BundleMaxBytes(bg())}
	b, err := bundle.ReadFile(up.file, lim)
	return b, lim, err
}

// InspectBundle reads upload id as a bundle: its manifest, signature,
// tools and user_config form. A bundle that fails a check (a path leaving
// its folder, a cap, its manifest, its signature) is an error.
func (a *API) InspectBundle(id string) (BundlePreview, error) {
	b, _, err := a.readUpload(id)
	if err != nil {
		return BundlePreview{}, err
	}
	m := b.Manifest
	p := BundlePreview{Name: m.Name, DisplayName: m.DisplayName, Version: m.Version, Description: m.Description,
		Author: m.Author.Name, ServerType: m.Server.Type, Signature: b.Signature, ServerName: bundle.ServerName(m.Name),
		Tools: []spec.BundleTool{}, UserConfig: []BundleUserOption{}}
	for _, t := range m.Tools {
		p.Tools = append(p.Tools, spec.BundleTool{Name: t.Name, Description: t.Description})
	}
	for _, k := range m.UserConfigKeys() {
		o := m.UserConfig[k]
		p.UserConfig = append(p.UserConfig, BundleUserOption{Key: k, Type: o.Type, Title: o.Title, Description: o.Description,
			Required: o.Required, Sensitive: o.Sensitive, Multiple: o.Multiple, Default: bundle.Defaults(o, bundle.UserDirs())})
	}
	return p, nil
}

// InstallBundle installs upload id as server name ("" is the bundle's own
// name) with the user's user_config values (config: key → values; empty
// values are left out, so the defaults apply). Sensitive values go to the
// keychain. The upload is consumed when the install succeeds.
func (a *API) InstallBundle(id string, name string, config map[string][]string) (ServerView, error) {
	b, lim, err := a.readUpload(id)
	if err != nil {
		return ServerView{}, err
	}
	answers := bundle.Answers{}
	for k, vals := range config {
		for _, v := range vals {
			if strings.TrimSpace(v) != "" {
				answers[k] = append(answers[k], v)
			}
		}
	}
	if name = strings.TrimSpace(name); name == "" {
		name = bundle.ServerName(b.Manifest.Name)
	}
	if err := a.core.Store.Servers().Free(bg(), name); err != nil {
		return ServerView{}, err
	}
	in := &bundle.Installer{DataDir: a.core.DataDir, Secrets: a.core.ServerSecrets, Limits: lim}
	var r store.Server
	if _, err := in.Install(b, bundle.InstallOptions{Name: name, Answers: answers}, func(def spec.Server) (err error) {
		r, err = a.core.Store.Servers().Create(bg(), def)
		return err
	}); err != nil {
		return ServerView{}, err
	}
	_ = a.DiscardBundleUpload(id)
	return a.applied(r.Server)
}

// removeBundleFiles deletes the files of the bundle def came from.
func (a *API) removeBundleFiles(def spec.Server) {
	if err := (&bundle.Installer{DataDir: a.core.DataDir}).Remove(def); err != nil && !errors.Is(err, os.ErrNotExist) {
		a.core.Log.Warnf("remove the files of bundle %s: %v", def.Bundle.Name, err)
	}
}
