package filelimit

import (
	"context"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"

	"github.com/mcp-router/mcp-router/internal/testbombs"
)

// The costliest 1 MiB YAML files known, through ParseYAML and the decoder
// when accepted: time and bytes allocated (B/op) are the figures of
// docs/limits.md. go test -run '^$' -bench ParseYAML -benchtime 3x ./backend/filelimit/
func BenchmarkParseYAML(b *testing.B) {
	const n = 1 << 20
	for _, bc := range []struct{ name, src string }{
		{"ladder", testbombs.Policy()},
		{"1MiB-of-open-brackets", strings.Repeat("[", n)},
		{"1MiB-flow-list", "[" + strings.Repeat("x,", n/2-1) + "]"},
		{"1MiB-block-sequence-one-line", strings.Repeat("- ", n/2)},
		{"1MiB-list-of-flow-maps", strings.Repeat("- {a: 1, b: [x, y]}\n", n/20)},
		{"open-brackets-at-the-word-cap", strings.Repeat("[", DefaultMaxNodes-1)},
		{"flow-list-at-the-word-cap", "[" + strings.Repeat("x,", DefaultMaxNodes/2-1) + "]"},
		{"keys-at-the-key-cap", testbombs.KeysYAML(DefaultMaxKeys - 1)},
		{"1MiB-plain-scalar", "a: " + strings.Repeat("y", n-10) + "\n"},
		{"keys-at-the-key-cap-and-a-1MiB-scalar", testbombs.KeysYAML(DefaultMaxKeys-1) + "z: " + strings.Repeat("y", n-60000) + "\n"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			lim := Limits{What: "policy file"}
			for i := 0; i < b.N; i++ {
				f, err := lim.ParseYAML(context.Background(), []byte(bc.src))
				if err == nil {
					var v any
					err = yaml.NodeToValue(f.Docs[0].Body, &v)
				}
				if i == 0 {
					b.Logf("%d bytes: %.120v", len(bc.src), err)
				}
			}
		})
	}
}
