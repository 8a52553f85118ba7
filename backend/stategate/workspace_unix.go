//go:build unix

package stategate

import "syscall"

// openArtifactFlags: a final symbolic link is not followed, and a FIFO
// opens at once instead of waiting for a writer (it is then refused by
// fstat).
const openArtifactFlags = syscall.O_NOFOLLOW | syscall.O_NONBLOCK
