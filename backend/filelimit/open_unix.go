//go:build unix

package filelimit

import (
	"os"
	"syscall"
)

// openNoBlock opens path for reading with O_NONBLOCK: opening a FIFO with
// no writer returns at once (a plain open would wait for one forever), so
// the fstat that follows can refuse it. On a regular file the flag changes
// nothing.
func openNoBlock(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
