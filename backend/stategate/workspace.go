package stategate

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// A run's files live in its workspace: a directory given at create_run (it
// must lie inside one of the process's workspace_roots) or, by default, a
// fresh directory of the run's own under the data dir. Artifacts are paths
// inside it; one that leads outside, also through a symbolic link, is
// refused.

// expandHome turns a leading ~/ into the user's home directory.
func expandHome(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, strings.TrimPrefix(p, "~"))
		}
	}
	return p
}

// realDir resolves a directory's symbolic links; it must exist.
func realDir(p string) (string, error) {
	abs, err := filepath.Abs(expandHome(p))
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", err
	}
	info, err := os.Stat(real)
	if err != nil {
		return "", err
	}
	if !info.IsDir() {
		return "", fmt.Errorf("%s is not a directory", p)
	}
	return real, nil
}

// within reports whether path is root or lies below it (both resolved).
func within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	if err != nil {
		return false
	}
	return rel == "." || (rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel))
}

// submittedArtifact is a checked artifact path, hashed.
type submittedArtifact struct {
	Rel    string // '/' separated, relative to the workspace
	Type   string
	Size   int64
	SHA256 string
}

// checkArtifacts resolves, checks and hashes each path; problems are
// reported per path as validation errors at /artifact_paths/<i>. workspace
// is the resolved directory stored with the run.
func checkArtifacts(p *Process, workspace string, paths []string) ([]submittedArtifact, []ValidationError) {
	if len(paths) == 0 {
		return nil, nil
	}
	var out []submittedArtifact
	var bad []ValidationError
	fail := func(i int, format string, args ...any) {
		bad = append(bad, ValidationError{Path: fmt.Sprintf("/artifact_paths/%d", i), Message: fmt.Sprintf(format, args...)})
	}
	root, err := realDir(workspace)
	if err != nil {
		fail(0, "the run's workspace %s is not available: %v", workspace, err)
		return nil, bad
	}
	seen := map[string]bool{}
	for i, raw := range paths {
		if strings.TrimSpace(raw) == "" || strings.ContainsRune(raw, 0) {
			fail(i, "an artifact path must not be empty")
			continue
		}
		full := filepath.FromSlash(raw)
		if !filepath.IsAbs(full) {
			full = filepath.Join(workspace, full)
		}
		full = filepath.Clean(full)
		if !within(workspace, full) {
			fail(i, "%s is outside the run's workspace %s", raw, workspace)
			continue
		}
		real, err := filepath.EvalSymlinks(full)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				fail(i, "%s does not exist in the run's workspace", raw)
			} else {
				fail(i, "%s: %v", raw, err)
			}
			continue
		}
		if !within(root, real) {
			fail(i, "%s leads outside the run's workspace (through a symbolic link)", raw)
			continue
		}
		rel, _ := filepath.Rel(workspace, full)
		key := filepath.ToSlash(rel)
		if seen[key] {
			fail(i, "%s is listed twice", raw)
			continue
		}
		seen[key] = true
		size, sum, err := hashFile(real)
		if err != nil {
			fail(i, "%s: %v", raw, err)
			continue
		}
		out = append(out, submittedArtifact{Rel: key, Type: p.artifactType(key), Size: size, SHA256: sum})
	}
	return out, bad
}

// hashFile returns a regular file's size and SHA-256.
func hashFile(path string) (int64, string, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, "", err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return 0, "", err
	}
	if !info.Mode().IsRegular() {
		return 0, "", errors.New("not a regular file")
	}
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return 0, "", err
	}
	return n, hex.EncodeToString(h.Sum(nil)), nil
}
