package appapi

import (
	"errors"
	"os/exec"
	"path/filepath"
	"runtime"
)

// LogFileInfo says where the app's own log is written.
type LogFileInfo struct {
	// Path is the current log file; empty when this process writes none
	// (`mcp-router serve` logs to stderr).
	Path   string `json:"path"`
	Folder string `json:"folder"`
}

// LogFile tells where this process writes its log (the desktop app:
// <data dir>/logs/mcp-router.log, rotated).
func (a *API) LogFile() (LogFileInfo, error) {
	if a.opts.LogFile == "" {
		return LogFileInfo{}, nil
	}
	return LogFileInfo{Path: a.opts.LogFile, Folder: filepath.Dir(a.opts.LogFile)}, nil
}

// OpenLogFolder shows the log file's folder in the system's file manager.
func (a *API) OpenLogFolder() error {
	if a.opts.LogFile == "" {
		return errors.New("this router writes no log file (mcp-router serve logs to its stderr)")
	}
	return a.opts.OpenPath(filepath.Dir(a.opts.LogFile))
}

// openPath opens path with the desktop's default handler, without waiting
// for it.
func openPath(path string) error {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", path)
	case "windows":
		cmd = exec.Command("explorer", path)
	default:
		cmd = exec.Command("xdg-open", path)
	}
	if err := cmd.Start(); err != nil {
		return errors.New("cannot open " + path + ": " + err.Error())
	}
	go func() { _ = cmd.Wait() }() // reap it
	return nil
}
