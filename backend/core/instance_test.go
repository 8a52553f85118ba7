package core

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/backend/config"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/upstream"
)

func TestInstanceIDIsTheDataDirs(t *testing.T) {
	dir := t.TempDir()
	c, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	id, err := config.InstanceID(dir)
	if err != nil || c.Instance != id {
		t.Fatalf("core has %q, the data dir %q (%v)", c.Instance, id, err)
	}
	if c.BehindSelf() {
		t.Error("behind itself with no chain")
	}
}

// A damaged instance-id file does not keep the router from starting, and is
// left as it was.
func TestDamagedInstanceFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, config.InstanceFile)
	if err := os.WriteFile(file, []byte("garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(c.Instance) {
		t.Errorf("instance %q", c.Instance)
	}
	if b, _ := os.ReadFile(file); string(b) != "garbage" {
		t.Errorf("the file now holds %q", b)
	}
}

// A router whose own id is in the chain it inherited was started as an
// upstream of itself: Run starts none of its servers (one of them started
// it), while another router's id in the chain changes nothing.
func TestRouterBehindItselfStartsNoServer(t *testing.T) {
	dir := t.TempDir()
	id, err := config.InstanceID(dir)
	if err != nil {
		t.Fatal(err)
	}
	st, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	def := spec.Server{Name: "s", Command: "sleep", Args: []string{"30"}, Enabled: true}
	if _, err := st.Store.Servers().Create(context.Background(), def); err != nil {
		t.Fatal(err)
	}
	st.Close()

	for _, tc := range []struct {
		chain  string
		behind bool
	}{
		{"ffffffffffffffffffffffffffffffff," + id, true},
		{id + ",ffffffffffffffffffffffffffffffff", true},
		{"ffffffffffffffffffffffffffffffff", false},
	} {
		t.Setenv(upstream.EnvRouterChain, tc.chain)
		c, err := Open(dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if c.BehindSelf() != tc.behind {
			t.Errorf("chain %s: BehindSelf = %v", tc.chain, c.BehindSelf())
		}
		if err := c.Run(context.Background(), 50*time.Millisecond); err != nil {
			t.Fatal(err)
		}
		if got := len(c.Servers.Names()); (got == 0) != tc.behind {
			t.Errorf("chain %s: %d servers supervised", tc.chain, got)
		}
		c.Close()
	}
}
