//go:build unix && !linux

package upstream

import "syscall"

// idleSocket reports whether a read on the socket would block: the peer
// has neither closed it nor sent anything. It peeks, so nothing is lost.
// A peek interrupted by a signal (the Go runtime's preemption uses them) is
// tried again: taking it for "bytes waiting" would send finishNow into a
// read with no deadline.
func idleSocket(fd uintptr) bool {
	var b [1]byte
	for {
		_, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		if err != syscall.EINTR {
			return err == syscall.EAGAIN || err == syscall.EWOULDBLOCK
		}
	}
}
