package config

import (
	"reflect"
	"strings"
	"testing"

	"github.com/mcp-router/mcp-router/backend/spec"
)

// What an export writes imports back as it was: every field the client
// config format carries, passUpstreamAuth included; a built-in server is
// left out and reported.
func TestExportImportsBackAsItWas(t *testing.T) {
	defs := []spec.Server{
		{Name: "fs", Transport: spec.Stdio, Command: "npx", Args: []string{"-y", "server-fs", "${client.roots}"}, Env: map[string]string{"DEBUG": "1", "WHO": "${client.name}"},
			Cwd: "/srv", Enabled: true, Isolation: spec.PerClient, Protocol: spec.Protocol20260728, Chat: spec.Chat{SystemInstruction: "use fs", ResponseInstruction: "cite paths", AutoContextTool: "list"}},
		{Name: "gh", Transport: spec.HTTP, URL: "https://api.example.com/mcp?x=<1>&y=2", Headers: map[string]string{"X-Team": "a"},
			PassUpstreamAuth: true, Enabled: true, Protocol: spec.Protocol20251125, Start: spec.StartLazy},
		{Name: "legacy", Transport: spec.SSE, URL: "https://old.example.com/events", PassUpstreamAuth: true},
		{Name: "plain", Transport: spec.HTTP, URL: "https://plain.example.com/mcp", Enabled: true},
		{Name: "state_gate", Transport: spec.Builtin, Enabled: true},
	}
	for i := range defs {
		defs[i].Normalize()
		if err := defs[i].Validate(); err != nil {
			t.Fatal(err)
		}
	}
	data, skipped, err := ExportClientConfig(defs)
	if err != nil {
		t.Fatal(err)
	}
	if len(skipped) != 1 || skipped[0].Name != "state_gate" || skipped[0].Reason != SkipReasonBuiltin {
		t.Errorf("skipped %+v", skipped)
	}
	if strings.Contains(string(data), `\u003c`) || !strings.Contains(string(data), `"passUpstreamAuth": true`) {
		t.Errorf("export:\n%s", data)
	}
	back, err := ParseClientConfig(data)
	if err != nil {
		t.Fatalf("the export does not import: %v\n%s", err, data)
	}
	if !reflect.DeepEqual(back, defs[:4]) {
		t.Errorf("round trip:\n got %+v\nwant %+v\n%s", back, defs[:4], data)
	}
	if !back[0].IsPerClient() || back[1].IsPerClient() || !strings.Contains(string(data), `"isolation": "per-client"`) {
		t.Errorf("isolation after the round trip: %+v", back)
	}
	if back[0].Protocol != spec.Protocol20260728 || back[1].Protocol != spec.Protocol20251125 || back[3].Protocol != spec.ProtocolAuto ||
		!strings.Contains(string(data), `"protocol": "2026-07-28"`) || strings.Count(string(data), `"protocol"`) != 2 {
		t.Errorf("protocol after the round trip: %+v\n%s", back, data)
	}
	if back[1].Start != spec.StartLazy || !strings.Contains(string(data), `"start": "lazy"`) {
		t.Errorf("start after the round trip: %+v\n%s", back, data)
	}
	if back[3].PassUpstreamAuth || !back[1].PassUpstreamAuth || !back[2].PassUpstreamAuth {
		t.Errorf("passUpstreamAuth after the round trip: %+v", back)
	}
}
