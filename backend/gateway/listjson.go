package gateway

import (
	"bytes"
	"encoding/json"
	"sync"
	"unsafe"

	"github.com/mark3labs/mcp-go/mcp"
)

// toolJSONCache holds each published tool's JSON, so a tools/list page is
// put together from bytes instead of encoded anew on every request:
// mcp-go's Tool encodes through a map and re-validates its schemas, which
// at 10,000 tools was most of what a list cost once mcp-go's handler was
// out of the way. It is for one catalog (the tools slice rebuild
// publishes, which is replaced, never changed in place) and starts over
// when the catalog does; each tool is encoded when a page first holds it.
type toolJSONCache struct {
	mu sync.Mutex
	// of is the first entry of the catalog the cache is for; holding it
	// keeps that array alive, so no later catalog can have its address.
	of  *listed[mcp.Tool]
	n   int
	enc []json.RawMessage
}

// pageJSON is the JSON of the tools/list result holding tools[idx...]
// with cursor next, exactly as encoding/json writes that
// *mcp.ListToolsResult; ok is false if a tool would not encode.
func (c *toolJSONCache) pageJSON(tools []listed[mcp.Tool], idx []int, next mcp.Cursor) (json.RawMessage, bool) {
	// The result's other fields, then its last one, the tools.
	head, err := json.Marshal(&mcp.ListToolsResult{Tools: []mcp.Tool{}, PaginatedResult: mcp.PaginatedResult{NextCursor: next}})
	if err != nil || !bytes.HasSuffix(head, []byte(`"tools":[]}`)) {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if first := unsafe.SliceData(tools); c.of != first || c.n != len(tools) {
		c.of, c.n, c.enc = first, len(tools), make([]json.RawMessage, len(tools))
	}
	out := bytes.NewBuffer(make([]byte, 0, len(head)+len(idx)*512))
	out.Write(head[:len(head)-2])
	for n, i := range idx {
		if c.enc[i] == nil {
			b, err := json.Marshal(tools[i].value)
			if err != nil {
				return nil, false
			}
			c.enc[i] = b
		}
		if n > 0 {
			out.WriteByte(',')
		}
		out.Write(c.enc[i])
	}
	out.WriteString("]}")
	return out.Bytes(), true
}
