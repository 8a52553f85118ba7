package gateway

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-router/mcp-router/backend/pipeline"
)

func jsonCatalog(n int, desc string) []listed[mcp.Tool] {
	l := make([]listed[mcp.Tool], n)
	for i := range l {
		name := fmt.Sprintf("srv__t%03d", i)
		t := mcp.NewTool(name, mcp.WithDescription(desc+" <&> ✓"), mcp.WithString("q", mcp.Required()))
		l[i] = listed[mcp.Tool]{pipeline.ListItem{Server: "srv", Item: name, Name: name}, t}
	}
	return l
}

// A page put together from the cached tool JSON is exactly what
// encoding/json writes for the typed page (which mcp-go's path sends), on
// every page and for a kept subset, and a new catalog of the same size is
// never answered from the old one's bytes.
func TestToolPageJSONIsTheTypedPage(t *testing.T) {
	var c toolJSONCache
	check := func(l []listed[mcp.Tool], keep []pipeline.ListItem, after string) {
		t.Helper()
		idx, next := pageIndexes(l, keep, after, 500)
		items, _ := page(l, keep, after, 500)
		want, err := json.Marshal(&mcp.ListToolsResult{Tools: items, PaginatedResult: mcp.PaginatedResult{NextCursor: next}})
		if err != nil {
			t.Fatal(err)
		}
		got, ok := c.pageJSON(l, idx, next)
		if !ok || string(got) != string(want) {
			t.Fatalf("after %q (%d tools): got\n%.300s\nwant\n%.300s", after, len(idx), got, want)
		}
	}
	old := jsonCatalog(1200, "old")
	var all, some []pipeline.ListItem
	for i, e := range old {
		all = append(all, e.item)
		if i%3 == 0 {
			some = append(some, e.item)
		}
	}
	for _, after := range []string{"", "srv__t499", "srv__t999", "srv__t1199", "zzz"} {
		check(old, all, after)
		check(old, some, after)
	}
	check(old, nil, "")
	fresh := jsonCatalog(1200, "new")
	check(fresh, all, "")
	check(fresh, all, "srv__t499")
}
