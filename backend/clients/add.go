package clients

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"time"

	"github.com/pmezard/go-difflib/difflib"
	"github.com/tailscale/hujson"

	"github.com/mcp-router/mcp-router/backend/config"
	"github.com/mcp-router/mcp-router/backend/filelimit"
)

// Plan is a change Add would make to a client's config file: shown (Diff)
// before it is written (Write).
type Plan struct {
	Client string `json:"client"`
	Path   string `json:"path"`   // the file written (symlinks resolved)
	Exists bool   `json:"exists"` // false: Write creates it
	// Replaces is true when the file already had the router's entry.
	Replaces bool   `json:"replaces"`
	Diff     string `json:"diff"` // unified diff, old → new
	before   []byte
	after    []byte
	mode     fs.FileMode
}

// maxBackupsPerSecond bounds the backups named after one second
// (PATH.bak-TIME, PATH.bak-TIME-2, …).
const maxBackupsPerSecond = 100

// newFileMode is the mode of a config file Add creates: it holds a token.
const newFileMode fs.FileMode = 0o600

// Prepare reads client's config at path and plans setting the router's
// entry in it. It writes nothing. A file that does not parse, is over the
// size cap (config.ClientConfigLimits) or is not a regular file is refused.
func Prepare(client, path string, entry config.SnippetEntry) (*Plan, error) {
	if resolved, err := filepath.EvalSymlinks(path); err == nil {
		path = resolved // a dotfiles link stays a link to the file we edit
	}
	p := &Plan{Client: client, Path: path, mode: newFileMode}
	data, st, err := config.ClientConfigLimits().ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		var le *filelimit.Error
		if errors.As(err, &le) {
			return nil, fmt.Errorf("%s: %w; nothing was written", path, err)
		}
		return nil, fmt.Errorf("reading %s: %w", path, err)
	default:
		p.Exists, p.before, p.mode = true, data, st.Mode().Perm()
	}
	if client == config.ClientContinue {
		p.after, err = setContinueEntry(p.before, entry.Name, entry.Value)
	} else if client == config.ClientCodex {
		table, _ := entry.Value.(string)
		p.after, err = setCodexEntry(p.before, entry.Name, table)
	} else if err = config.ClientConfigLimits().CheckJSON(p.before); err == nil {
		// Nesting checked before hujson's recursive parser sees the file.
		src := p.before
		if len(bytes.TrimSpace(src)) == 0 {
			src = []byte("{}\n")
		}
		p.after, err = setJSONEntry(src, config.JSONTopKey(client), entry.Name, entry.Value)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w; nothing was written", path, err)
	}
	if p.Replaces, err = hadEntry(client, p.before, entry.Name); err != nil {
		return nil, fmt.Errorf("%s: %w; nothing was written", path, err)
	}
	if err := checkResult(client, p.after, entry); err != nil {
		return nil, fmt.Errorf("%s: %w; nothing was written", path, err)
	}
	from, a := path, difflib.SplitLines(string(p.before))
	if !p.Exists {
		from, a = "/dev/null", nil
	}
	p.Diff, err = difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: a, B: difflib.SplitLines(string(p.after)), FromFile: from, ToFile: path, Context: 3,
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}

// Unchanged reports whether the file already holds exactly what Add would
// write.
func (p *Plan) Unchanged() bool { return p.Exists && bytes.Equal(p.before, p.after) }

// entries decodes the router's section of a config Add wrote or read.
func entries(client string, data []byte) (map[string][]json.RawMessage, error) {
	out := map[string][]json.RawMessage{}
	if len(bytes.TrimSpace(data)) == 0 {
		return out, nil
	}
	switch client {
	case config.ClientContinue:
		return continueEntries(data)
	case config.ClientCodex:
		return codexEntries(data)
	}
	std, err := hujson.Standardize(bytes.Clone(data))
	if err != nil {
		return nil, err
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(std, &top); err != nil {
		return nil, err
	}
	sec, ok := top[config.JSONTopKey(client)]
	if !ok {
		return out, nil
	}
	// Members in order, duplicates kept.
	dec := json.NewDecoder(bytes.NewReader(sec))
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		k, _ := tok.(string)
		out[k] = append(out[k], raw)
	}
	return out, nil
}

func hadEntry(client string, before []byte, name string) (bool, error) {
	if len(before) == 0 {
		return false, nil
	}
	m, err := entries(client, before)
	return len(m[name]) > 0, err
}

// checkResult re-reads what would be written: exactly one entry of that
// name, equal to the entry.
func checkResult(client string, after []byte, e config.SnippetEntry) error {
	m, err := entries(client, after)
	if err != nil {
		return fmt.Errorf("internal error: the edited file does not parse: %w", err)
	}
	if n := len(m[e.Name]); n != 1 {
		return fmt.Errorf("internal error: the edited file has %d entries named %q", n, e.Name)
	}
	want, _ := json.Marshal(e.Value)
	if client == config.ClientCodex {
		table, _ := e.Value.(string)
		m, err := codexEntries([]byte(table))
		if err != nil || len(m[e.Name]) != 1 {
			return fmt.Errorf("internal error: the Codex table does not decode: %v", err)
		}
		want = m[e.Name][0]
	}
	var got, exp any
	if err := json.Unmarshal(m[e.Name][0], &got); err != nil {
		return err
	}
	if err := json.Unmarshal(want, &exp); err != nil {
		return err
	}
	if !reflect.DeepEqual(got, exp) {
		return fmt.Errorf("internal error: the edited entry reads back as %s", m[e.Name][0])
	}
	return nil
}

// Write writes the plan: a timestamped backup of the old file first
// (PATH.bak-YYYYMMDDTHHMMSSZ, same mode), then the new content to a temp
// file in the same directory, renamed over the file (same mode as the
// old; 0600 for a new one). It refuses if the file changed since Prepare
// read it. It returns the backup's path, "" when there was no file.
func (p *Plan) Write(now time.Time) (string, error) {
	cur, _, err := config.ClientConfigLimits().ReadFile(p.Path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if p.Exists {
			return "", fmt.Errorf("%s was removed since the diff was made; run again", p.Path)
		}
	case err != nil:
		return "", fmt.Errorf("reading %s: %w", p.Path, err)
	case !p.Exists || !bytes.Equal(cur, p.before):
		return "", fmt.Errorf("%s changed since the diff was made; nothing was written, run again", p.Path)
	}
	dir := filepath.Dir(p.Path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	backup := ""
	if p.Exists {
		stamp := p.Path + ".bak-" + now.UTC().Format("20060102T150405Z")
		for i := 1; ; i++ {
			backup = stamp
			if i > 1 {
				backup = fmt.Sprintf("%s-%d", stamp, i) // two writes in one second
			}
			err := writeNew(backup, p.before, p.mode)
			if err == nil {
				break
			}
			if !errors.Is(err, fs.ErrExist) || i == maxBackupsPerSecond {
				return "", fmt.Errorf("writing the backup: %w; nothing was written", err)
			}
		}
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(p.Path)+".tmp-*")
	if err != nil {
		return backup, err
	}
	defer os.Remove(tmp.Name()) // after a successful rename there is nothing to remove
	if err := tmp.Chmod(p.mode); err != nil {
		tmp.Close()
		return backup, err
	}
	if _, err := tmp.Write(p.after); err != nil {
		tmp.Close()
		return backup, err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return backup, err
	}
	if err := tmp.Close(); err != nil {
		return backup, err
	}
	if err := os.Rename(tmp.Name(), p.Path); err != nil {
		return backup, fmt.Errorf("replacing %s: %w", p.Path, err)
	}
	return backup, nil
}

// writeNew writes a file that must not exist yet.
func writeNew(path string, data []byte, mode fs.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
