package gateway

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// An upstream the router speaks 2026-07-28 to (the go-sdk everything-server
// over stateless HTTP, upstream/modern.go) answers input_required itself,
// with its own keys. Through the router, the official go-sdk v1.8.0 client
// gets it on either revision: on 2026-07-28 as input_required, relayed,
// and its retry reaches the upstream with the answers; on 2025-11-25 (a
// session) it is asked through its session, on either path, and sees one
// ordinary result. On the old code the connection was a 2025-11-25
// handshake (the status below says so).
func TestGoSDKClientsOfBothErasWithAModernUpstream(t *testing.T) {
	addr := testpeers.StartGoEverythingHTTP(t, "-stateless=true")
	up := spec.Server{Name: "goev", Transport: spec.HTTP, URL: "http://" + addr + "/mcp", Enabled: true, PrefixMode: spec.PrefixAlways}
	up.Normalize()
	r := newRig(t, []spec.Server{up}, rigOptions{allClientSide: true})
	waitTool(t, r, "goev__test_input_required_result_multi_round")
	if st, err := r.ups.Status("goev"); err != nil || st.ProtocolVersion != "2026-07-28" || st.SessionID != "" {
		t.Fatalf("the router's connection: %+v, %v; want 2026-07-28 with no session", st, err)
	}
	for _, era := range []string{"2026-07-28", "2025-11-25"} {
		for _, fast := range []bool{true, false} {
			if era == "2026-07-28" && !fast {
				continue // no session, no fast path to switch
			}
			t.Run(fmt.Sprintf("%s/fast=%v", era, fast), func(t *testing.T) {
				r.gw.SetFastPath(fast)
				var asked []string
				c := sdk.NewClient(&sdk.Implementation{Name: "go-sdk-" + era, Version: "1"}, &sdk.ClientOptions{
					ElicitationHandler: func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
						asked = append(asked, req.Params.Message)
						switch req.Params.Message {
						case "What is your name?", "Step 1: What is your name?":
							return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"name": "Alice"}}, nil
						case "Step 2: What is your favorite color?":
							return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"color": "blue"}}, nil
						}
						return nil, fmt.Errorf("unexpected question %q", req.Params.Message)
					},
				})
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				cs, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: r.url, DisableStandaloneSSE: true, MaxRetries: -1},
					&sdk.ClientSessionOptions{ProtocolVersion: era})
				if err != nil {
					t.Fatal(err)
				}
				defer cs.Close()
				text := func(tool string) string { return sdkCallText(t, ctx, cs, tool, nil) }
				if got := text("goev__test_input_required_result_elicitation"); !strings.Contains(got, "Hello, Alice!") || len(asked) != 1 {
					t.Fatalf("test_input_required_result_elicitation: %q, asked %q", got, asked)
				}
				if got := text("goev__test_input_required_result_multi_round"); !strings.Contains(got, "Alice likes blue") || len(asked) != 3 {
					t.Fatalf("test_input_required_result_multi_round: %q, asked %q", got, asked)
				}
			})
		}
	}
}
