package upstream

import (
	"syscall"
	"unsafe"
)

// idleSocket reports whether a read on the socket would block: the peer
// has neither closed it nor sent anything. It peeks, so nothing is lost.
// The peek never sleeps (MSG_DONTWAIT), so it is a raw system call, as
// the connection's reads and writes are (package hotpath says why). A peek
// interrupted by a signal is tried again: taking it for "bytes waiting"
// would send finishNow into a read with no deadline.
func idleSocket(fd uintptr) bool {
	var b [1]byte
	for {
		_, _, err := syscall.RawSyscall6(syscall.SYS_RECVFROM, fd, uintptr(unsafe.Pointer(&b[0])), 1,
			syscall.MSG_PEEK|syscall.MSG_DONTWAIT, 0, 0)
		if err != syscall.EINTR {
			return err == syscall.EAGAIN || err == syscall.EWOULDBLOCK
		}
	}
}
