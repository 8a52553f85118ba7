// Package policytest builds policy files for benchmarks of the policy step
// (backend/policy's BenchmarkPolicy and make bench's 100-rule router).
package policytest

import (
	"fmt"
	"strings"
)

// WriteOtherRules writes n rules, under an already written "policies:",
// that match other clients, servers and tools than a benchmark calls —
// globs of every form, an approval, an allow list, a limit, a hide — so
// evaluating them costs what a large policy costs without refusing the call.
func WriteOtherRules(b *strings.Builder, n int) {
	for i := range n {
		switch i % 4 {
		case 0:
			fmt.Fprintf(b, "  - name: r%d\n    match: {tools: [\"delete_%d_*\", \"*_drop%d\"]}\n    require: {human_approval: true}\n", i, i, i)
		case 1:
			fmt.Fprintf(b, "  - name: r%d\n    match: {clients: [\"bot-%d-*\"]}\n    servers: {allow: [\"s%d\"], deny: [\"*\"]}\n", i, i, i)
		case 2:
			fmt.Fprintf(b, "  - name: r%d\n    match: {servers: [\"srv%d\"], tools: [\"t?%d\"]}\n    limit: {requests_per_minute: 10}\n", i, i, i)
		case 3:
			fmt.Fprintf(b, "  - name: r%d\n    match: {servers: [\"x[0-9]%d\"]}\n    tools: {hide: [\"debug_*\"]}\n", i, i)
		}
	}
}
