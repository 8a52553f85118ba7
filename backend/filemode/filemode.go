// Package filemode keeps what holds secrets readable by its owner only: the
// data dir 0700 and the files holding secrets (the database with its -wal
// and -shm, the login and key files, exports) 0600, whatever mode a
// directory or file already had or the umask would give a new one. A mode
// that had to change is reported, so the caller can say so in its log.
//
// On Windows it changes nothing: file modes there are only a read-only
// flag, and the user's profile (where the data dir lives) is private by
// its ACL.
package filemode

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
)

// The modes this package sets.
const (
	Dir    fs.FileMode = 0o700 // the data dir
	Secret fs.FileMode = 0o600 // a file holding secrets
)

// ErrMode means a mode could not be changed (a directory or file of
// another user): the directory or file is there and usable.
var ErrMode = errors.New("cannot change the mode")

// enforced is false where modes mean nothing (Windows).
var enforced = runtime.GOOS != "windows"

// Change is a mode this package had to change.
type Change struct {
	Path     string
	Was, Now fs.FileMode
}

func (c Change) String() string {
	return fmt.Sprintf("%s was mode %04o: made it %04o (readable by its owner only)", c.Path, c.Was, c.Now)
}

// MakeDir creates dir (with its parents) if it is missing and makes it
// 0700. A Change is returned when an existing dir that held something had
// another mode; an empty one (a fresh mkdir, a new volume) is made 0700
// without one, as it exposed nothing.
func MakeDir(dir string) (*Change, error) {
	if err := os.MkdirAll(dir, Dir); err != nil {
		return nil, err
	}
	if !enforced {
		return nil, nil
	}
	st, err := os.Stat(dir)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", dir)
	}
	c, err := set(dir, st.Mode().Perm(), Dir)
	if c != nil && isEmpty(dir) {
		return nil, nil
	}
	return c, err
}

func isEmpty(dir string) bool {
	f, err := os.Open(dir)
	if err != nil {
		return false
	}
	defer f.Close()
	_, err = f.Readdirnames(1)
	return errors.Is(err, io.EOF)
}

// Protect makes an existing file 0600; a missing file is no change and
// no error.
func Protect(path string) (*Change, error) {
	if !enforced {
		return nil, nil
	}
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	return set(path, st.Mode().Perm(), Secret)
}

// Create creates path, empty, if it is missing, and makes it 0600 either
// way; its content is left alone. A file created 0600 first keeps what
// SQLite makes beside it 0600 too: SQLite gives a database's -wal and -shm
// the database file's mode.
func Create(path string) (*Change, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|os.O_CREATE, Secret)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if !enforced {
		return nil, nil
	}
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Mode().Perm() == Secret {
		return nil, nil
	}
	if err := f.Chmod(Secret); err != nil {
		return nil, fmt.Errorf("make %s mode %04o (it is %04o): %w: %w", path, Secret, st.Mode().Perm(), ErrMode, err)
	}
	if st.Size() == 0 {
		// Just created with the umask's mode, or never written: there was
		// nothing to read.
		return nil, nil
	}
	return &Change{Path: path, Was: st.Mode().Perm(), Now: Secret}, nil
}

func set(path string, was, want fs.FileMode) (*Change, error) {
	if was == want {
		return nil, nil
	}
	if err := os.Chmod(path, want); err != nil {
		return nil, fmt.Errorf("make %s mode %04o (it is %04o): %w: %w", path, want, was, ErrMode, err)
	}
	return &Change{Path: path, Was: was, Now: want}, nil
}
