// A stand-in for the headless router in distcheck's tests: it pulls in what
// makes a pure-Go darwin binary load system libraries (net's resolver,
// crypto/x509's system roots), and builds in seconds.
package main

import (
	"crypto/x509"
	"fmt"
	"net"
)

func main() {
	pool, err := x509.SystemCertPool()
	addrs, _ := net.LookupHost("localhost")
	fmt.Println(pool != nil, err, addrs)
}
