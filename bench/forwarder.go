package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// Two reference paths, not products, each a process between the client and
// the HTTP upstream that does none of an MCP router's work (no JSON,
// routing, tokens, log):
//   - the bare forwarder, an HTTP server that passes each request's body and
//     MCP headers to the upstream on a kept-alive connection and the answer
//     back: what a second HTTP hop and a second process cost here, the floor
//     under any router in that position;
//   - the TCP splice, which copies bytes both ways between the client's
//     connection and one of its own to the upstream, without even parsing
//     HTTP: the floor under the forwarder.

// forwarderArg, as the first argument, makes this binary a forwarder:
// `__forwarder http|splice UPSTREAM_URL`.
const forwarderArg = "__forwarder"

// runForwarder is main for the re-executed forwarder: it prints the line
// startListening waits for.
func runForwarder(args []string) int {
	if len(args) != 2 || (args[0] != "http" && args[0] != "splice") {
		fmt.Fprintln(os.Stderr, "forwarder: want http|splice and the upstream URL")
		return 2
	}
	up, err := url.Parse(args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "forwarder:", err)
		return 2
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "forwarder:", err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if args[0] == "splice" {
		go func() {
			<-ctx.Done()
			l.Close()
		}()
		fmt.Fprintf(os.Stderr, "splice listening on http://%s/mcp\n", l.Addr())
		splice(l, up.Host)
		return 0
	}
	f := &forwarder{up: up}
	srv := &http.Server{Handler: f}
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	fmt.Fprintf(os.Stderr, "forwarder listening on http://%s/mcp\n", l.Addr())
	if err := srv.Serve(l); err != nil && err != http.ErrServerClosed {
		fmt.Fprintln(os.Stderr, "forwarder:", err)
		return 1
	}
	return 0
}

type forwarder struct {
	up   *url.URL
	mu   sync.Mutex
	idle []*fwdConn
}

type fwdConn struct {
	nc   net.Conn
	br   *bufio.Reader
	used time.Time
}

// forwardedHeaders are the request headers passed on.
var forwardedHeaders = []string{"Content-Type", "Accept", "Mcp-Session-Id", "Mcp-Protocol-Version"}

func (f *forwarder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	c, err := f.conn()
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	b := make([]byte, 0, 512+len(body))
	b = append(b, r.Method+" "+f.up.RequestURI()+" HTTP/1.1\r\nHost: "+f.up.Host+"\r\n"...)
	for _, k := range forwardedHeaders {
		if v := r.Header.Get(k); v != "" {
			b = append(b, k+": "+v+"\r\n"...)
		}
	}
	b = append(b, "Content-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"...)
	b = append(b, body...)
	_ = c.nc.SetDeadline(time.Now().Add(callTimeout))
	var resp *http.Response
	if _, err = c.nc.Write(b); err == nil {
		resp, err = http.ReadResponse(c.br, nil)
	}
	var out []byte
	if err == nil {
		out, err = io.ReadAll(resp.Body)
	}
	if err != nil {
		c.nc.Close()
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	if resp.Close {
		c.nc.Close()
	} else {
		c.used = time.Now()
		f.mu.Lock()
		f.idle = append(f.idle, c)
		f.mu.Unlock()
	}
	h := w.Header()
	for _, k := range []string{"Content-Type", "Mcp-Session-Id"} {
		if v := resp.Header.Get(k); v != "" {
			h.Set(k, v)
		}
	}
	h.Set("Content-Length", strconv.Itoa(len(out)))
	w.WriteHeader(resp.StatusCode)
	_, _ = w.Write(out)
}

// conn takes an idle upstream connection or dials one. One idle for more
// than 2 s is closed instead (server-everything closes them after 5 s), as
// the bench's own client does.
func (f *forwarder) conn() (*fwdConn, error) {
	f.mu.Lock()
	for n := len(f.idle); n > 0; n = len(f.idle) {
		c := f.idle[n-1]
		f.idle = f.idle[:n-1]
		if time.Since(c.used) < 2*time.Second {
			f.mu.Unlock()
			return c, nil
		}
		c.nc.Close()
	}
	f.mu.Unlock()
	nc, err := net.DialTimeout("tcp", f.up.Host, 10*time.Second)
	if err != nil {
		return nil, err
	}
	return &fwdConn{nc: nc, br: bufio.NewReader(nc)}, nil
}

// splice pairs every accepted connection with a new one to upstream and
// copies bytes both ways until either side closes.
func splice(l net.Listener, upstream string) {
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			u, err := net.DialTimeout("tcp", upstream, 10*time.Second)
			if err != nil {
				return
			}
			defer u.Close()
			done := make(chan struct{}, 2)
			go func() { _, _ = io.Copy(u, c); done <- struct{}{} }()
			go func() { _, _ = io.Copy(c, u); done <- struct{}{} }()
			<-done
		}()
	}
}

// startForwarder runs a forwarder (mode http or splice) in front of upURL
// and returns its URL.
func (p *procs) startForwarder(ctx context.Context, mode, upURL string) (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", err
	}
	cmd := exec.Command(self, forwarderArg, mode, upURL)
	cmd.SysProcAttr = sysAttr(syscall.SIGTERM)
	_, u, err := p.startListening(ctx, mode+" forwarder", cmd)
	return u, err
}
