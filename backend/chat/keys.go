package chat

import (
	"errors"
	"fmt"

	"github.com/mcp-router/mcp-router/backend/secrets"
)

// Where API keys are kept (backend/secrets).
const (
	KeysInKeychain = secrets.InKeychain // the OS keychain (Keychain, Credential Manager, Secret Service)
	KeysInFile     = secrets.InFile     // a 0600 file in the data dir, where no keychain service runs
)

// EnvKeyStore forces where keys go: "file" or "keychain"; unset, the
// keychain when it answers, else the file.
const EnvKeyStore = secrets.EnvStore

// KeyService is the keychain service name the keys are stored under.
const KeyService = secrets.Service

// KeyFileName is the fallback file in the data dir.
const KeyFileName = "chat-keys.json"

// ErrNoKey means no key is stored for the provider.
var ErrNoKey = errors.New("no API key stored")

// Keys stores providers' API keys outside the database, in a
// secrets.Store: the OS keychain or, where no keychain service runs, a file
// only the user can read. A key never reaches the log, the UI or an
// export: callers get it only to build a provider.
type Keys struct{ s *secrets.Store }

// NewKeys picks where keys go for the data dir dataDir.
func NewKeys(dataDir string) *Keys {
	return &Keys{s: secrets.New(dataDir, KeyFileName, "chat-provider:", "API key")}
}

// Backend says where keys are kept: KeysInKeychain or KeysInFile.
func (k *Keys) Backend() string { return k.s.Backend() }

// File is the fallback file's path.
func (k *Keys) File() string { return k.s.File() }

// Set stores provider's key ("" deletes it).
func (k *Keys) Set(provider, key string) error { return k.s.Set(provider, key) }

// Get returns provider's key, or an error wrapping ErrNoKey.
func (k *Keys) Get(provider string) (string, error) {
	v, err := k.s.Get(provider)
	if errors.Is(err, secrets.ErrNotFound) {
		return "", fmt.Errorf("provider %q: %w", provider, ErrNoKey)
	}
	return v, err
}

// Delete removes provider's key; removing a key that is not there is fine.
func (k *Keys) Delete(provider string) error { return k.s.Delete(provider) }

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
