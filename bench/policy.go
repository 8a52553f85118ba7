package main

import (
	"strings"

	"github.com/mcp-router/mcp-router/backend/policy/policytest"
)

// Policy overhead (issue 18): one more `serve --no-auth` router whose only
// difference from the plain one is a 100-rule policy.yaml in its data dir.
// Its rules are like BenchmarkPolicy's (backend/policy): globs of every form
// on other clients, servers and tools, plus a server allow list, a hide
// rule and a rate limit that apply to the echo call and never refuse it.

const labelPolicy100 = "router HTTP → stdio + 100-rule policy"

func policy100() string {
	var b strings.Builder
	b.WriteString("policies:\n")
	policytest.WriteOtherRules(&b, 97)
	b.WriteString("  - name: everything-allowed\n    servers: {allow: [\"everything*\"], deny: [\"*\"]}\n")
	b.WriteString("  - name: no-debug\n    tools: {hide: [\"debug_*\"]}\n")
	b.WriteString("  - name: big-limit\n    match: {tools: [\"*\"]}\n    limit: {requests_per_minute: 1000000000}\n")
	return b.String()
}
