// Package applog is the desktop app's log file: what the app logs goes to
// <data dir>/logs/mcp-router.log as well as to stderr, because an app
// started from a desktop menu, the Dock or a login item has a stderr no one
// reads. The file is rotated by size with gopkg.in/natefinch/lumberjack.v2
// (a well-kept rotating writer) and old files are removed, so it never
// grows without bound.
package applog

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"gopkg.in/natefinch/lumberjack.v2"
)

// Rotation limits: a file is rotated at MaxSizeMB; MaxBackups rotated
// files (gzipped) are kept, none older than MaxAgeDays.
const (
	MaxSizeMB  = 10
	MaxBackups = 5
	MaxAgeDays = 30
)

// FileName is the current log file's name in Dir.
const FileName = "mcp-router.log"

// Dir is the folder of the log files in dataDir.
func Dir(dataDir string) string { return filepath.Join(dataDir, "logs") }

// Path is the current log file in dataDir.
func Path(dataDir string) string { return filepath.Join(Dir(dataDir), FileName) }

// Open returns the rotating log file of dataDir, creating its folder (0700:
// logs may name servers and paths). The file itself is opened on the first
// write. Close it when done.
func Open(dataDir string) (io.WriteCloser, error) {
	dir := Dir(dataDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("log folder: %w", err)
	}
	return &lumberjack.Logger{Filename: Path(dataDir), MaxSize: MaxSizeMB, MaxBackups: MaxBackups,
		MaxAge: MaxAgeDays, Compress: true, LocalTime: true}, nil
}
