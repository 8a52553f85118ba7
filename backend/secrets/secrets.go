// Package secrets keeps values that must not go into the database (API keys,
// OAuth tokens) in the OS keychain (github.com/zalando/go-keyring) or,
// where no keychain service runs (a Linux server without a Secret Service),
// in a JSON file in the data dir that only the user can read (0600). A value
// never reaches a log, the UI or an export: callers ask for it only to use
// it.
package secrets

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/zalando/go-keyring"

	"github.com/mcp-router/mcp-router/backend/filelimit"
)

// Where values are kept.
const (
	InKeychain = "keychain" // the OS keychain (Keychain, Credential Manager, Secret Service)
	InFile     = "file"     // a 0600 file in the data dir, where no keychain service runs
)

// EnvStore forces where values go: "file" or "keychain"; unset, the
// keychain when it answers, else the file.
const EnvStore = "MCP_ROUTER_KEY_STORE"

// Service is the keychain service name values are stored under.
const Service = "mcp-router"

// ErrNotFound means nothing is stored under the name.
var ErrNotFound = errors.New("not stored")

// Store is one kind of secret (chat API keys, upstream logins): in the
// keychain under "<prefix><name>", or in its own file.
type Store struct {
	file    string
	prefix  string
	what    string // for error messages: "API key", "login"
	backend string
	probe   sync.Once // the keychain is asked on first use, not at start-up
	mu      sync.Mutex
}

// probeTimeout bounds the first keychain call: a D-Bus without a Secret
// Service can take a while to say so.
const probeTimeout = 3 * time.Second

// New returns the store whose keychain accounts are "<prefix><name>" and
// whose fallback file is fileName in dataDir. what names a value in
// errors ("API key").
func New(dataDir, fileName, prefix, what string) *Store {
	s := &Store{file: filepath.Join(dataDir, fileName), prefix: prefix, what: what}
	switch os.Getenv(EnvStore) {
	case InFile:
		s.backend = InFile
	case InKeychain:
		s.backend = InKeychain
	}
	return s
}

func (s *Store) where() string {
	s.probe.Do(func() {
		if s.backend != "" {
			return
		}
		s.backend = InFile
		if keychainAnswers() {
			s.backend = InKeychain
		}
	})
	return s.backend
}

// keychainAnswers asks the keychain for a key nobody stores: "not found"
// means it works.
func keychainAnswers() bool {
	done := make(chan error, 1)
	go func() {
		_, err := keyring.Get(Service, "probe (never stored)")
		done <- err
	}()
	select {
	case err := <-done:
		return errors.Is(err, keyring.ErrNotFound)
	case <-time.After(probeTimeout):
		return false
	}
}

// Backend says where values are kept: InKeychain or InFile.
func (s *Store) Backend() string { return s.where() }

// File is the fallback file's path.
func (s *Store) File() string { return s.file }

// Set stores value under name ("" deletes it).
func (s *Store) Set(name, value string) error {
	if value == "" {
		return s.Delete(name)
	}
	inKeychain := s.where() == InKeychain
	s.mu.Lock()
	defer s.mu.Unlock()
	if inKeychain {
		if err := keyring.Set(Service, s.prefix+name, value); err != nil {
			return fmt.Errorf("store the %s of %q in the keychain: %w", s.what, name, err)
		}
		return nil
	}
	m, err := s.readFile()
	if err != nil {
		return err
	}
	m[name] = value
	return s.writeFile(m)
}

// Get returns the value stored under name, or an error wrapping
// ErrNotFound.
func (s *Store) Get(name string) (string, error) {
	inKeychain := s.where() == InKeychain
	s.mu.Lock()
	defer s.mu.Unlock()
	if inKeychain {
		v, err := keyring.Get(Service, s.prefix+name)
		if errors.Is(err, keyring.ErrNotFound) {
			return "", fmt.Errorf("%q: %w", name, ErrNotFound)
		}
		if err != nil {
			return "", fmt.Errorf("read the %s of %q from the keychain: %w", s.what, name, err)
		}
		return v, nil
	}
	m, err := s.readFile()
	if err != nil {
		return "", err
	}
	v, ok := m[name]
	if !ok || v == "" {
		return "", fmt.Errorf("%q: %w", name, ErrNotFound)
	}
	return v, nil
}

// Delete removes the value stored under name; removing one that is not
// there is fine.
func (s *Store) Delete(name string) error {
	inKeychain := s.where() == InKeychain
	s.mu.Lock()
	defer s.mu.Unlock()
	if inKeychain {
		err := keyring.Delete(Service, s.prefix+name)
		if err != nil && !errors.Is(err, keyring.ErrNotFound) {
			return fmt.Errorf("remove the %s of %q from the keychain: %w", s.what, name, err)
		}
		return nil
	}
	m, err := s.readFile()
	if err != nil {
		return err
	}
	if _, ok := m[name]; !ok {
		return nil
	}
	delete(m, name)
	return s.writeFile(m)
}

// fileLimits bound the secrets file (docs/limits.md): a FIFO or a device
// in its place is refused, never waited on, and so is one past the caps.
func (s *Store) fileLimits() filelimit.Limits {
	return filelimit.Limits{What: s.what + " file", MaxBytes: 16 << 20}
}

func (s *Store) readFile() (map[string]string, error) {
	lim := s.fileLimits()
	data, _, err := lim.ReadFile(s.file)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]string{}, nil
	}
	if err == nil {
		err = lim.CheckJSON(data)
	}
	if err != nil {
		return nil, fmt.Errorf("read the %s file %s: %w", s.what, s.file, err)
	}
	m := map[string]string{}
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("the %s file %s is not a JSON object of keys: %v", s.what, s.file, err)
	}
	return m, nil
}

// writeFile replaces the file atomically, readable by the user only.
func (s *Store) writeFile(m map[string]string) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	fail := func(err error) error { return fmt.Errorf("write the %s file: %w", s.what, err) }
	if err := os.MkdirAll(filepath.Dir(s.file), 0o700); err != nil {
		return fail(err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(s.file), "."+filepath.Base(s.file)+"-*")
	if err != nil {
		return fail(err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fail(err)
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fail(err)
	}
	if err := tmp.Close(); err != nil {
		return fail(err)
	}
	if err := os.Rename(tmp.Name(), s.file); err != nil {
		return fail(err)
	}
	return os.Chmod(s.file, 0o600)
}
