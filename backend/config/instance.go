package config

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/mcp-router/mcp-router/backend/filelimit"
)

// InstanceFile holds the router's instance id inside the data directory.
const InstanceFile = "instance-id"

// instanceRe is the form of an instance id: 32 lower-case hex digits.
var instanceRe = regexp.MustCompile(`^[0-9a-f]{32}$`)

// InstanceID returns the instance id of the router that serves dataDir,
// creating it on first use: 128 random bits, kept in dataDir/instance-id.
//
// The id belongs to the data directory, not to one process, because the
// data directory is what makes two routers the same router: every process
// started on it (the desktop app, `serve`, `stdio`) loads the same servers,
// so any of them behind any other is a loop. Routers on other data
// directories get other ids and may be chained on purpose. A copy of a data
// directory keeps the id; delete the file in the copy to give it its own.
//
// Concurrent first calls (the app and the CLI) agree: the id is written to a
// temporary file and linked into place, so exactly one of them wins and the
// others read it.
func InstanceID(dataDir string) (string, error) {
	path := filepath.Join(dataDir, InstanceFile)
	if id, err := readInstanceID(path); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return id, err
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return "", fmt.Errorf("instance id: %w", err)
	}
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("instance id: %w", err)
	}
	tmp, err := os.CreateTemp(dataDir, InstanceFile+".*")
	if err != nil {
		return "", fmt.Errorf("instance id: %w", err)
	}
	defer os.Remove(tmp.Name())
	_, werr := tmp.WriteString(hex.EncodeToString(b[:]) + "\n")
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return "", fmt.Errorf("instance id: %w", werr)
	}
	if err := os.Link(tmp.Name(), path); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", fmt.Errorf("instance id: %w", err)
	}
	return readInstanceID(path)
}

// instanceLimits bound the instance-id file: 33 bytes when the router
// wrote it; a FIFO or a device in its place is refused, never waited on
// (the read is on the way to every start).
func instanceLimits() filelimit.Limits {
	return filelimit.Limits{What: "instance-id file", MaxBytes: 1 << 10}
}

func readInstanceID(path string) (string, error) {
	data, _, err := instanceLimits().ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		return "", fmt.Errorf("instance id: %w", err)
	}
	id := strings.TrimSpace(string(data))
	if !instanceRe.MatchString(id) {
		return "", fmt.Errorf("instance id: %s does not hold 32 hex digits; delete it and a new id is made", path)
	}
	return id, nil
}
