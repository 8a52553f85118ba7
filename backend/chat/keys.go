package chat

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/zalando/go-keyring"
)

// Where API keys are kept.
const (
	KeysInKeychain = "keychain" // the OS keychain (Keychain, Credential Manager, Secret Service)
	KeysInFile     = "file"     // a 0600 file in the data dir, where no keychain service runs
)

// EnvKeyStore forces where keys go: "file" or "keychain"; unset, the
// keychain when it answers, else the file.
const EnvKeyStore = "MCP_ROUTER_KEY_STORE"

// KeyService is the keychain service name the keys are stored under.
const KeyService = "mcp-router"

// KeyFileName is the fallback file in the data dir.
const KeyFileName = "chat-keys.json"

// ErrNoKey means no key is stored for the provider.
var ErrNoKey = errors.New("no API key stored")

// Keys stores providers' API keys outside the database: in the OS keychain
// (github.com/zalando/go-keyring) or, where no keychain service runs (a
// Linux server without a Secret Service), in a file only the user can read.
// A key never reaches the log, the UI or an export: callers get it only to
// build a provider.
type Keys struct {
	file    string
	backend string
	probe   sync.Once // the keychain is asked on first use, not at start-up
	mu      sync.Mutex
}

// probeTimeout bounds the first keychain call: a D-Bus without a Secret
// Service can take a while to say so.
const probeTimeout = 3 * time.Second

// NewKeys picks where keys go for the data dir dataDir.
func NewKeys(dataDir string) *Keys {
	k := &Keys{file: filepath.Join(dataDir, KeyFileName)}
	switch os.Getenv(EnvKeyStore) {
	case KeysInFile:
		k.backend = KeysInFile
	case KeysInKeychain:
		k.backend = KeysInKeychain
	}
	return k
}

// where is the backend, asking the keychain the first time.
func (k *Keys) where() string {
	k.probe.Do(func() {
		if k.backend != "" {
			return
		}
		k.backend = KeysInFile
		if keychainAnswers() {
			k.backend = KeysInKeychain
		}
	})
	return k.backend
}

// keychainAnswers asks the keychain for a key nobody stores: "not found"
// means it works.
func keychainAnswers() bool {
	done := make(chan error, 1)
	go func() {
		_, err := keyring.Get(KeyService, "probe (never stored)")
		done <- err
	}()
	select {
	case err := <-done:
		return errors.Is(err, keyring.ErrNotFound)
	case <-time.After(probeTimeout):
		return false
	}
}

// Backend says where keys are kept: KeysInKeychain or KeysInFile.
func (k *Keys) Backend() string { return k.where() }

// File is the fallback file's path.
func (k *Keys) File() string { return k.file }

func account(provider string) string { return "chat-provider:" + provider }

// Set stores provider's key ("" deletes it).
func (k *Keys) Set(provider, key string) error {
	if key == "" {
		return k.Delete(provider)
	}
	inKeychain := k.where() == KeysInKeychain
	k.mu.Lock()
	defer k.mu.Unlock()
	if inKeychain {
		if err := keyring.Set(KeyService, account(provider), key); err != nil {
			return fmt.Errorf("store the API key of %q in the keychain: %w", provider, err)
		}
		return nil
	}
	m, err := k.readFile()
	if err != nil {
		return err
	}
	m[provider] = key
	return k.writeFile(m)
}

// Get returns provider's key, or an error wrapping ErrNoKey.
func (k *Keys) Get(provider string) (string, error) {
	inKeychain := k.where() == KeysInKeychain
	k.mu.Lock()
	defer k.mu.Unlock()
	if inKeychain {
		v, err := keyring.Get(KeyService, account(provider))
		if errors.Is(err, keyring.ErrNotFound) {
			return "", fmt.Errorf("provider %q: %w", provider, ErrNoKey)
		}
		if err != nil {
			return "", fmt.Errorf("read the API key of %q from the keychain: %w", provider, err)
		}
		return v, nil
	}
	m, err := k.readFile()
	if err != nil {
		return "", err
	}
	v, ok := m[provider]
	if !ok || v == "" {
		return "", fmt.Errorf("provider %q: %w", provider, ErrNoKey)
	}
	return v, nil
}

// Delete removes provider's key; removing a key that is not there is fine.
func (k *Keys) Delete(provider string) error {
	inKeychain := k.where() == KeysInKeychain
	k.mu.Lock()
	defer k.mu.Unlock()
	if inKeychain {
		err := keyring.Delete(KeyService, account(provider))
		if err != nil && !errors.Is(err, keyring.ErrNotFound) {
			return fmt.Errorf("remove the API key of %q from the keychain: %w", provider, err)
		}
		return nil
	}
	m, err := k.readFile()
	if err != nil {
		return err
	}
	if _, ok := m[provider]; !ok {
		return nil
	}
	delete(m, provider)
	return k.writeFile(m)
}

func (k *Keys) readFile() (map[string]string, error) {
	data, err := os.ReadFile(k.file)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the key file: %w", err)
	}
	m := map[string]string{}
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("the key file %s is not a JSON object of keys: %v", k.file, err)
	}
	return m, nil
}

// writeFile replaces the file atomically, readable by the user only.
func (k *Keys) writeFile(m map[string]string) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(k.file), 0o700); err != nil {
		return fmt.Errorf("write the key file: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(k.file), ".chat-keys-*")
	if err != nil {
		return fmt.Errorf("write the key file: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("write the key file: %w", err)
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write the key file: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write the key file: %w", err)
	}
	if err := os.Rename(tmp.Name(), k.file); err != nil {
		return fmt.Errorf("write the key file: %w", err)
	}
	return os.Chmod(k.file, 0o600)
}

// Mask shows enough of a key to recognise it: "sk-…f00d".
func Mask(key string) string {
	if key == "" {
		return ""
	}
	if len(key) < 12 {
		return "••••"
	}
	return key[:3] + "…" + key[len(key)-4:]
}
