// Package testmcp turns a test binary into a small MCP server over stdio,
// the pattern of go-sdk's mcp/cmd_test.go: a real subprocess without an
// external file. A package's TestMain calls ServeIfAsked first; Server
// returns the definition that starts the binary in that role.
//
// Its tools show what the router passed the process and let tests time it:
//
//	show   {"args": [...], "env": {"KNOB": ...}, "header": ""}  the arguments and $KNOB
//	digest "env:<hex> header:<hex>"                             Digest of $KNOB and of the X-Knob header
//	sleep  {"seconds": N}                                        answers after N seconds
//
// MCPR_TESTMCP_DELAY (a Go duration) makes it wait that long before it
// reads its first message: an upstream that takes long to start.
package testmcp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-router/mcp-router/backend/spec"
)

// Environment variables of the server role.
const (
	EnvServe = "MCPR_TESTMCP"
	EnvDelay = "MCPR_TESTMCP_DELAY"
	// EnvKnob is the variable the show tool reports.
	EnvKnob = "KNOB"
	// HeaderKnob is the request header the HTTP server's show tool reports.
	HeaderKnob = "X-Knob"
)

// ServeIfAsked serves MCP on stdin/stdout and exits when the process was
// started as the server (EnvServe=1); otherwise it returns at once.
func ServeIfAsked() {
	if os.Getenv(EnvServe) != "1" {
		return
	}
	if d, err := time.ParseDuration(os.Getenv(EnvDelay)); err == nil {
		time.Sleep(d)
	}
	if err := server.ServeStdio(newServer()); err != nil {
		fmt.Fprintln(os.Stderr, "testmcp:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// Server is a stdio definition that runs this test binary as the server.
func Server(name string, args ...string) spec.Server {
	return spec.Server{Name: name, Transport: spec.Stdio, PrefixMode: spec.PrefixAlways, Command: os.Args[0], Args: args, Enabled: true,
		Env: map[string]string{EnvServe: "1"}}
}

type headerKey struct{}

// HTTPHandler is the same server over streamable HTTP; its show tool
// reports the HeaderKnob request header.
func HTTPHandler() http.Handler { return httpHandler(newServer()) }

// HTTPHandlerWithTaskTool is HTTPHandler with one more tool, research,
// that declares execution.taskSupport "required" (MCP 2025-11-25 tasks):
// a call without a task is refused by the server.
func HTTPHandlerWithTaskTool() http.Handler {
	s := newServer()
	s.AddTool(mcp.NewTool("research", mcp.WithDescription("runs only as a task"),
		mcp.WithTaskSupport(mcp.TaskSupportRequired), mcp.WithString("topic")),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("researched " + req.GetString("topic", "")), nil
		})
	return httpHandler(s)
}

func httpHandler(s *server.MCPServer) http.Handler {
	return server.NewStreamableHTTPServer(s, server.WithHTTPContextFunc(
		func(ctx context.Context, r *http.Request) context.Context {
			return context.WithValue(ctx, headerKey{}, r.Header.Get(HeaderKnob))
		}))
}

// Digest is how the digest tool shows a value: 16 hex digits of its
// SHA-256.
func Digest(v string) string {
	h := sha256.Sum256([]byte(v))
	return hex.EncodeToString(h[:8])
}

// Shown is what the show tool answers.
type Shown struct {
	Args   []string          `json:"args"`
	Env    map[string]string `json:"env"`
	Header string            `json:"header"`
}

func newServer() *server.MCPServer {
	s := server.NewMCPServer("testmcp", "1", server.WithToolCapabilities(false))
	s.AddTool(mcp.NewTool("show", mcp.WithDescription("what the router passed this server")),
		func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			h, _ := ctx.Value(headerKey{}).(string)
			b, err := json.Marshal(Shown{Args: append([]string{}, os.Args[1:]...),
				Env: map[string]string{EnvKnob: os.Getenv(EnvKnob)}, Header: h})
			if err != nil {
				return nil, err
			}
			return mcp.NewToolResultText(string(b)), nil
		})
	// digest shows what show shows without the values: a test can check a
	// secret reached the server while the answer (and so the request log)
	// never carries it.
	s.AddTool(mcp.NewTool("digest", mcp.WithDescription("digests of $KNOB and the X-Knob header")),
		func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			h, _ := ctx.Value(headerKey{}).(string)
			return mcp.NewToolResultText("env:" + Digest(os.Getenv(EnvKnob)) + " header:" + Digest(h)), nil
		})
	s.AddTool(mcp.NewTool("sleep", mcp.WithDescription("answers after the given seconds"),
		mcp.WithNumber("seconds", mcp.Required())),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			d := time.Duration(req.GetFloat("seconds", 0) * float64(time.Second))
			select {
			case <-time.After(d):
				return mcp.NewToolResultText("slept " + d.String()), nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		})
	// A tool whose name a policy's delete_* glob matches.
	s.AddTool(mcp.NewTool("delete_note", mcp.WithDescription("pretends to delete a note"), mcp.WithString("id")),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("deleted " + req.GetString("id", "")), nil
		})
	return s
}
