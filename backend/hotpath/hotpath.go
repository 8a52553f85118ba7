// Package hotpath keeps the router's call path cheap at the level of the
// process: how many threads a call wakes, and what each read and write
// costs.
//
// An MCP call through the router is a ping-pong: the router waits, a
// request arrives, it is passed on, the router waits, the answer arrives,
// it is passed back. Each step is a few microseconds of Go code, and most
// of what the router adds to a call is the Go runtime waking threads
// around that code, not the code. Two things cause the wake-ups:
//
//   - With more than one P, every goroutine made ready (net/http starts one
//     per request to watch the connection) wakes a second thread to run
//     it in parallel: a futex wake on the call path, and a thread spinning
//     on another CPU — on a small machine, the CPU the upstream server or
//     the client needs next. Setup runs the router on one P.
//   - The runtime wraps every ordinary read and write in entersyscall, and
//     the first one after the process went idle also wakes the runtime's
//     monitor thread (sysmon) from its deep sleep. Conn, Listener and File
//     read and write non-blocking descriptors with raw system calls
//     instead (rawio_linux.go).
//
// docs/benchmarks.md has the measurements. Both can be switched off: the
// standard GOMAXPROCS variable sets the Ps (Setup then leaves them alone),
// and MCPR_RAW_IO=off turns the raw reads and writes off.
package hotpath

import (
	"net"
	"os"
	"runtime"
)

// EnvRawIO, set to "off", turns the raw reads and writes off.
const EnvRawIO = "MCPR_RAW_IO"

// enabled is read once: the choice is made when a connection is wrapped.
var enabled = os.Getenv(EnvRawIO) != "off"

// RawIO reports whether Conn, Listener and File wrap what they are given
// (on Linux, unless MCPR_RAW_IO=off).
func RawIO() bool { return enabled && supported }

// Setup tunes the runtime of a process that serves the HTTP endpoint: one
// P, unless the GOMAXPROCS environment variable says otherwise. The
// desktop app and serve run it, through cli.Options.TuneRuntime; stdio and
// connect do not, since they block reading stdin, and with one P a blocked
// read holds the only P until the runtime's monitor takes it back. One P
// runs Go code on one CPU at a time; the router spends about 30 µs of CPU on a call, so one CPU serves
// over 10,000 calls a second, and goroutines are still preempted, so a
// slow hook does not hold other calls up for long. It returns the number
// of Ps in use.
//
// It also gives the garbage collector a fixed headroom over the live heap
// (gc.go), unless the GOGC environment variable is set.
func Setup() int {
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(1)
	}
	tuneGC()
	return runtime.GOMAXPROCS(0)
}

// Listener wraps l so that the TCP connections it accepts read and write
// with raw system calls (see Conn).
func Listener(l net.Listener) net.Listener {
	if !RawIO() {
		return l
	}
	return listener{l}
}

type listener struct{ net.Listener }

func (l listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return Conn(c), nil
}
