package upstream

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// The test binary doubles as a stdio MCP server with odd behaviours the real
// peers do not offer (go-sdk's mcp/cmd_test.go pattern): set
// MCPR_FAKE_MODE and run os.Args[0].
func TestMain(m *testing.M) {
	if mode := os.Getenv("MCPR_FAKE_MODE"); mode != "" {
		runFake(mode)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func runFake(mode string) {
	switch mode {
	case "listchanged":
		s := server.NewMCPServer("fake", "1.0", server.WithToolCapabilities(true))
		s.AddTool(mcp.NewTool("grow"), func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			s.AddTool(mcp.NewTool("extra"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.NewToolResultText("extra"), nil
			})
			return mcp.NewToolResultText("grown"), nil
		})
		_ = server.ServeStdio(s)
	case "stubborn":
		// Ignores stdin EOF and SIGTERM, and leaves a grandchild behind:
		// only the group SIGKILL ends it.
		signal.Ignore(syscall.SIGTERM)
		child := exec.Command("sleep", "300")
		_ = child.Start()
		s := server.NewMCPServer("stubborn", "1.0", server.WithToolCapabilities(false))
		s.AddTool(mcp.NewTool("noop"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("ok"), nil
		})
		_ = server.ServeStdio(s)
		time.Sleep(time.Hour)
	case "env":
		// Says on stderr which of MCPR_FAKE_ENV_NAMES it was given, then
		// serves.
		for _, name := range strings.Split(os.Getenv("MCPR_FAKE_ENV_NAMES"), ",") {
			if v, ok := os.LookupEnv(name); ok {
				fmt.Fprintf(os.Stderr, "env %s=%s\n", name, v)
			} else {
				fmt.Fprintf(os.Stderr, "env %s unset\n", name)
			}
		}
		_ = server.ServeStdio(server.NewMCPServer("env", "1.0"))
	case "silent":
		// Never answers the handshake, like an npx still downloading its
		// package, and has a child of its own as npx does.
		child := exec.Command("sleep", "300")
		_ = child.Start()
		time.Sleep(time.Hour)
	case "hang":
		// Completes the handshake and the first listing, then stops reading.
		scriptedServer(`{"tools": []}`, true)
	case "nameless":
		// Lists a tool that has no name: malformed upstream output.
		scriptedServer(`{"tools": [{"description": "who am I"}]}`, false)
	case "huge":
		// Answers "huge" with 1 MiB of text, "small" with a word.
		s := server.NewMCPServer("huge", "1.0", server.WithToolCapabilities(false))
		s.AddTool(mcp.NewTool("huge"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(strings.Repeat("x", 1<<20)), nil
		})
		s.AddTool(mcp.NewTool("small"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("small"), nil
		})
		_ = server.ServeStdio(s)
	case "spam":
		for i := 0; i < 3000; i++ {
			fmt.Fprintf(os.Stderr, "line %d\n", i)
		}
		s := server.NewMCPServer("spam", "1.0")
		_ = server.ServeStdio(s)
	case "whoami":
		// Tells who started it (its args, $WHO, its pid) and, asked,
		// which roots its client gives it. A template left unexpanded in
		// its args or $WHO is a failed start.
		for _, a := range append(os.Args[1:], os.Getenv("WHO")) {
			if strings.Contains(a, "${") {
				fmt.Fprintf(os.Stderr, "unexpanded template %q\n", a)
				os.Exit(3)
			}
		}
		s := server.NewMCPServer("whoami", "1.0", server.WithToolCapabilities(false))
		var rootsChanged atomic.Int32
		s.AddNotificationHandler("notifications/roots/list_changed", func(context.Context, mcp.JSONRPCNotification) { rootsChanged.Add(1) })
		s.AddTool(mcp.NewTool("changes"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(fmt.Sprint(rootsChanged.Load())), nil
		})
		s.AddTool(mcp.NewTool("whoami"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			b, _ := json.Marshal(map[string]any{"args": os.Args[1:], "who": os.Getenv("WHO"), "pid": os.Getpid()})
			return mcp.NewToolResultText(string(b)), nil
		})
		s.AddTool(mcp.NewTool("roots"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, err := s.RequestRoots(ctx, mcp.ListRootsRequest{})
			if err != nil {
				return mcp.NewToolResultError(err.Error()), nil
			}
			var uris []string
			for _, r := range res.Roots {
				uris = append(uris, r.URI)
			}
			return mcp.NewToolResultText(strings.Join(uris, ",")), nil
		})
		_ = server.ServeStdio(s)
	case "modern":
		// Speaks only 2026-07-28 on its pipe: answers server/discover,
		// never answers tools/call, and appends the method of each
		// notification it reads to the file MCPR_FAKE_NOTES.
		modernScriptedServer(os.Getenv("MCPR_FAKE_NOTES"))
	case "exit":
		fmt.Fprintln(os.Stderr, "fatal: missing API key")
		os.Exit(3)
	case "router":
		// Answers initialize as a router with the instance id in
		// MCPR_FAKE_INSTANCE, prints the chain it was given, and counts
		// its starts in the file MCPR_FAKE_COUNT.
		countStart(os.Getenv("MCPR_FAKE_COUNT"))
		fmt.Fprintf(os.Stderr, "chain=%s\n", os.Getenv(EnvRouterChain))
		_ = server.ServeStdio(fakeRouter(os.Getenv("MCPR_FAKE_INSTANCE")))
	}
}

// scriptedServer answers initialize, then tools/list with toolsResult; with
// hang it stops reading after that.
func scriptedServer(toolsResult string, hang bool) {
	in := bufio.NewScanner(os.Stdin)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.Unmarshal(in.Bytes(), &msg)
		switch msg.Method {
		case "initialize":
			_ = out.Encode(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": map[string]any{
				"protocolVersion": "2025-11-25", "capabilities": map[string]any{"tools": map[string]any{}},
				"serverInfo": map[string]any{"name": "hang", "version": "1"},
			}})
		case "tools/list":
			_ = out.Encode(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": json.RawMessage(toolsResult)})
			if hang {
				time.Sleep(time.Hour)
			}
		}
	}
}

// modernScriptedServer is the "modern" fake: see runFake.
func modernScriptedServer(notes string) {
	in := bufio.NewScanner(os.Stdin)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		_ = json.Unmarshal(in.Bytes(), &msg)
		switch {
		case msg.ID == nil:
			if f, err := os.OpenFile(notes, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
				fmt.Fprintf(f, "%s %s\n", msg.Method, msg.Params)
				_ = f.Close()
			}
		case msg.Method == "server/discover":
			_ = out.Encode(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": map[string]any{
				"supportedVersions": []string{"2026-07-28"}, "capabilities": map[string]any{"tools": map[string]any{}},
				"_meta": map[string]any{"io.modelcontextprotocol/serverInfo": map[string]any{"name": "modern-fake", "version": "1"}},
			}})
		}
	}
}
