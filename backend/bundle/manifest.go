package bundle

import (
	"archive/zip"
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

var printer = message.NewPrinter(language.English)

// The manifest schemas of @anthropic-ai/mcpb 2.1.2 (schemas/README.md).
//
//go:embed schemas/*.json
var schemaFS embed.FS

// ManifestVersions are the manifest_version values this build reads.
var ManifestVersions = []string{"0.1", "0.2", "0.3", "0.4"}

// Manifest is what the router uses of manifest.json; the schema checks the
// rest.
type Manifest struct {
	ManifestVersion string                `json:"manifest_version,omitempty"`
	DXTVersion      string                `json:"dxt_version,omitempty"`
	Name            string                `json:"name"`
	DisplayName     string                `json:"display_name,omitempty"`
	Version         string                `json:"version"`
	Description     string                `json:"description"`
	Author          Author                `json:"author"`
	Server          Server                `json:"server"`
	Tools           []Tool                `json:"tools,omitempty"`
	UserConfig      map[string]UserOption `json:"user_config,omitempty"`
	Compatibility   *Compatibility        `json:"compatibility,omitempty"`
}

// Author of a bundle.
type Author struct {
	Name  string `json:"name"`
	Email string `json:"email,omitempty"`
	URL   string `json:"url,omitempty"`
}

// Server says how to run a bundle's server.
type Server struct {
	Type       string    `json:"type"` // node, python, binary or uv
	EntryPoint string    `json:"entry_point"`
	MCPConfig  MCPConfig `json:"mcp_config"`
}

// MCPConfig is the command line of a bundle's server, with ${…} variables.
type MCPConfig struct {
	Command           string               `json:"command"`
	Args              []string             `json:"args,omitempty"`
	Env               map[string]string    `json:"env,omitempty"`
	PlatformOverrides map[string]MCPConfig `json:"platform_overrides,omitempty"`
}

// Tool a manifest declares.
type Tool struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// UserOption is one user_config entry: a value the user gives at install.
type UserOption struct {
	Type        string   `json:"type"` // string, number, boolean, directory, file
	Title       string   `json:"title"`
	Description string   `json:"description"`
	Required    bool     `json:"required,omitempty"`
	Sensitive   bool     `json:"sensitive,omitempty"`
	Multiple    bool     `json:"multiple,omitempty"`
	Default     any      `json:"default,omitempty"`
	Min         *float64 `json:"min,omitempty"`
	Max         *float64 `json:"max,omitempty"`
}

// Compatibility a manifest declares.
type Compatibility struct {
	Platforms []string          `json:"platforms,omitempty"`
	Runtimes  map[string]string `json:"runtimes,omitempty"`
}

// UserConfigKeys are m's user_config keys, sorted.
func (m Manifest) UserConfigKeys() []string {
	keys := make([]string, 0, len(m.UserConfig))
	for k := range m.UserConfig {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// readManifest reads and validates manifest.json at the zip's root.
func readManifest(zr *zip.Reader) (Manifest, error) {
	var mf *zip.File
	for _, f := range zr.File {
		if f.Name == "manifest.json" {
			mf = f
			break
		}
	}
	if mf == nil {
		return Manifest{}, invalid("no manifest.json at the zip's root")
	}
	if mf.UncompressedSize64 > MaxManifestBytes {
		return Manifest{}, invalid("manifest.json is %d bytes, over the cap of %d (MaxManifestBytes)", mf.UncompressedSize64, MaxManifestBytes)
	}
	rc, err := mf.Open()
	if err != nil {
		return Manifest{}, invalid("manifest.json: %v", err)
	}
	defer rc.Close()
	raw, err := io.ReadAll(io.LimitReader(rc, MaxManifestBytes+1))
	if err != nil {
		return Manifest{}, invalid("manifest.json: %v", err)
	}
	if len(raw) > MaxManifestBytes {
		return Manifest{}, invalid("manifest.json is over %d bytes, the cap (MaxManifestBytes)", MaxManifestBytes)
	}
	return ParseManifest(raw)
}

// ParseManifest validates raw against the schema of its manifest_version
// (or the older dxt_version) and decodes it.
func ParseManifest(raw []byte) (Manifest, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return Manifest{}, invalid("manifest.json is not JSON: %v", err)
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		return Manifest{}, invalid("manifest.json is not a JSON object")
	}
	version, _ := obj["manifest_version"].(string)
	if version == "" {
		version, _ = obj["dxt_version"].(string)
	}
	if !contains(ManifestVersions, version) {
		return Manifest{}, invalid("manifest.json: manifest_version %q is not one this router reads (%s)", version, strings.Join(ManifestVersions, ", "))
	}
	sch, err := manifestSchema(version)
	if err != nil {
		return Manifest{}, err
	}
	if err := sch.Validate(doc); err != nil {
		return Manifest{}, invalid("manifest.json does not match the manifest %s schema: %s", version, schemaProblem(err))
	}
	var m Manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		return Manifest{}, invalid("manifest.json: %v", err)
	}
	if m.ManifestVersion == "" {
		m.ManifestVersion = version
	}
	if err := m.check(); err != nil {
		return Manifest{}, err
	}
	return m, nil
}

// check holds what the schema leaves open and the router needs.
func (m Manifest) check() error {
	if strings.TrimSpace(m.Name) == "" || strings.TrimSpace(m.Version) == "" {
		return invalid("manifest.json: name and version must not be empty")
	}
	if strings.TrimSpace(m.Server.MCPConfig.Command) == "" {
		return invalid("manifest.json: server.mcp_config.command is empty")
	}
	for k := range m.UserConfig {
		if k == "" || strings.ContainsAny(k, "{}$ \t\n") {
			return invalid("manifest.json: user_config key %q must be a plain name", k)
		}
	}
	return nil
}

func manifestSchema(version string) (*jsonschema.Schema, error) {
	file := "schemas/mcpb-manifest-v" + version + ".schema.json"
	raw, err := schemaFS.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("manifest schema %s: %w", version, err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("manifest schema %s: %w", version, err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(file, doc); err != nil {
		return nil, fmt.Errorf("manifest schema %s: %w", version, err)
	}
	return c.Compile(file)
}

// schemaProblem words a validation error by its innermost failures.
func schemaProblem(err error) string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err.Error()
	}
	var parts []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		parts = append(parts, "at /"+strings.Join(e.InstanceLocation, "/")+": "+e.ErrorKind.LocalizedString(printer))
	}
	walk(ve)
	if len(parts) > 5 {
		parts = append(parts[:5], fmt.Sprintf("and %d more", len(parts)-5))
	}
	return strings.Join(parts, "; ")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
