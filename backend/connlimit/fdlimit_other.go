//go:build !unix

package connlimit

// fdLimit: sockets on Windows are not bounded by a descriptor limit the
// process can read; the cap is DefaultMax.
func fdLimit() uint64 { return 0 }
