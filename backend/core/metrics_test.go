package core

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/mcp-router/mcp-router/backend/spec"
)

func scrape(t *testing.T, addr, token string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, "http://"+addr+PathMetrics, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// /metrics over real HTTP: only an admin token reads it, and what it says
// is what happened — a call of a real tool under its server, tool and
// status, an unknown tool without a label of its own, the upstream's state
// and the open session — in a form Prometheus' own parser reads.
func TestMetricsEndpoint(t *testing.T) {
	ep := serve(t, t.TempDir(), []spec.Server{everythingDef(t, "one")}, false)
	ctx := context.Background()
	clientToken, _, err := ep.core.Auth.Create(ctx, "client", nil)
	if err != nil {
		t.Fatal(err)
	}
	adminToken, _, err := ep.core.Auth.CreateAdmin(ctx, "scraper")
	if err != nil {
		t.Fatal(err)
	}
	c, err := mcpClient(t, ep.url, clientToken)
	if err != nil {
		t.Fatal(err)
	}
	echo := ""
	for _, n := range listTools(t, c) {
		if strings.HasSuffix(n, "echo") {
			echo = n
		}
	}
	if _, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: echo, Arguments: map[string]any{"message": "hi"}}}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20; i++ {
		_, _ = c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: fmt.Sprintf("no-such-tool-%d", i)}})
	}

	if code, body := scrape(t, ep.addr, ""); code != http.StatusUnauthorized {
		t.Errorf("without a token: HTTP %d %s", code, body)
	}
	if code, body := scrape(t, ep.addr, clientToken); code != http.StatusForbidden || !strings.Contains(body, "admin") {
		t.Errorf("with a client token: HTTP %d %s", code, body)
	}
	code, body := scrape(t, ep.addr, adminToken)
	if code != http.StatusOK {
		t.Fatalf("with an admin token: HTTP %d %s", code, body)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		t.Fatalf("Prometheus' parser refuses the answer: %v\n%s", err, body)
	}
	find := func(name string, want map[string]string) *dto.Metric {
		f := fams[name]
		if f == nil {
			return nil
		}
	next:
		for _, m := range f.GetMetric() {
			l := map[string]string{}
			for _, p := range m.GetLabel() {
				l[p.GetName()] = p.GetValue()
			}
			for k, v := range want {
				if l[k] != v {
					continue next
				}
			}
			return m
		}
		return nil
	}
	if m := find("mcpr_requests_total", map[string]string{"server": "one", "method": "tools/call", "tool": echo, "status": "ok"}); m == nil || m.GetCounter().GetValue() != 1 {
		t.Errorf("the echo call: %v\n%s", m, body)
	}
	if strings.Contains(body, "no-such-tool") {
		t.Errorf("an unknown tool's name became a label")
	}
	if m := find("mcpr_requests_total", map[string]string{"method": "tools/call", "tool": "", "status": "error"}); m == nil || m.GetCounter().GetValue() != 20 {
		t.Errorf("the unknown tools' calls: %v", m)
	}
	if m := find("mcpr_upstream_state", map[string]string{"server": "one", "state": "running"}); m == nil || m.GetGauge().GetValue() != 1 {
		t.Errorf("upstream state: %v", m)
	}
	if m := find("mcpr_sessions", nil); m == nil || m.GetGauge().GetValue() < 1 {
		t.Errorf("sessions: %v", m)
	}
	for _, name := range []string{"mcpr_request_duration_seconds", "mcpr_approvals_waiting", "mcpr_request_log_dropped_total", "go_goroutines"} {
		if fams[name] == nil {
			t.Errorf("%s missing", name)
		}
	}
}

// With tokens off (serve --no-auth) /metrics is open like /mcp, still
// behind the Host guard: a page on another site cannot read it through DNS
// rebinding.
func TestMetricsWithoutTokens(t *testing.T) {
	ep := serve(t, t.TempDir(), nil, true)
	if code, body := scrape(t, ep.addr, ""); code != http.StatusOK || !strings.Contains(body, "mcpr_sessions") {
		t.Errorf("HTTP %d %.200s", code, body)
	}
	req, _ := http.NewRequest(http.MethodGet, "http://"+ep.addr+PathMetrics, nil)
	req.Host = "attacker.example"
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("a foreign Host got HTTP %d", resp.StatusCode)
	}
}
