package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-router/mcp-router/backend/config"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/store"
)

// Hook overhead (issue 4): three more `serve --no-auth` routers, each with
// its own data dir and its own server-everything stdio upstream, whose only
// difference from the plain one is the pre hooks stored in the data dir
// before the router starts.

// earlyHook runs for every request and returns at once for an echo call:
// it reads one scalar and touches neither the arguments nor the response.
const earlyHook = "if (context.toolName !== 'nothing-matches') return;\ncontext.arguments.x = 1;\n"

// modifyingHook rewrites the echo call's message; the bench checks the
// router answers with the rewritten message before timing it.
const modifyingHook = "if (context.toolName === 'echo') { context.arguments.message = context.arguments.message + '!'; }\n"

// The labels of the hook paths and of the path they are compared with.
const (
	labelNoHooks   = "router HTTP → stdio upstream"
	labelFastOff   = "router HTTP → stdio, fast path off"
	labelEarly1    = "router HTTP → stdio + 1 early hook"
	labelEarly10   = "router HTTP → stdio + 10 early hooks"
	labelModifying = "router HTTP → stdio + 1 modifying hook"
)

// hookRouter is one router with hooks: the path label, the data dir name
// and its hooks' scripts, in execution order.
type hookRouter struct {
	label   string
	dir     string
	scripts []string
	check   string // a substring the echo result must hold, if set
	policy  string // policy.yaml's text, if any (policy.go)
}

func hookRouters() []hookRouter {
	ten := make([]string, 10)
	for i := range ten {
		ten[i] = earlyHook
	}
	return []hookRouter{
		{label: labelEarly1, dir: "early-1", scripts: []string{earlyHook}},
		{label: labelEarly10, dir: "early-10", scripts: ten},
		{label: labelModifying, dir: "modifying-1", scripts: []string{modifyingHook}, check: echoMessage + "!"},
		{label: labelPolicy100, dir: "policy-100", policy: policy100(), check: echoMessage},
	}
}

// startHookRouters prepares a data dir under root for each hook router,
// adds its hooks with `mcp-router hooks add`, starts `serve --no-auth` on
// it and returns one initialized session per router, in hookRouters order.
func startHookRouters(ctx context.Context, p *procs, root, everything, upURL, tool string, keep func(*session) *session) ([]*path, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	var paths []*path
	for _, hr := range hookRouters() {
		dir := filepath.Join(root, hr.dir)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, err
		}
		if err := storeUpstreams(ctx, dir, everything, upURL); err != nil {
			return nil, fmt.Errorf("%s: %w", hr.label, err)
		}
		for i, script := range hr.scripts {
			name := fmt.Sprintf("%s-%02d", hr.dir, i+1)
			if err := addHook(ctx, self, dir, name, i+1, script); err != nil {
				return nil, fmt.Errorf("%s: %w", hr.label, err)
			}
		}
		if err := checkHooks(ctx, self, dir, len(hr.scripts)); err != nil {
			return nil, fmt.Errorf("%s: %w", hr.label, err)
		}
		if hr.policy != "" {
			if err := os.WriteFile(filepath.Join(dir, "policy.yaml"), []byte(hr.policy), 0o600); err != nil {
				return nil, err
			}
			if out, err := cliRun(ctx, self, dir, "policy", "check"); err != nil || !strings.Contains(string(out), "ok, 100 rules") {
				return nil, fmt.Errorf("%s: policy check: %v %.200s", hr.label, err, out)
			}
		}
		_, url, err := p.routerServe(ctx, hr.label, dir, true, "")
		if err != nil {
			return nil, err
		}
		s, err := dialHTTP(ctx, url, "")
		if err != nil {
			return nil, fmt.Errorf("%s: %w", hr.label, err)
		}
		keep(s)
		if err := s.waitTools(ctx, 60*time.Second, tool); err != nil {
			return nil, fmt.Errorf("%s: %w", hr.label, err)
		}
		if hr.check != "" {
			res, err := s.request(ctx, string(mcp.MethodToolsCall), map[string]any{
				"name": tool, "arguments": map[string]any{"message": echoMessage}})
			if err != nil {
				return nil, fmt.Errorf("%s: %w", hr.label, err)
			}
			if !strings.Contains(string(res), hr.check) {
				return nil, fmt.Errorf("%s: the echo answered %.200s, want %q in it", hr.label, res, hr.check)
			}
		}
		paths = append(paths, &path{label: hr.label, s: s, tool: tool})
	}
	return paths, nil
}

// storeUpstreams stores the same two upstreams as the plain router's data
// dir, so that the hooks are the only difference.
func storeUpstreams(ctx context.Context, dir, everything, upURL string) error {
	st, err := store.Open(config.DBPath(dir))
	if err != nil {
		return err
	}
	defer st.Close()
	for _, s := range []spec.Server{
		{Name: "everything", Transport: spec.Stdio, Command: everything, Args: []string{"stdio"}, Enabled: true, PrefixMode: spec.PrefixAlways},
		{Name: "everything-http", Transport: spec.HTTP, URL: upURL, Enabled: true, PrefixMode: spec.PrefixAlways},
	} {
		if _, err := st.Servers().Create(ctx, s); err != nil {
			return fmt.Errorf("add server %s: %w", s.Name, err)
		}
	}
	return nil
}

// cliRun runs `mcp-router --data-dir DIR args…` (this binary, re-executed)
// to completion and returns its standard output.
func cliRun(ctx context.Context, self, dir string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, self, append([]string{routerArg, "--data-dir", dir, "--log-level", "warn"}, args...)...)
	cmd.Env = os.Environ()
	cmd.SysProcAttr = sysAttr(syscall.SIGKILL)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("mcp-router %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// addHook stores one pre hook with `mcp-router hooks add`.
func addHook(ctx context.Context, self, dir, name string, order int, script string) error {
	file := filepath.Join(dir, name+".js")
	if err := os.WriteFile(file, []byte(script), 0o600); err != nil {
		return err
	}
	_, err := cliRun(ctx, self, dir, "hooks", "add", name, "--type", "pre", "--file", file, "--order", strconv.Itoa(order))
	return err
}

// checkHooks makes sure `hooks list --json` shows want enabled pre hooks.
func checkHooks(ctx context.Context, self, dir string, want int) error {
	out, err := cliRun(ctx, self, dir, "hooks", "list", "--json")
	if err != nil {
		return err
	}
	var hooks []struct {
		Enabled  bool   `json:"enabled"`
		HookType string `json:"hookType"`
	}
	if err := json.Unmarshal(out, &hooks); err != nil {
		return fmt.Errorf("hooks list --json: %w: %.200s", err, out)
	}
	n := 0
	for _, h := range hooks {
		if h.Enabled && h.HookType == store.HookPre {
			n++
		}
	}
	if n != want {
		return fmt.Errorf("hooks list: %d enabled pre hooks, want %d", n, want)
	}
	return nil
}
