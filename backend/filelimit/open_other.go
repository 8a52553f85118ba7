//go:build !unix

package filelimit

import "os"

// openNoBlock opens path for reading; Windows has no FIFOs in the file
// system, and the fstat that follows refuses what is not a regular file.
func openNoBlock(path string) (*os.File, error) { return os.Open(path) }
