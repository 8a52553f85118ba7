package gateway

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
)

// loopbackAddr decides as isLoopback of the address's string did, for
// every kind of address a listener reports.
func TestLoopbackAddrAgreesWithItsString(t *testing.T) {
	var nilTCP *net.TCPAddr
	for _, a := range []net.Addr{
		&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 80},
		&net.TCPAddr{IP: net.IP{127, 9, 9, 9}, Port: 80},
		&net.TCPAddr{IP: net.IPv6loopback, Port: 80},
		&net.TCPAddr{IP: net.ParseIP("::ffff:127.0.0.1"), Port: 80},
		&net.TCPAddr{IP: net.IPv6loopback, Port: 80, Zone: "lo"},
		&net.TCPAddr{IP: net.ParseIP("fe80::1"), Port: 80, Zone: "eth0"},
		&net.TCPAddr{IP: net.IPv4(192, 168, 1, 2), Port: 80},
		&net.TCPAddr{IP: net.ParseIP("2001:db8::1"), Port: 80},
		&net.TCPAddr{IP: net.IPv4zero, Port: 80},
		&net.TCPAddr{Port: 80},
		&net.TCPAddr{IP: net.IP{1, 2, 3}, Port: 80},
		nilTCP,
		&net.UnixAddr{Name: "/tmp/x.sock", Net: "unix"},
		&net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 53},
	} {
		if got, want := loopbackAddr(a), isLoopback(a.String()); got != want {
			t.Errorf("%#v: loopbackAddr %v, isLoopback of %q %v", a, got, a.String(), want)
		}
	}
}

// The guard costs no allocation for a local client on a loopback
// listener (the local address's string and ParseIP of the Host were
// allocated per request), and still refuses a foreign Host there.
func TestGuardLocalAllocations(t *testing.T) {
	served := 0
	h := guardLocal(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { served++ }))
	req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:8080/mcp", nil)
	req = req.WithContext(context.WithValue(req.Context(), http.LocalAddrContextKey,
		&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}))
	req.Host = "127.0.0.1:8080"
	w := httptest.NewRecorder()
	if n := testing.AllocsPerRun(100, func() { h.ServeHTTP(w, req) }); n != 0 {
		t.Errorf("%v allocations per request, want 0", n)
	}
	if served == 0 {
		t.Fatal("a loopback request was refused")
	}
	foreign := req.Clone(req.Context())
	foreign.Host = "evil.example:8080"
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, foreign)
	if rec.Code != http.StatusForbidden {
		t.Errorf("a foreign Host on a loopback listener: HTTP %d", rec.Code)
	}
}

// BenchmarkGuardLocal is the guard on a loopback listener for a local
// client: what every request to the endpoint pays first.

func BenchmarkGuardLocal(b *testing.B) {
	h := guardLocal(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:8080/mcp", nil)
	req = req.WithContext(context.WithValue(req.Context(), http.LocalAddrContextKey,
		&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}))
	req.Host = "127.0.0.1:8080"
	w := httptest.NewRecorder()
	b.ReportAllocs()
	for b.Loop() {
		h.ServeHTTP(w, req)
	}
}
