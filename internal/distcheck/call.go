package distcheck

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// CallOverHTTP is the client of the platform checks that have no curl and
// bash (the Windows job): it connects to the streamable HTTP endpoint url,
// lists tools until tool is there (an upstream may still be starting) or
// wait has passed, calls it with args and returns the text of its answer.
// A tool error is an error.
func CallOverHTTP(ctx context.Context, url, tool string, args map[string]any, wait time.Duration) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpr-platform-check", Version: "1"}, nil)
	var session *mcp.ClientSession
	var err error
	for {
		session, err = client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, nil)
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			return "", fmt.Errorf("connecting to %s within %v: %w", url, wait, err)
		}
		time.Sleep(300 * time.Millisecond)
	}
	defer session.Close()
	var names []string
	for {
		list, err := session.ListTools(ctx, nil)
		if err != nil {
			return "", fmt.Errorf("tools/list: %w", err)
		}
		names = names[:0]
		for _, t := range list.Tools {
			names = append(names, t.Name)
		}
		if slices.Contains(names, tool) {
			break
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("%s not listed within %v (tools: %v)", tool, wait, names)
		case <-time.After(300 * time.Millisecond):
		}
	}
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return "", fmt.Errorf("tools/call %s: %w", tool, err)
	}
	var text []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			text = append(text, t.Text)
		}
	}
	if res.IsError {
		b, _ := json.Marshal(res.Content)
		return "", fmt.Errorf("tools/call %s answered an error: %s", tool, b)
	}
	return strings.Join(text, "\n"), nil
}
