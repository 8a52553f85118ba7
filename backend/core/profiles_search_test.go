package core

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-router/mcp-router/backend/policy"
	"github.com/mcp-router/mcp-router/backend/profile"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/store"
	"github.com/mcp-router/mcp-router/internal/testmcp"
)

func callText(t *testing.T, c *client.Client, name string, args map[string]any) (*mcp.CallToolResult, error) {
	t.Helper()
	return c.CallTool(context.Background(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: name, Arguments: args}})
}

func textOf(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// searchNames runs search_tools and returns the names it found.
func searchNames(t *testing.T, c *client.Client, query string) []string {
	t.Helper()
	res, err := callText(t, c, "search_tools", map[string]any{"query": query, "limit": 20})
	if err != nil || res.IsError {
		t.Fatalf("search_tools %q: %v %+v", query, err, res)
	}
	var found struct {
		Tools []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal([]byte(textOf(res)), &found); err != nil {
		t.Fatalf("search_tools answer %q: %v", textOf(res), err)
	}
	var names []string
	for _, f := range found.Tools {
		if len(f.InputSchema) == 0 {
			t.Errorf("%s found without its input schema", f.Name)
		}
		names = append(names, f.Name)
	}
	return names
}

// A search profile: the client lists only the router's tools; search_tools
// finds the profile's tools (never another server's, never one the policy
// hides); call_tool calls a tool it was never listed through the policy,
// the hooks and the request log; add_tools puts a tool in its own list.
// Before the discovery step, /mcp/<profile> listed every tool and
// search_tools did not exist.
func TestSearchProfile(t *testing.T) {
	dir := t.TempDir()
	pol := "policies:\n  - name: no-deletes\n    tools:\n      hide: [\"delete_note\"]\n"
	if err := os.WriteFile(filepath.Join(dir, policy.FileName), []byte(pol), 0o600); err != nil {
		t.Fatal(err)
	}
	ep := serve(t, dir, []spec.Server{testmcp.Server("one"), testmcp.Server("two"), testmcp.Server("three")}, true)
	ctx := context.Background()
	if _, err := ep.core.Profiles.Create(ctx, store.Profile{Name: "ps", Mode: profile.ModeSearch, Servers: []string{"one", "two"},
		Tools: map[string][]string{"two": {"digest", "sleep"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := ep.core.Store.Hooks().Create(ctx, store.Hook{Name: "no-sleep", Enabled: true, ExecutionOrder: 1, HookType: "pre",
		Script: `if (context.toolName === 'sleep') return { continue: false, error: { message: 'no sleeping' } };`}); err != nil {
		t.Fatal(err)
	}
	if err := ep.core.Hooks.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	c, err := mcpClient(t, ep.url+"/ps", "")
	if err != nil {
		t.Fatal(err)
	}
	if got := listTools(t, c); !slices.Equal(got, []string{"search_tools", "call_tool", "add_tools"}) {
		t.Errorf("tools/list on a search profile: %v", got)
	}
	t.Run("search finds the profile's tools only", func(t *testing.T) {
		got := searchNames(t, c, "digest")
		slices.Sort(got)
		if !slices.Equal(got, []string{"one__digest", "two__digest"}) {
			t.Errorf("digest: %v", got)
		}
		for _, q := range []string{"delete note", "show what the router passed"} {
			for _, n := range searchNames(t, c, q) {
				if n == "one__delete_note" || strings.HasPrefix(n, "three__") || n == "two__show" {
					t.Errorf("%q found %s, which the profile or the policy keeps from it", q, n)
				}
			}
		}
	})
	t.Run("call_tool calls through the pipeline", func(t *testing.T) {
		res, err := callText(t, c, "call_tool", map[string]any{"name": "two__digest", "arguments": map[string]any{}})
		if err != nil || res.IsError {
			t.Fatalf("call_tool two__digest: %v %+v", err, res)
		}
		// call_tool reaches upstream tools only: not itself, not the router's other tools.
		for _, n := range []string{"call_tool", "search_tools"} {
			if _, err := callText(t, c, "call_tool", map[string]any{"name": n, "arguments": map[string]any{"name": "one__show"}}); err == nil {
				t.Errorf("call_tool of %s passed", n)
			}
		}
		if _, err := callText(t, c, "call_tool", map[string]any{"name": "three__show"}); err == nil || !strings.Contains(err.Error(), "not found") {
			t.Errorf("call_tool of a tool outside the profile: %v", err)
		}
		if _, err := callText(t, c, "call_tool", map[string]any{"name": "one__delete_note", "arguments": map[string]any{"id": "x"}}); err == nil {
			t.Errorf("call_tool of a tool the policy hides passed")
		}
		res, err = callText(t, c, "call_tool", map[string]any{"name": "two__sleep", "arguments": map[string]any{"seconds": 0}})
		if err == nil && !res.IsError {
			t.Errorf("call_tool past a hook that blocks it: %+v", res)
		} else if err != nil && !strings.Contains(err.Error(), "no sleeping") {
			t.Errorf("the hook's refusal: %v", err)
		}
		if err := ep.core.Requests.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		rows, err := ep.core.Store.Logs().List(ctx, store.LogFilter{})
		if err != nil {
			t.Fatal(err)
		}
		logged := map[string]bool{}
		for _, r := range rows {
			logged[r.Target+" "+r.Status] = true
		}
		for _, want := range []string{"two__digest ok", "call_tool ok", "two__sleep blocked"} {
			if !logged[want] {
				t.Errorf("the request log has no %q: %v", want, logged)
			}
		}
	})
	t.Run("add_tools puts a tool in the client's own list", func(t *testing.T) {
		res, err := callText(t, c, "add_tools", map[string]any{"names": []string{"one__show"}})
		if err != nil || res.IsError {
			t.Fatalf("add_tools: %v %+v", err, res)
		}
		if got := listTools(t, c); !slices.Equal(got, []string{"search_tools", "call_tool", "add_tools", "one__show"}) {
			t.Errorf("tools/list after add_tools: %v", got)
		}
		if res, err := callText(t, c, "one__show", nil); err != nil || res.IsError {
			t.Errorf("calling the added tool: %v %+v", err, res)
		}
		// Not a way around the profile or the policy.
		for _, n := range []string{"three__show", "one__delete_note"} {
			if res, err := callText(t, c, "add_tools", map[string]any{"names": []string{n}}); err != nil || !res.IsError {
				t.Errorf("add_tools %s: %v %+v", n, err, res)
			}
		}
		// Another client's list is its own.
		other, err := mcpClient(t, ep.url+"/ps", "")
		if err != nil {
			t.Fatal(err)
		}
		if got := listTools(t, other); len(got) != 3 {
			t.Errorf("another client's list: %v", got)
		}
	})
	t.Run("the router's tools are unknown outside a search profile", func(t *testing.T) {
		plain, err := mcpClient(t, ep.url, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range listTools(t, plain) {
			if n == "search_tools" || n == "call_tool" {
				t.Errorf("/mcp lists %s", n)
			}
		}
		if _, err := callText(t, plain, "call_tool", map[string]any{"name": "one__show"}); err == nil || !strings.Contains(err.Error(), "not found") {
			t.Errorf("call_tool at /mcp: %v", err)
		}
	})
}
