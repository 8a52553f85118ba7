package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/backend/appapi"
	"github.com/mcp-router/mcp-router/backend/core"
	"github.com/mcp-router/mcp-router/backend/single"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// Launching the desktop app again for the same data directory brings the
// running one's window forward and exits 0 before opening anything
// (docs/install.md#single-instance); once the first has quit, a launch runs.
func TestSecondDesktopLaunchShowsTheFirst(t *testing.T) {
	dir, err := os.MkdirTemp("", "mcpr-cli-") // short: the socket path must fit sun_path
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	mustRun(t, dir, "settings", "set", "port", strconv.Itoa(testpeers.FreePort(t)))

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var shown atomic.Int32
	started := make(chan struct{})
	first := Options{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard,
		ShowDesktop: func() { shown.Add(1) },
		RunDesktop: func(ctx context.Context, c *core.Core, api *appapi.API) error {
			close(started)
			<-ctx.Done()
			return nil
		}}
	done := make(chan int, 1)
	go func() { done <- Main(ctx, []string{"--data-dir", dir}, first) }()
	select {
	case <-started:
	case code := <-done:
		t.Fatalf("the first launch exited %d", code)
	case <-time.After(60 * time.Second):
		t.Fatal("the first launch never showed its window")
	}

	var out bytes.Buffer
	var userEnv atomic.Int32
	second := Options{Stdin: strings.NewReader(""), Stdout: &out, Stderr: io.Discard,
		ShowDesktop: func() { t.Error("the second launch was asked to show itself") },
		UserEnv:     func(context.Context) ([]string, error) { userEnv.Add(1); return nil, nil },
		RunDesktop: func(context.Context, *core.Core, *appapi.API) error {
			t.Error("the second launch opened the router and a window")
			return nil
		}}
	if code := Main(context.Background(), []string{"--data-dir", dir}, second); code != 0 {
		t.Fatalf("second launch exited %d: %s", code, out.String())
	}
	want := fmt.Sprintf("MCP Router is already running for %s (pid %d); its window was brought forward", dir, os.Getpid())
	if !strings.Contains(out.String(), want) {
		t.Errorf("second launch said %q, want %q", out.String(), want)
	}
	if userEnv.Load() != 0 {
		t.Error("the second launch read the login shell's environment: it got past the check")
	}
	testpeers.Eventually(t, 10*time.Second, "the first window to be shown", func() bool { return shown.Load() == 1 })

	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("the first launch exited %d", code)
	}
	if _, err := os.Stat(filepath.Join(dir, single.SocketName)); !os.IsNotExist(err) {
		t.Errorf("the socket outlived the app: %v", err)
	}
	var ran atomic.Bool
	third := Options{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard,
		RunDesktop: func(context.Context, *core.Core, *appapi.API) error { ran.Store(true); return nil }}
	if code := Main(context.Background(), []string{"--data-dir", dir}, third); code != 0 || !ran.Load() {
		t.Errorf("a launch after the first quit: exit %d, ran %v", code, ran.Load())
	}
}
