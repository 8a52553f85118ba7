package core

import (
	"context"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/backend/config"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/store"
	"github.com/mcp-router/mcp-router/backend/upstream"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// A server added by another process (the CLI) while the app runs is started
// within 2 s; disabling and removing it are followed the same way.
func TestFollowsChangesMadeByAnotherProcess(t *testing.T) {
	dir := t.TempDir()
	c, err := Open(dir, Options{Upstream: upstream.Options{PingInterval: time.Hour}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Run(context.Background(), 100*time.Millisecond); err != nil {
		t.Fatal(err)
	}

	cliStore, err := store.Open(config.DBPath(dir)) // a second connection, as the CLI has
	if err != nil {
		t.Fatal(err)
	}
	defer cliStore.Close()
	ctx := context.Background()
	if _, err := cliStore.Servers().Create(ctx, spec.Server{Name: "everything", Command: testpeers.Everything(t), Args: []string{"stdio"}, Enabled: true}); err != nil {
		t.Fatal(err)
	}
	testpeers.Eventually(t, 2*time.Second, "the app to pick up the new server", func() bool {
		_, err := c.Servers.Status("everything")
		return err == nil
	})
	testpeers.Eventually(t, 30*time.Second, "the server to run", func() bool {
		st, _ := c.Servers.Status("everything")
		return st.State == upstream.StateRunning
	})

	if err := cliStore.Servers().SetEnabled(ctx, "everything", false); err != nil {
		t.Fatal(err)
	}
	testpeers.Eventually(t, 2*time.Second+5*time.Second, "the server to stop", func() bool {
		st, _ := c.Servers.Status("everything")
		return st.State == upstream.StateStopped
	})
	if err := cliStore.Servers().Delete(ctx, "everything"); err != nil {
		t.Fatal(err)
	}
	testpeers.Eventually(t, 2*time.Second, "the server to be forgotten", func() bool {
		return len(c.Servers.Names()) == 0
	})
}

func TestOpenRejectsAnUnusableDataDir(t *testing.T) {
	if _, err := Open("/proc/mcp-router-cannot-be-here", Options{}); err == nil {
		t.Fatal("Open succeeded in an unwritable place")
	}
}
