//go:build unix

package upstream

import "syscall"

// idleSocket reports whether a read on the socket would block: the peer
// has neither closed it nor sent anything. It peeks, so nothing is lost.
func idleSocket(fd uintptr) bool {
	var b [1]byte
	_, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
	return err == syscall.EAGAIN || err == syscall.EWOULDBLOCK
}
