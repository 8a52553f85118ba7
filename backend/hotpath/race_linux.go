//go:build race

package hotpath

import "syscall"

// Under the race detector the reads and writes go through package
// syscall's Read and Write after all: those tell the detector that a
// write to a descriptor happens before a read that sees it, and without
// that every test that hands data over a socket would report races. The
// rest of the wrapping (waiting in the poller, the errors) is the same.

func recv(fd uintptr, p []byte) (uintptr, syscall.Errno)    { return result(syscall.Read(int(fd), p)) }
func send(fd uintptr, p []byte) (uintptr, syscall.Errno)    { return result(syscall.Write(int(fd), p)) }
func readFD(fd uintptr, p []byte) (uintptr, syscall.Errno)  { return result(syscall.Read(int(fd), p)) }
func writeFD(fd uintptr, p []byte) (uintptr, syscall.Errno) { return result(syscall.Write(int(fd), p)) }

func result(n int, err error) (uintptr, syscall.Errno) {
	if err != nil {
		if errno, ok := err.(syscall.Errno); ok {
			return 0, errno
		}
		return 0, syscall.EIO
	}
	return uintptr(n), 0
}
