package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/mcp-router/mcp-router/backend/filelimit"
)

// readInput reads FILE, or stdin for "-", within lim (docs/limits.md,
// "Files the router parses"): a FIFO, a device or a directory is refused
// at once instead of waited on, a file over the size cap before it is
// read, and reading stdin stops when the command's context ends, so a
// signal ends the command even while nothing has been written to it.
func readInput(cmd *cobra.Command, path string, lim filelimit.Limits) ([]byte, string, error) {
	if path == "-" {
		data, err := readStdin(cmd.Context(), cmd.InOrStdin(), lim)
		return data, "stdin", err
	}
	data, _, err := lim.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, path, fmt.Errorf("%s: no such file", path)
	case err != nil && errors.As(err, new(*filelimit.Error)):
		return nil, path, fmt.Errorf("%s: %w", path, err)
	}
	return data, path, err
}

// readStdin reads r within lim, returning as soon as ctx ends (the read
// itself goes on until the process exits: stdin cannot be interrupted).
func readStdin(ctx context.Context, r io.Reader, lim filelimit.Limits) ([]byte, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	type read struct {
		data []byte
		err  error
	}
	done := make(chan read, 1)
	go func() {
		data, err := lim.ReadAll(r, "stdin")
		done <- read{data, err}
	}()
	select {
	case r := <-done:
		return r.data, r.err
	case <-ctx.Done():
		return nil, fmt.Errorf("stopped while reading stdin (%w)", context.Cause(ctx))
	}
}
