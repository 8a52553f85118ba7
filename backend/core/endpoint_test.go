package core_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/backend/core"
	"github.com/mcp-router/mcp-router/backend/settings"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// A change of the port setting moves the endpoint in place, from this
// process or from the CLI; a port that cannot be bound is reported and the
// next change is awaited.
func TestEndpointMovesWhenThePortChanges(t *testing.T) {
	dir := t.TempDir()
	c, err := core.Open(dir, core.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	portA := testpeers.FreePort(t)
	if err := c.Settings.Set(ctx, settings.KeyPort, strconv.Itoa(portA)); err != nil {
		t.Fatal(err)
	}
	if err := c.Run(ctx, 0); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var readies []string
	sctx, stop := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() {
		served <- c.ServeFollowing(sctx, core.ServeOptions{NoAuth: true, Ready: func(a string) {
			mu.Lock()
			readies = append(readies, a)
			mu.Unlock()
		}}, true)
	}()
	defer func() {
		stop()
		if err := <-served; err != nil {
			t.Errorf("ServeFollowing returned %v", err)
		}
	}()
	hc := &http.Client{Timeout: 5 * time.Second}
	answers := func(port int) bool {
		_, sid, err := mcpPost(hc, fmt.Sprintf("http://127.0.0.1:%d/mcp", port), "", "",
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":`+initParams+`}`)
		return err == nil && sid != ""
	}
	closed := func(port int) bool {
		conn, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second)
		if err == nil {
			conn.Close()
		}
		return err != nil
	}
	testpeers.Eventually(t, 5*time.Second, "the endpoint on the first port", func() bool { return answers(portA) })

	// From this process (the Settings page).
	portB := testpeers.FreePort(t)
	if err := c.Settings.Set(ctx, settings.KeyPort, strconv.Itoa(portB)); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	testpeers.Eventually(t, 5*time.Second, "the endpoint on the new port", func() bool { return answers(portB) })
	t.Logf("moved in %v", time.Since(start).Round(time.Millisecond))
	if !closed(portA) {
		t.Errorf("the old port %d still accepts connections", portA)
	}
	if st := c.Endpoint(); !st.Running || st.Addr != fmt.Sprintf("127.0.0.1:%d", portB) {
		t.Errorf("Endpoint() = %+v", st)
	}

	// A taken port: reported, and the next change is followed.
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	runCLI(t, "--data-dir", dir, "settings", "set", "port", strconv.Itoa(taken.Addr().(*net.TCPAddr).Port))
	testpeers.Eventually(t, 5*time.Second, "the failure to be reported", func() bool {
		st := c.Endpoint()
		return !st.Running && strings.Contains(st.Err, "cannot listen")
	})
	portC := testpeers.FreePort(t)
	runCLI(t, "--data-dir", dir, "settings", "set", "port", strconv.Itoa(portC))
	testpeers.Eventually(t, 5*time.Second, "the endpoint on the port set after the failure", func() bool { return answers(portC) })
	if !closed(portB) {
		t.Errorf("port %d still accepts connections", portB)
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []string{fmt.Sprint("127.0.0.1:", portA), fmt.Sprint("127.0.0.1:", portB), fmt.Sprint("127.0.0.1:", portC)}; fmt.Sprint(readies) != fmt.Sprint(want) {
		t.Errorf("Ready called for %v, want %v", readies, want)
	}
}
