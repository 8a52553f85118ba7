package appapi

import (
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/internal/testmcp"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// The Tools page lists abilities as tools/list does: an ability over a
// task-only backend tool is left out (a call of it is refused), the one
// over an ordinary tool is there with its backend; the UI's tool runner
// gets the refusal's reason.
func TestToolsPageLeavesOutAbilitiesOverTaskOnlyTools(t *testing.T) {
	remote := httptest.NewServer(testmcp.HTTPHandlerWithTaskTool())
	// Closed after the fixture's router (cleanups run last-registered
	// first): closed before it, Close waits on the router's open stream.
	t.Cleanup(remote.Close)
	f := newFixture(t, spec.Server{Name: "notes", URL: remote.URL, Enabled: true})
	if _, err := f.api.SavePolicy(`abilities:
  - name: lookup
    permission: read
    server: notes
    tool: show
    input_schema: {type: object}
  - name: research_it
    permission: read
    server: notes
    tool: research
    input_schema: {type: object}
`); err != nil {
		t.Fatal(err)
	}
	names := func() []string {
		tools, _ := f.api.ListTools()
		var out []string
		for _, x := range tools {
			out = append(out, x.Name)
		}
		return out
	}
	testpeers.Eventually(t, 10*time.Second, "lookup on the Tools page", func() bool { return slices.Contains(names(), "lookup") })
	if got := names(); slices.Contains(got, "research_it") || !slices.Contains(got, "notes__research") {
		t.Errorf("tools: %v", got)
	}
	tools, _ := f.api.ListTools()
	if i := slices.IndexFunc(tools, func(x AggregatedTool) bool { return x.Name == "lookup" }); tools[i].Server != "notes" || tools[i].Tool != "show" {
		t.Errorf("lookup = %+v", tools[i])
	}
	res, err := f.api.CallTool("research_it", "{}")
	if err != nil || !strings.Contains(res.Error, "runs only as a task") {
		t.Errorf("CallTool research_it = %+v, %v", res, err)
	}
}
