package gateway

import (
	"github.com/mcp-router/mcp-router/internal/testmcp"

	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// The test binary doubles as a stdio upstream when MCPR_FAKE_MODE is set
// (go-sdk's mcp/cmd_test.go pattern).
func TestMain(m *testing.M) {
	testmcp.ServeIfAsked()
	if os.Getenv("MCPR_FAKE_MODE") == "blocker" {
		s := server.NewMCPServer("blocker", "1", server.WithToolCapabilities(false))
		s.AddTool(mcp.NewTool("block"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			fmt.Fprintln(os.Stderr, "block: started")
			select {
			case <-ctx.Done():
				fmt.Fprintln(os.Stderr, "block: cancelled by the client")
				return nil, ctx.Err()
			case <-time.After(20 * time.Second):
				return mcp.NewToolResultText("finished"), nil
			}
		})
		_ = server.ServeStdio(s)
		os.Exit(0)
	}
	if os.Getenv("MCPR_FAKE_MODE") == "asker" {
		serveAsker()
		os.Exit(0)
	}
	if os.Getenv("MCPR_FAKE_MODE") == "logger" {
		serveLogger()
		os.Exit(0)
	}
	if os.Getenv("MCPR_FAKE_MODE") == "broken" {
		serveBroken()
		os.Exit(0)
	}
	if os.Getenv("MCPR_FAKE_MODE") == "recorder" {
		serveRecorder(os.Getenv("MCPR_REC_SCHEME"))
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// serveBroken is a raw stdio upstream whose tools fail in each way an
// upstream can: "fail" answers a JSON-RPC error with data, "malformed" a
// result that is not an object, "hang" never answers, "crash" exits while
// the call waits; "echo" works; "tasky" must be called as a task.
func serveBroken() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name      string         `json:"name"`
				Arguments map[string]any `json:"arguments"`
			} `json:"params"`
		}
		if json.Unmarshal(in.Bytes(), &req) != nil || len(req.ID) == 0 {
			continue
		}
		reply := map[string]any{"jsonrpc": "2.0", "id": req.ID}
		switch req.Method {
		case "initialize":
			reply["result"] = map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{"tools": map[string]any{}},
				"serverInfo": map[string]any{"name": "broken", "version": "1"}}
		case "tools/list":
			var tools []map[string]any
			for _, n := range []string{"echo", "fail", "malformed", "hang", "crash"} {
				tools = append(tools, map[string]any{"name": n, "inputSchema": map[string]any{"type": "object"}})
			}
			tools = append(tools, map[string]any{"name": "tasky", "inputSchema": map[string]any{"type": "object"},
				"execution": map[string]any{"taskSupport": "required"}})
			reply["result"] = map[string]any{"tools": tools}
		case "tools/call":
			switch req.Params.Name {
			case "echo":
				reply["result"] = map[string]any{"content": []any{map[string]any{"type": "text", "text": fmt.Sprint(req.Params.Arguments["message"])}}}
			case "fail":
				reply["error"] = map[string]any{"code": -32050, "message": "the tool <failed> & said so", "data": map[string]any{"detail": 7}}
			case "malformed":
				reply["result"] = "not a result"
			case "hang":
				continue
			case "crash":
				os.Exit(3)
			}
		default:
			reply["result"] = map[string]any{}
		}
		_ = out.Encode(reply)
	}
}

// serveRecorder is a raw stdio upstream that offers one of everything the
// router forwards (a tool, a prompt with a completable argument, a
// resource, a resource template, subscriptions, logging) and writes
// "recv <method>" on stderr for each request as it reads it, one at a time,
// so the console shows in order what reached it. Its URIs use scheme.
func serveRecorder(scheme string) {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				URI string `json:"uri"`
			} `json:"params"`
		}
		if json.Unmarshal(in.Bytes(), &req) != nil || len(req.ID) == 0 {
			continue
		}
		fmt.Fprintln(os.Stderr, "recv "+req.Method)
		reply := map[string]any{"jsonrpc": "2.0", "id": req.ID}
		text := func(s string) map[string]any { return map[string]any{"type": "text", "text": s} }
		switch req.Method {
		case "initialize":
			reply["result"] = map[string]any{"protocolVersion": "2025-11-25",
				"capabilities": map[string]any{"tools": map[string]any{}, "prompts": map[string]any{},
					"resources": map[string]any{"subscribe": true}, "logging": map[string]any{}, "completions": map[string]any{}},
				"serverInfo": map[string]any{"name": "recorder", "version": "1"}}
		case "tools/list":
			reply["result"] = map[string]any{"tools": []any{map[string]any{"name": "echo", "inputSchema": map[string]any{"type": "object"}}}}
		case "prompts/list":
			reply["result"] = map[string]any{"prompts": []any{map[string]any{"name": "greet",
				"arguments": []any{map[string]any{"name": "name"}}}}}
		case "resources/list":
			reply["result"] = map[string]any{"resources": []any{map[string]any{"uri": scheme + "://doc", "name": "doc"}}}
		case "resources/templates/list":
			reply["result"] = map[string]any{"resourceTemplates": []any{map[string]any{"uriTemplate": scheme + "://items/{id}", "name": "item"}}}
		case "tools/call":
			reply["result"] = map[string]any{"content": []any{text("ok")}}
		case "prompts/get":
			reply["result"] = map[string]any{"messages": []any{map[string]any{"role": "user", "content": text("hi")}}}
		case "resources/read":
			reply["result"] = map[string]any{"contents": []any{map[string]any{"uri": req.Params.URI, "text": "doc"}}}
		case "completion/complete":
			reply["result"] = map[string]any{"completion": map[string]any{"values": []any{"a"}}}
		default:
			reply["result"] = map[string]any{}
		}
		_ = out.Encode(reply)
		if req.Method == "resources/subscribe" && os.Getenv("MCPR_REC_NOTIFY") == "1" {
			// The subscribed resource changes at once.
			_ = out.Encode(map[string]any{"jsonrpc": "2.0", "method": "notifications/resources/updated",
				"params": map[string]any{"uri": req.Params.URI}})
		}
	}
}
