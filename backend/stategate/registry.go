package stategate

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mcp-router/mcp-router/backend/filelimit"
)

// registry reads the process definitions in a directory (processes/ in the
// data dir), re-reading a file only when its size or time changed.
type registry struct {
	dir string
	o   CompileOptions

	mu    sync.Mutex
	files map[string]*loadedFile // by file name
}

type loadedFile struct {
	name    string
	size    int64
	modTime time.Time
	proc    *Process
	err     error
}

// ProcessFile is one definition file: its process, or what is wrong with it.
type ProcessFile struct {
	File    string
	Process *Process // nil when Err is set
	Err     error
}

func newRegistry(dir string, o CompileOptions) *registry {
	return &registry{dir: dir, o: o, files: map[string]*loadedFile{}}
}

func isDefinitionFile(name string) bool {
	return !strings.HasPrefix(name, ".") && (strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml"))
}

// scan brings the registry up to date with the directory and returns every
// file, sorted by name. Two files with the same id are both reported.
func (r *registry) scan() ([]ProcessFile, error) {
	entries, err := os.ReadDir(r.dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read %s: %w", r.dir, err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	seen := map[string]bool{}
	for _, e := range entries {
		if e.IsDir() || !isDefinitionFile(e.Name()) {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		seen[e.Name()] = true
		lf := r.files[e.Name()]
		if lf != nil && lf.size == info.Size() && lf.modTime.Equal(info.ModTime()) {
			continue
		}
		lf = &loadedFile{name: e.Name(), size: info.Size(), modTime: info.ModTime()}
		// Regular files only, within the size cap: a FIFO named *.yaml is
		// refused, never waited on.
		src, _, err := DefinitionLimits().ReadFile(filepath.Join(r.dir, e.Name()))
		if errors.As(err, new(*filelimit.Error)) {
			lf.err = fmt.Errorf("%s: %w", e.Name(), err)
		} else if err != nil {
			lf.err = err
		} else if lf.proc, lf.err = Parse(src, r.o); lf.err != nil {
			var de *DefinitionError
			if errors.As(lf.err, &de) {
				de.File = e.Name()
			}
		}
		r.files[e.Name()] = lf
	}
	for name := range r.files {
		if !seen[name] {
			delete(r.files, name)
		}
	}
	names := make([]string, 0, len(r.files))
	for n := range r.files {
		names = append(names, n)
	}
	sort.Strings(names)
	byID := map[string]string{}
	out := make([]ProcessFile, 0, len(names))
	for _, n := range names {
		lf := r.files[n]
		pf := ProcessFile{File: n, Process: lf.proc, Err: lf.err}
		if lf.proc != nil {
			if first, dup := byID[lf.proc.ID]; dup {
				pf.Process = nil
				pf.Err = fmt.Errorf("%s: process id %q is already defined in %s", n, lf.proc.ID, first)
			} else {
				byID[lf.proc.ID] = n
			}
		}
		out = append(out, pf)
	}
	return out, nil
}

// get returns the current definition of a process id.
func (r *registry) get(id string) (*Process, string, error) {
	files, err := r.scan()
	if err != nil {
		return nil, "", err
	}
	for _, f := range files {
		if f.Process != nil && f.Process.ID == id {
			return f.Process, f.File, nil
		}
	}
	// A file named for the id that does not load (refused at a cap, say):
	// the caller learns why, not only that there is no such process.
	for _, f := range files {
		if f.Err != nil && (f.File == id+".yaml" || f.File == id+".yml") {
			return nil, "", refuse(CodeProcessNotFound, "Process '%s' not found: %s does not load (%s)", id, f.File, oneLine(f.Err))
		}
	}
	return nil, "", refuse(CodeProcessNotFound, "Process '%s' not found", id)
}
