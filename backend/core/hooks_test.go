package core

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-router/mcp-router/backend/config"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/store"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// hookRig is a real router over real HTTP with server-everything behind it,
// and a second store handle standing for the CLI.
type hookRig struct {
	ep  *endpoint
	cli *store.Store
	c   *client.Client
}

func newHookRig(t *testing.T) *hookRig {
	t.Helper()
	dir := t.TempDir()
	ep := serve(t, dir, []spec.Server{everythingDef(t, "everything")}, true)
	cli, err := store.Open(config.DBPath(dir))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cli.Close() })
	c, err := mcpClient(t, ep.url, "")
	if err != nil {
		t.Fatal(err)
	}
	return &hookRig{ep: ep, cli: cli, c: c}
}

// add stores a hook the way `mcp-router hooks add` does and waits until the
// running router has loaded it (it reloads when the database changes).
func (r *hookRig) add(t *testing.T, name, typ string, order int, script string) {
	t.Helper()
	if _, err := r.cli.Hooks().Create(context.Background(), store.Hook{Name: name, Enabled: true, ExecutionOrder: order, HookType: typ, Script: script}); err != nil {
		t.Fatal(err)
	}
	r.waitLoaded(t)
}

// waitLoaded reloads explicitly so subtests don't race the watcher; the
// watcher's own 2 s promise has a subtest of its own.
func (r *hookRig) waitLoaded(t *testing.T) {
	t.Helper()
	if err := r.ep.core.Hooks.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func (r *hookRig) echo(t *testing.T, msg string) (string, error) {
	t.Helper()
	res, err := r.c.CallTool(context.Background(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "everything__echo", Arguments: map[string]any{"message": msg}}})
	if err != nil {
		return "", err
	}
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n"), nil
}

func TestHooksThroughTheEndpoint(t *testing.T) {
	r := newHookRig(t)

	t.Run("a pre hook blocks a call with an error naming the hook", func(t *testing.T) {
		r.add(t, "no-secrets", "pre", 10, `
if (context.toolName === 'echo' && String(context.arguments.message).includes('secret')) {
  return { continue: false, error: { message: 'no secrets please' } };
}`)
		_, err := r.echo(t, "my secret plan")
		if err == nil || !strings.Contains(err.Error(), `blocked by hook "no-secrets": no secrets please`) {
			t.Fatalf("error = %v", err)
		}
		if got, err := r.echo(t, "harmless"); err != nil || !strings.Contains(got, "harmless") {
			t.Fatalf("an unmatched call: %q %v", got, err)
		}
		testpeers.Eventually(t, 3*time.Second, "the blocked call in the request log", func() bool {
			rows, _ := r.cli.Logs().List(context.Background(), store.LogFilter{Status: store.StatusBlocked})
			return len(rows) > 0 && strings.Contains(rows[0].Error, "no-secrets")
		})
	})

	t.Run("a pre hook rewrites an argument and the upstream sees it", func(t *testing.T) {
		r.add(t, "shout", "pre", 20, `
if (context.toolName === 'echo') { context.arguments.message = String(context.arguments.message).toUpperCase(); }`)
		got, err := r.echo(t, "quiet words")
		if err != nil || !strings.Contains(got, "QUIET WORDS") {
			t.Fatalf("echo = %q, %v", got, err)
		}
	})

	t.Run("two hooks apply in executionOrder and shared carries from pre to post", func(t *testing.T) {
		r.add(t, "mark-a", "pre", 30, `if (context.toolName === 'echo') { context.arguments.message += '-A'; context.shared.seen = 'pre ran'; }`)
		r.add(t, "mark-b", "pre", 40, `if (context.toolName === 'echo') { context.arguments.message += '-B'; }`)
		r.add(t, "report-shared", "post", 10, `
if (context.toolName === 'echo' && context.response) {
  context.response.content.push({ type: 'text', text: 'shared: ' + context.shared.seen });
}`)
		got, err := r.echo(t, "x")
		if err != nil || !strings.Contains(got, "X-A-B") || !strings.Contains(got, "shared: pre ran") {
			t.Fatalf("echo = %q, %v", got, err)
		}
	})

	t.Run("a post hook redacts text in a result", func(t *testing.T) {
		r.add(t, "redact", "post", 20, `
for (const item of (context.response && context.response.content) || []) {
  if (item.type === 'text') item.text = item.text.replace(/[0-9]{4}-[0-9]{4}/g, '####-####');
}`)
		got, err := r.echo(t, "card 1234-5678")
		if err != nil || strings.Contains(got, "1234-5678") || !strings.Contains(got, "####-####") {
			t.Fatalf("echo = %q, %v", got, err)
		}
	})

	t.Run("a post hook hides a tool from tools/list", func(t *testing.T) {
		r.add(t, "hide-env", "post", 30, `
if (context.requestType === 'ListTools') {
  context.response.tools = context.response.tools.filter(t => t.name !== 'everything__get-env');
}`)
		names := strings.Join(listTools(t, r.c), ",")
		if strings.Contains(names, "everything__get-env") || !strings.Contains(names, "everything__echo") {
			t.Fatalf("tools = %s", names)
		}
	})

	t.Run("a disabled hook has no effect", func(t *testing.T) {
		for _, name := range []string{"shout", "mark-a", "mark-b", "report-shared", "redact", "no-secrets"} {
			if err := r.cli.Hooks().SetEnabled(context.Background(), name, false); err != nil {
				t.Fatal(err)
			}
		}
		r.waitLoaded(t)
		got, err := r.echo(t, "secret 1234-5678")
		if err != nil || !strings.Contains(got, "secret 1234-5678") {
			t.Fatalf("echo with hooks disabled = %q, %v", got, err)
		}
	})

	t.Run("a pre hook can refuse a list request", func(t *testing.T) {
		r.add(t, "no-prompts", "pre", 50, `if (context.requestType === 'ListPrompts') return { continue: false, error: { message: 'prompts are off' } };`)
		_, err := r.c.ListPrompts(context.Background(), mcp.ListPromptsRequest{})
		if err == nil || !strings.Contains(err.Error(), "prompts are off") {
			t.Fatalf("prompts/list error = %v", err)
		}
	})

	t.Run("a hook added by the CLI takes effect within 2 s without a reload", func(t *testing.T) {
		if _, err := r.cli.Hooks().Create(context.Background(), store.Hook{Name: "late", Enabled: true, ExecutionOrder: 55, HookType: "pre",
			Script: `if (context.toolName === 'echo' && context.arguments.message === 'late') return { continue: false, error: { message: 'late hook' } };`}); err != nil {
			t.Fatal(err)
		}
		testpeers.Eventually(t, 2*time.Second, "the new hook to block", func() bool {
			_, err := r.echo(t, "late")
			return err != nil && strings.Contains(err.Error(), "late hook")
		})
	})

	t.Run("a pre hook can refuse a completion", func(t *testing.T) {
		// An earlier subtest's hook refuses prompts/list; when run alone it
		// does not exist.
		if err := r.cli.Hooks().SetEnabled(context.Background(), "no-prompts", false); err != nil && !errors.Is(err, store.ErrNotFound) {
			t.Fatal(err)
		}
		r.waitLoaded(t)
		prompts, err := r.c.ListPrompts(context.Background(), mcp.ListPromptsRequest{})
		if err != nil || len(prompts.Prompts) == 0 {
			t.Fatalf("no prompt to complete: %v", err)
		}
		r.add(t, "no-complete", "pre", 57, `if (context.requestType === 'Complete') return { continue: false, error: { message: 'no completions' } };`)
		_, err = r.c.Complete(context.Background(), mcp.CompleteRequest{Params: mcp.CompleteParams{
			Ref:      mcp.PromptReference{Type: "ref/prompt", Name: prompts.Prompts[0].Name},
			Argument: mcp.CompleteArgument{Name: "x", Value: "a"}}})
		if err == nil || !strings.Contains(err.Error(), "no completions") {
			t.Fatalf("completion error = %v", err)
		}
	})

	t.Run("a hostile hook is contained and the call goes on", func(t *testing.T) {
		r.add(t, "spin", "pre", 60, `while (true) {}`)
		start := time.Now()
		got, err := r.echo(t, "after the spin")
		if err != nil || !strings.Contains(got, "after the spin") {
			t.Fatalf("echo after a runaway hook = %q, %v", got, err)
		}
		if time.Since(start) > 15*time.Second {
			t.Errorf("the runaway hook was not stopped in time: %s", time.Since(start))
		}
	})
}
