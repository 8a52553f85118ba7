//go:build nogui

package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/compose-spec/compose-go/v2/cli"
	"github.com/compose-spec/compose-go/v2/types"
)

// loadCompose parses a compose file the way `docker compose` does
// (compose-go: schema validation, interpolation, normalisation), with env
// as the only environment.
func loadCompose(t *testing.T, file string, env []string) (*types.Project, error) {
	t.Helper()
	opts, err := cli.NewProjectOptions([]string{file}, cli.WithEnv(env), cli.WithName("mcp-router"),
		cli.WithWorkingDirectory(filepath.Dir(file)))
	if err != nil {
		return nil, err
	}
	return opts.LoadProject(context.Background())
}

// TestDockerComposeFileParses reads docker-compose.yml with compose-go, the
// parser `docker compose` itself uses, and checks what it resolves to: the
// stdio command on host networking as the host user, /data a bind mount
// Docker must not create, /init read-only.
func TestDockerComposeFileParses(t *testing.T) {
	abs, err := filepath.Abs("docker-compose.yml")
	if err != nil {
		t.Fatal(err)
	}
	p, err := loadCompose(t, abs, []string{"UID=1234", "GID=2345", "HOME=/home/u", "MCP_ROUTER_INIT_DIR=/srv/init"})
	if err != nil {
		t.Fatalf("compose-go rejects docker-compose.yml: %v", err)
	}
	svc, ok := p.Services["router"]
	if !ok {
		t.Fatalf("no service router: %v", p.ServiceNames())
	}
	if svc.NetworkMode != "host" || !svc.StdinOpen || svc.User != "1234:2345" || strings.Join(svc.Command, " ") != "stdio" {
		t.Errorf("router: network_mode %q stdin_open %v user %q command %q; want host, true, 1234:2345, stdio",
			svc.NetworkMode, svc.StdinOpen, svc.User, svc.Command)
	}
	if svc.Build == nil || svc.Build.Dockerfile != "Dockerfile" {
		t.Errorf("router builds %+v, want the Dockerfile beside the compose file", svc.Build)
	}
	var data, initDir *types.ServiceVolumeConfig
	for i, v := range svc.Volumes {
		switch v.Target {
		case "/data":
			data = &svc.Volumes[i]
		case "/init":
			initDir = &svc.Volumes[i]
		}
	}
	switch {
	case data == nil:
		t.Error("no volume at /data")
	case data.Type != "bind" || data.Source != "/home/u/.config/mcp-router" || data.ReadOnly:
		t.Errorf("/data is %+v, want a writable bind of /home/u/.config/mcp-router", *data)
	case data.Bind == nil || bool(data.Bind.CreateHostPath):
		t.Errorf("/data's bind would let Docker create the host dir (root's, 0755): %+v", data.Bind)
	}
	switch {
	case initDir == nil:
		t.Error("no volume at /init")
	case initDir.Source != "/srv/init" || !initDir.ReadOnly:
		t.Errorf("/init is %+v, want /srv/init read-only", *initDir)
	}

	// MCP_ROUTER_DATA_DIR on the host moves the bind's source.
	p, err = loadCompose(t, abs, []string{"HOME=/home/u", "MCP_ROUTER_DATA_DIR=/var/mcpr"})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range p.Services["router"].Volumes {
		if v.Target == "/data" && v.Source != "/var/mcpr" {
			t.Errorf("MCP_ROUTER_DATA_DIR=/var/mcpr: /data's source is %q", v.Source)
		}
	}
}

// The parser is a real one: a compose file the spec rejects fails here, so
// the test above cannot pass on any text.
func TestDockerComposeParserRejectsBadFile(t *testing.T) {
	for name, body := range map[string]string{
		"unknown key":      "services:\n  router:\n    image: x\n    stdin_opne: true\n",
		"bad network mode": "services:\n  router:\n    image: x\n    network_mode: [host]\n",
	} {
		f := filepath.Join(t.TempDir(), "docker-compose.yml")
		if err := os.WriteFile(f, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := loadCompose(t, f, nil); err == nil {
			t.Errorf("%s: compose-go accepted\n%s", name, body)
		}
	}
}
