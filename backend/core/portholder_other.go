//go:build !linux

package core

// portHolder names the process listening on TCP port where the platform
// lets us find it cheaply; elsewhere "" and the error says only the port is
// in use.
func portHolder(int) string { return "" }
