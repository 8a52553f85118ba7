package core

import (
	"bufio"
	"io"
	"strings"
	"testing"
)

// firstListGate passes stdin through unchanged and waits once, before the
// first list request reaches the server.
func TestFirstListGate(t *testing.T) {
	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"prompts/list"}` + "\n" +
		`{"jsonrpc":"2.0","id":3,"method":"tools/list"}` + "\n" +
		`not json` + "\n" +
		`{"jsonrpc":"2.0","id":4,"method":"tools/list"}` // no newline at the end
	var waits []int // bytes handed over before each wait
	var got strings.Builder
	g := &firstListGate{src: bufio.NewReader(strings.NewReader(in)), wait: func() { waits = append(waits, got.Len()) }}
	buf := make([]byte, 7) // small reads: lines are handed over in pieces
	for {
		n, err := g.Read(buf)
		got.Write(buf[:n])
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if got.String() != in {
		t.Errorf("passed through %q", got.String())
	}
	firstList := strings.Index(in, `{"jsonrpc":"2.0","id":2`)
	if len(waits) != 1 || waits[0] != firstList {
		t.Errorf("waits at %v, want once at %d (before prompts/list)", waits, firstList)
	}
}
