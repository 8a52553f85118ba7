package stategate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcp-router/mcp-router/backend/store"
)

// A run's files live in its workspace: a directory given at create_run (it
// must lie inside one of the process's workspace_roots) or, by default, a
// fresh directory of the run's own under the data dir. Artifacts are paths
// inside it; one that leads outside, also through a symbolic link, is
// refused, and so is anything but a regular file within the size caps.

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

// recorded is what a run's artifacts already hold: their number and bytes.
type recorded struct {
	count int
	bytes int64
}

func recordedOf(arts []store.StateGateArtifact) recorded {
	r := recorded{count: len(arts)}
	for _, a := range arts {
		r.bytes += a.Size
	}
	return r
}

// checkRecorded refuses artifacts that would take the run past its caps.
func checkRecorded(prior recorded, arts []submittedArtifact, l Limits) *ValidationError {
	count, total := prior.count+len(arts), prior.bytes
	for _, a := range arts {
		total += a.Size
	}
	switch {
	case count > MaxRunArtifacts:
		return &ValidationError{Path: "/artifact_paths", Message: fmt.Sprintf(
			"the run would record %d artifacts, over the cap of %d per run (a fixed limit)", count, MaxRunArtifacts)}
	case total > l.MaxRunArtifactsBytes:
		return &ValidationError{Path: "/artifact_paths", Message: fmt.Sprintf(
			"with the %s the run has recorded, its artifacts would be %s, over the cap of %s per run (setting %s)",
			byteSize(prior.bytes), byteSize(total), byteSize(l.MaxRunArtifactsBytes), settingRunArtifacts)}
	}
	return nil
}

// checkedArtifact is an artifact checked (opened, fstat'ed and closed
// again), not yet hashed.
type checkedArtifact struct {
	i      int
	raw    string
	key    string
	inRoot string // path within the workspace's root
	info   fs.FileInfo
}

// checkArtifacts resolves, checks and hashes each path; problems are
// reported per path as validation errors at /artifact_paths/<i>. workspace
// is the resolved directory stored with the run; prior is what the run has
// recorded. Every file is opened without following a final symbolic link
// and without blocking (a FIFO opens at once), then checked with fstat:
// only a regular file within the caps is read, and nothing is hashed
// unless every path passed. Each file is closed after its check and opened
// again to be hashed, in one of the service's HashWorkers slots, so a
// request holds no descriptor while it waits; hashing stops when ctx ends
// (the client went).
func (s *Service) checkArtifacts(ctx context.Context, p *Process, workspace string, paths []string, l Limits, prior recorded) ([]submittedArtifact, []ValidationError) {
	if len(paths) == 0 {
		return nil, nil
	}
	var bad []ValidationError
	fail := func(i int, format string, args ...any) {
		bad = append(bad, ValidationError{Path: fmt.Sprintf("/artifact_paths/%d", i), Message: fmt.Sprintf(format, args...)})
	}
	if len(paths) > MaxArtifactsPerEvent {
		return nil, []ValidationError{{Path: "/artifact_paths", Message: fmt.Sprintf(
			"%d artifact paths, over the cap of %d per event (a fixed limit)", len(paths), MaxArtifactsPerEvent)}}
	}
	root, err := realDir(workspace)
	if err != nil {
		fail(0, "the run's workspace %s is not available: %v", workspace, err)
		return nil, bad
	}
	// Opening through an os.Root keeps every open inside the workspace even
	// if a directory on the way is swapped for a link after the checks.
	wsRoot, err := os.OpenRoot(root)
	if err != nil {
		fail(0, "the run's workspace %s is not available: %v", workspace, err)
		return nil, bad
	}
	defer wsRoot.Close()
	var checked []checkedArtifact
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
		inRoot, _ := filepath.Rel(root, real)
		f, info, err := openRegular(wsRoot, inRoot)
		if err != nil {
			fail(i, "%s %v", raw, err)
			continue
		}
		f.Close()
		checked = append(checked, checkedArtifact{i: i, raw: raw, key: key, inRoot: inRoot, info: info})
		if info.Size() > l.MaxArtifactBytes {
			fail(i, "%s is %s, over the cap of %s per artifact (setting %s)", raw, byteSize(info.Size()), byteSize(l.MaxArtifactBytes), settingArtifact)
		}
	}
	if len(bad) > 0 {
		return nil, bad
	}
	out := make([]submittedArtifact, 0, len(checked))
	for _, c := range checked {
		out = append(out, submittedArtifact{Rel: c.key, Type: p.artifactType(c.key), Size: c.info.Size()})
	}
	if v := checkRecorded(prior, out, l); v != nil {
		return nil, []ValidationError{*v}
	}
	for n, c := range checked {
		sum, err := s.hash(ctx, wsRoot, c)
		if err != nil {
			fail(c.i, "%s %v", c.raw, err)
			return nil, bad
		}
		out[n].SHA256 = sum
	}
	return out, nil
}

// openRegular opens name inside root for reading, refusing anything but a
// regular file: the open neither follows a final symbolic link nor waits
// (for a FIFO's writer), and the kind and size come from the open file
// (fstat), so what is checked is what would be read.
func openRegular(root *os.Root, name string) (*os.File, fs.FileInfo, error) {
	f, err := root.OpenFile(name, os.O_RDONLY|openArtifactFlags, 0)
	if err != nil {
		// A socket cannot be opened at all; say what it is.
		if info, lerr := root.Lstat(name); lerr == nil && !info.Mode().IsRegular() {
			return nil, nil, fmt.Errorf("is %s, not a regular file", fileKind(info.Mode()))
		}
		return nil, nil, fmt.Errorf("cannot be opened: %w", err)
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("cannot be read: %w", err)
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, nil, fmt.Errorf("is %s, not a regular file", fileKind(info.Mode()))
	}
	return f, info, nil
}

// fileKind names a file mode that is not a regular file's.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0, m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "not a regular file"
}

// hash opens a checked artifact again, in one of the HashWorkers slots,
// and returns its SHA-256. It refuses a file that is no longer the one
// checked (replaced, or its size changed, also while it is read) and stops
// when ctx ends.
func (s *Service) hash(ctx context.Context, root *os.Root, c checkedArtifact) (string, error) {
	select {
	case s.hashSlots <- struct{}{}:
	case <-ctx.Done():
		return "", fmt.Errorf("not hashed: the request ended while it waited for a hashing slot (%w)", context.Cause(ctx))
	}
	defer func() { <-s.hashSlots }()
	f, info, err := openRegular(root, c.inRoot)
	if err != nil {
		return "", err
	}
	defer f.Close()
	size := info.Size()
	if !os.SameFile(info, c.info) || size != c.info.Size() {
		return "", errors.New("changed while it was checked; submit it again")
	}
	h := sha256.New()
	buf := make([]byte, 256<<10)
	n, err := io.CopyBuffer(h, &ctxReader{ctx: ctx, r: io.LimitReader(f, size+1), seen: s.hashed}, buf)
	if err != nil {
		if ctx.Err() != nil {
			return "", fmt.Errorf("was not hashed to its end: the request ended (%w)", context.Cause(ctx))
		}
		return "", fmt.Errorf("cannot be read: %w", err)
	}
	if n != size {
		return "", fmt.Errorf("changed while it was read (%s, then %s); submit it again", byteSize(size), byteSize(n))
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// ctxReader stops reading when ctx ends.
type ctxReader struct {
	ctx  context.Context
	r    io.Reader
	seen func(int)
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	n, err := c.r.Read(p)
	if n > 0 && c.seen != nil {
		c.seen(n)
	}
	return n, err
}
