package core

import (
	"fmt"
	"net"
	"os"
	"runtime"
	"strings"
	"testing"
)

// A second router on a busy port says which process holds it: here the
// test process itself holds the port.
func TestListenOnABusyPortNamesTheHolder(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := heldBy(ln.Addr().String())
	if runtime.GOOS == "linux" {
		want := fmt.Sprintf("held by pid %d (", os.Getpid())
		if !strings.Contains(got, want) {
			t.Fatalf("heldBy = %q, want it to contain %q", got, want)
		}
	} else if !strings.Contains(got, "another process holds the port") {
		t.Fatalf("heldBy = %q", got)
	}
	// A port nobody listens on names nobody.
	ln2, _ := net.Listen("tcp", "127.0.0.1:0")
	free := ln2.Addr().(*net.TCPAddr).Port
	ln2.Close()
	if who := portHolder(free); who != "" {
		t.Fatalf("portHolder(free port %d) = %q", free, who)
	}
}
