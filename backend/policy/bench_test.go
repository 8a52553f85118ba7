package policy

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/mcp-router/mcp-router/backend/pipeline"
	"github.com/mcp-router/mcp-router/backend/policy/policytest"
)

// hundredRules is a 100-rule policy: rules matching other clients,
// servers and tools (globs of every form), a few that apply to the
// benchmark's call, and one rate limit that never runs out.
func hundredRules() string {
	var b strings.Builder
	b.WriteString("policies:\n")
	policytest.WriteOtherRules(&b, 96)
	b.WriteString("  - name: everything-allowed\n    servers: {allow: [\"everything\", \"s*\"], deny: [\"*\"]}\n")
	b.WriteString("  - name: no-debug\n    tools: {hide: [\"debug_*\"]}\n")
	b.WriteString("  - name: audit-echo\n    match: {tools: [\"*__echo\"]}\n    require: {log_level: audit}\n")
	b.WriteString("  - name: big-limit\n    match: {tools: [\"*\"]}\n    limit: {requests_per_minute: 1000000000}\n")
	return b.String()
}

// BenchmarkPolicy measures what a policy adds to a tools/call through the
// pipeline (identity → policy → send), and to a tools/list of 200 tools.
func BenchmarkPolicy(b *testing.B) {
	for _, tc := range []struct{ name, src string }{{"none", ""}, {"100-rules", hundredRules()}} {
		rg := newRig(b, tc.src)
		if tc.src != "" && rg.svc.Policy().Rules() != 100 {
			b.Fatalf("%d rules", rg.svc.Policy().Rules())
		}
		ctx := pipeline.WithCaller(context.Background(), pipeline.Caller{Name: "claude"})
		b.Run(tc.name+"/call", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				r := pipeline.Request{Method: pipeline.MethodToolsCall, Server: "everything", Item: "echo", Target: "everything__echo"}
				if _, err := rg.chain.Serve(ctx, &r); err != nil {
					b.Fatal(err)
				}
			}
		})
		items := make([]pipeline.ListItem, 200)
		b.Run(tc.name+"/list200", func(b *testing.B) {
			for b.Loop() {
				for i := range items {
					items[i] = tool("everything", fmt.Sprint("tool", i))
				}
				r := pipeline.Request{Method: pipeline.MethodToolsList, List: &pipeline.List{Items: items}}
				if _, err := rg.chain.Serve(ctx, &r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
