//go:build !race

package hotpath

import (
	"syscall"
	"unsafe"
)

// The raw calls. recv and send never block (MSG_DONTWAIT), and send
// raises no SIGPIPE.

func recv(fd uintptr, p []byte) (uintptr, syscall.Errno) {
	n, _, e := syscall.RawSyscall6(syscall.SYS_RECVFROM, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)),
		syscall.MSG_DONTWAIT, 0, 0)
	return n, e
}

func send(fd uintptr, p []byte) (uintptr, syscall.Errno) {
	n, _, e := syscall.RawSyscall6(syscall.SYS_SENDTO, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)),
		syscall.MSG_DONTWAIT|syscall.MSG_NOSIGNAL, 0, 0)
	return n, e
}

func readFD(fd uintptr, p []byte) (uintptr, syscall.Errno) {
	n, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	return n, e
}

func writeFD(fd uintptr, p []byte) (uintptr, syscall.Errno) {
	n, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	return n, e
}
