package main

import (
	"fmt"
	"strings"
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
	for i := range 97 {
		switch i % 4 {
		case 0:
			fmt.Fprintf(&b, "  - name: r%d\n    match: {tools: [\"delete_%d_*\", \"*_drop%d\"]}\n    require: {human_approval: true}\n", i, i, i)
		case 1:
			fmt.Fprintf(&b, "  - name: r%d\n    match: {clients: [\"bot-%d-*\"]}\n    servers: {allow: [\"s%d\"], deny: [\"*\"]}\n", i, i, i)
		case 2:
			fmt.Fprintf(&b, "  - name: r%d\n    match: {servers: [\"srv%d\"], tools: [\"t?%d\"]}\n    limit: {requests_per_minute: 10}\n", i, i, i)
		case 3:
			fmt.Fprintf(&b, "  - name: r%d\n    match: {servers: [\"x[0-9]%d\"]}\n    tools: {hide: [\"debug_*\"]}\n", i, i)
		}
	}
	b.WriteString("  - name: everything-allowed\n    servers: {allow: [\"everything*\"], deny: [\"*\"]}\n")
	b.WriteString("  - name: no-debug\n    tools: {hide: [\"debug_*\"]}\n")
	b.WriteString("  - name: big-limit\n    match: {tools: [\"*\"]}\n    limit: {requests_per_minute: 1000000000}\n")
	return b.String()
}
