package gateway

import (
	"bytes"
	"encoding/json"
	"hash/maphash"
	"slices"
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
//
// It also keeps the last pages it put together, whole: a page is keyed by
// exactly what it holds — the indexes of the catalog entries the chain
// kept for this request and the next cursor — never by who asked, so a
// page is only ever reused for a request whose steps (token scope,
// profile, gate, policy, held tools, toggles) kept the very same tools.
// A complete list of a large catalog then costs the chain and a write,
// without 2.7 MB put together and a page's worth of tools copied on every
// request.
type toolJSONCache struct {
	mu sync.Mutex
	// of is the first entry of the catalog the cache is for; holding it
	// keeps that array alive, so no later catalog can have its address.
	of  *listed[mcp.Tool]
	n   int
	enc []json.RawMessage

	seed      maphash.Seed
	pages     []cachedPage // most recently used last
	pageBytes int
}

// cachedPage is one page as sendPage answers it. Its slices are shared by
// every answer it serves: nobody changes them (a hook's version of a page
// is decoded into fresh values, decodeList).
type cachedPage struct {
	sum   uint64
	idx   []int
	next  mcp.Cursor
	items []mcp.Tool
	raw   json.RawMessage
}

// size is what a kept page holds in memory: its JSON, its tools (their
// values; the strings and schemas they point to are the catalog's) and
// its indexes.
func (p *cachedPage) size() int {
	return len(p.raw) + len(p.items)*int(unsafe.Sizeof(mcp.Tool{})) + len(p.idx)*int(unsafe.Sizeof(0))
}

// MaxCachedListBytes bounds the memory of the tools/list pages kept whole
// (toolJSONCache, cachedPage.size); a larger page is put together on every
// request.
const MaxCachedListBytes = 64 << 20

// page is the tools/list page holding tools[idx...] with cursor next: its
// tools and its JSON, exactly as encoding/json writes that
// *mcp.ListToolsResult; ok is false (and raw nil) if a tool would not
// encode.
func (c *toolJSONCache) page(tools []listed[mcp.Tool], idx []int, next mcp.Cursor) (items []mcp.Tool, raw json.RawMessage, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.forCatalog(tools)
	sum := c.sum(idx, next)
	for n := len(c.pages) - 1; n >= 0; n-- {
		p := c.pages[n]
		if p.sum == sum && p.next == next && slices.Equal(p.idx, idx) {
			c.pages = append(slices.Delete(c.pages, n, n+1), p)
			return p.items, p.raw, true
		}
	}
	items = make([]mcp.Tool, len(idx))
	for n, i := range idx {
		items[n] = tools[i].value
	}
	raw, ok = c.pageJSONLocked(tools, idx, next)
	if !ok {
		return items, nil, false
	}
	if p := (cachedPage{sum: sum, idx: slices.Clone(idx), next: next, items: items, raw: raw}); p.size() <= MaxCachedListBytes {
		for c.pageBytes+p.size() > MaxCachedListBytes {
			c.pageBytes -= c.pages[0].size()
			c.pages = slices.Delete(c.pages, 0, 1)
		}
		c.pages = append(c.pages, p)
		c.pageBytes += p.size()
	}
	return items, raw, true
}

// forCatalog starts the cache over when tools is not the catalog it holds.
func (c *toolJSONCache) forCatalog(tools []listed[mcp.Tool]) {
	if first := unsafe.SliceData(tools); c.of != first || c.n != len(tools) {
		c.of, c.n, c.enc = first, len(tools), make([]json.RawMessage, len(tools))
		c.pages, c.pageBytes = nil, 0
	}
	// Not with the reset above: an empty catalog (nil) is the zero cache's.
	if c.seed == (maphash.Seed{}) {
		c.seed = maphash.MakeSeed()
	}
}

func (c *toolJSONCache) sum(idx []int, next mcp.Cursor) uint64 {
	var h maphash.Hash
	h.SetSeed(c.seed)
	h.WriteString(string(next))
	_, _ = h.Write(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(idx))), len(idx)*int(unsafe.Sizeof(0))))
	return h.Sum64()
}

// pageJSON is the JSON of the tools/list result holding tools[idx...]
// with cursor next, exactly as encoding/json writes that
// *mcp.ListToolsResult; ok is false if a tool would not encode.
func (c *toolJSONCache) pageJSON(tools []listed[mcp.Tool], idx []int, next mcp.Cursor) (json.RawMessage, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.forCatalog(tools)
	return c.pageJSONLocked(tools, idx, next)
}

func (c *toolJSONCache) pageJSONLocked(tools []listed[mcp.Tool], idx []int, next mcp.Cursor) (json.RawMessage, bool) {
	// The result's other fields, then its last one, the tools.
	head, err := json.Marshal(&mcp.ListToolsResult{Tools: []mcp.Tool{}, PaginatedResult: mcp.PaginatedResult{NextCursor: next}})
	if err != nil || !bytes.HasSuffix(head, []byte(`"tools":[]}`)) {
		return nil, false
	}
	size := len(head)
	for _, i := range idx {
		if c.enc[i] == nil {
			b, err := json.Marshal(tools[i].value)
			if err != nil {
				return nil, false
			}
			c.enc[i] = b
		}
		size += len(c.enc[i]) + 1
	}
	out := bytes.NewBuffer(make([]byte, 0, size))
	out.Write(head[:len(head)-2])
	for n, i := range idx {
		if n > 0 {
			out.WriteByte(',')
		}
		out.Write(c.enc[i])
	}
	out.WriteString("]}")
	return out.Bytes(), true
}
