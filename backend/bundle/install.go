package bundle

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/mcp-router/mcp-router/backend/secrets"
	"github.com/mcp-router/mcp-router/backend/spec"
)

// DirName is the data dir's folder of unpacked bundles.
const DirName = "bundles"

// Installer installs bundles as servers of one data dir.
type Installer struct {
	DataDir string
	Secrets *secrets.ServerValues // where sensitive user_config values go
	Limits  Limits
	// LookPath finds a runtime (node, python3, uv) on the user's PATH;
	// nil is exec.LookPath.
	LookPath func(string) (string, error)
	// Dirs are the values of ${HOME} and the like; nil is UserDirs().
	Dirs SystemDirs
}

// InstallOptions are the user's choices for one install.
type InstallOptions struct {
	Name    string  // the server's name; "" is derived from the manifest's name
	Answers Answers // user_config values
}

// Dir is the folder of bundle name at version under dataDir. Both parts
// are reduced to safe file name characters, so a manifest cannot name a
// folder elsewhere.
func Dir(dataDir, name, version string) string {
	return filepath.Join(dataDir, DirName, safePart(name), safePart(version))
}

var unsafeRe = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

func safePart(s string) string {
	s = strings.TrimLeft(unsafeRe.ReplaceAllString(s, "-"), ".")
	if len(s) > 100 {
		s = s[:100]
	}
	if s == "" {
		return "_"
	}
	return s
}

var serverNameUnsafe = regexp.MustCompile(`[^A-Za-z0-9_-]+`)

// ServerName is the server name a bundle called name gets by default.
func ServerName(name string) string {
	s := strings.Trim(serverNameUnsafe.ReplaceAllString(name, "-"), "-_")
	if len(s) > 48 {
		s = strings.TrimRight(s[:48], "-_")
	}
	if s == "" {
		return "bundle"
	}
	return s
}

// Install unpacks b into its folder under the data dir and saves it, with
// write, as a stdio server: its sensitive values in the keychain, the
// rest in the definition write stores. On any failure nothing is left:
// neither the folder nor a value.
func (in *Installer) Install(b *Bundle, o InstallOptions, write func(spec.Server) error) (spec.Server, error) {
	m := b.Manifest
	dirs := in.Dirs
	if dirs == nil {
		dirs = UserDirs()
	}
	name := o.Name
	if name == "" {
		name = ServerName(m.Name)
	}
	vals, err := CheckAnswers(m, o.Answers, dirs)
	if err != nil {
		return spec.Server{}, err
	}
	dir := Dir(in.DataDir, m.Name, m.Version)
	def, err := Resolve(m, name, dir, vals, dirs)
	if err != nil {
		return spec.Server{}, err
	}
	def.Bundle.Signature = b.Signature.Status
	def.Bundle.SignedBy = b.Signature.Publisher
	def.Bundle.Fingerprint = b.Signature.Fingerprint
	if _, err := os.Lstat(dir); err == nil {
		return spec.Server{}, fmt.Errorf("%w: bundle %s %s is already installed in %s: remove its server first (mcp-router servers remove)", ErrInvalid, m.Name, m.Version, dir)
	}
	if err := in.checkRuntime(m.Server.Type, &def); err != nil {
		return spec.Server{}, err
	}
	if err := b.Unpack(dir, in.Limits); err != nil {
		return spec.Server{}, err
	}
	fail := func(err error) (spec.Server, error) {
		_ = in.removeDir(m.Name, m.Version)
		return spec.Server{}, err
	}
	if err := checkCommandFile(m.Server.Type, def.Command, dir); err != nil {
		return fail(err)
	}
	stored, err := in.Secrets.Save(nil, def, write)
	if err != nil {
		return fail(err)
	}
	return stored, nil
}

// checkRuntime finds the runtime a bare command names on PATH, with a
// clear error when it is missing; a bundle's `python` runs on python3
// where only python3 is installed.
func (in *Installer) checkRuntime(serverType string, def *spec.Server) error {
	if strings.ContainsAny(def.Command, `/\`) {
		return nil
	}
	look := in.LookPath
	if look == nil {
		look = exec.LookPath
	}
	if _, err := look(def.Command); err == nil {
		return nil
	}
	if def.Command == "python" {
		if _, err := look("python3"); err == nil {
			def.Command = "python3"
			return nil
		}
	}
	runtimeName := map[string]string{"node": "Node.js", "python": "Python 3", "uv": "uv"}[serverType]
	if runtimeName == "" {
		runtimeName = def.Command
	}
	return fmt.Errorf("%w: this bundle runs its server with %q (server.type %s) and no %q is on your PATH: install %s, then install the bundle again",
		ErrInvalid, def.Command, serverType, def.Command, runtimeName)
}

// checkCommandFile: a command inside the bundle must be one of its files;
// a binary server's is made executable (zips often lose the bit).
func checkCommandFile(serverType, command, dir string) error {
	if !strings.ContainsAny(command, `/\`) {
		return nil
	}
	rel, err := filepath.Rel(dir, command)
	if err != nil || !filepath.IsLocal(rel) {
		return nil // a command elsewhere (an absolute path the manifest names): the user's to have
	}
	st, err := os.Lstat(command)
	if err != nil || !st.Mode().IsRegular() {
		return fmt.Errorf("%w: the bundle's command %s is not one of its files", ErrInvalid, rel)
	}
	if serverType == "binary" && st.Mode().Perm()&0o111 == 0 {
		if err := os.Chmod(command, st.Mode().Perm()|0o755); err != nil {
			return fmt.Errorf("make %s executable: %w", rel, err)
		}
	}
	return nil
}

// Remove deletes the files of the bundle def was installed from, if any.
// The folder is derived from the bundle's name and version under the data
// dir, never read as a path from the definition.
func (in *Installer) Remove(def spec.Server) error {
	if def.Bundle == nil {
		return nil
	}
	return in.removeDir(def.Bundle.Name, def.Bundle.Version)
}

func (in *Installer) removeDir(name, version string) error {
	dir := Dir(in.DataDir, name, version)
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("remove bundle files %s: %w", dir, err)
	}
	// The name's folder goes too once its last version has.
	parent := filepath.Dir(dir)
	if entries, err := os.ReadDir(parent); err == nil && len(entries) == 0 {
		if err := os.Remove(parent); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("remove bundle files %s: %w", parent, err)
		}
	}
	return nil
}
