package electronimport

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// AppName is the Electron app's productName: its userData directory's name.
const AppName = "MCP Router"

// DefaultDatabase is where the Electron app keeps its database on this OS:
// <userData>/mcprouter.db, userData being ~/Library/Application Support/MCP
// Router on macOS, %APPDATA%\MCP Router on Windows and
// $XDG_CONFIG_HOME/MCP Router (~/.config/MCP Router) elsewhere.
func DefaultDatabase() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, AppName, "mcprouter.db"), nil
}

// Read reads the source a user named: the database at dbPath, the Export
// at exportPath, or (both empty) the database at its usual place.
func Read(ctx context.Context, dbPath, exportPath string) (Source, error) {
	switch {
	case dbPath != "" && exportPath != "":
		return Source{}, errors.New("give a database or an export, not both")
	case exportPath != "":
		return ReadExport(exportPath)
	case dbPath != "":
		return ReadDatabase(ctx, dbPath)
	}
	def, err := DefaultDatabase()
	if err != nil {
		return Source{}, err
	}
	if _, err := os.Stat(def); errors.Is(err, os.ErrNotExist) {
		return Source{}, fmt.Errorf("no Electron MCP Router database at %s: give its path (--db) or a file its Export wrote (--export)", def)
	}
	return ReadDatabase(ctx, def)
}
