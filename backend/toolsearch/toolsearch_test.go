package toolsearch

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func tool(server, name, desc string, params map[string]string) Tool {
	props := map[string]any{}
	for k, v := range params {
		props[k] = map[string]any{"type": "string", "description": v}
	}
	raw, _ := json.Marshal(map[string]any{"name": name, "description": desc,
		"inputSchema": map[string]any{"type": "object", "properties": props}})
	return Tool{Name: server + "__" + name, Server: server, Raw: raw}
}

func names(hits []Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.Name
	}
	return out
}

var catalog = []Tool{
	tool("weather", "get_forecast", "Weather forecast for a city from JMA", map[string]string{"city": "the city name"}),
	tool("weather", "get_alerts", "Active weather warnings", nil),
	tool("files", "read_file", "Read a file from disk", map[string]string{"path": "absolute path of the file"}),
	tool("files", "writeFile", "Write text to a file", map[string]string{"path": "where", "content": "the text"}),
	tool("git", "commit", "Record changes to the repository", map[string]string{"message": "the commit message"}),
	tool("jp", "kensaku", "東京の天気予報を取得します", map[string]string{"basho": "地名（例：大阪）"}),
	tool("calendar", "list_events", "List events", map[string]string{"timezone": "IANA timezone for the answer"}),
}

// The ranking answers the questions a model asks: by words of the name
// (split at _ and case changes), the description, a parameter's name or
// description, the server's name, and Japanese text by bigrams.
func TestRanking(t *testing.T) {
	x, err := Build(catalog)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	for q, want := range map[string]string{
		"forecast":            "weather__get_forecast",
		"write file":          "files__writeFile",
		"commit message":      "git__commit",
		"天気予報":                "jp__kensaku",
		"大阪":                  "jp__kensaku",
		"timezone":            "calendar__list_events",
		"weather warnings":    "weather__get_alerts",
		"git":                 "git__commit",
		"READ FILE FROM DISK": "files__read_file",
	} {
		hits, err := x.Search(context.Background(), q, 3, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) == 0 || hits[0].Name != want {
			t.Errorf("%q: %v, want %s first", q, names(hits), want)
		}
	}
	if hits, _ := x.Search(context.Background(), "   ", 3, nil); len(hits) != 0 {
		t.Errorf("an empty query found %v", names(hits))
	}
}

// keep drops what the caller may not see before it takes a place: a
// search never tells a caller of a tool outside its scope, and still
// fills its limit from the rest.
func TestKeepAndCaps(t *testing.T) {
	var many []Tool
	for i := range 80 {
		many = append(many, tool(fmt.Sprintf("s%d", i%4), fmt.Sprintf("file_tool_%d", i), "works on a file", nil))
	}
	x, err := Build(many)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	hits, err := x.Search(context.Background(), "file", 5, func(names []string) map[string]bool {
		kept := map[string]bool{}
		for _, n := range names {
			kept[n] = strings.HasPrefix(n, "s3__")
		}
		return kept
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 5 {
		t.Errorf("got %d hits, want 5: %v", len(hits), names(hits))
	}
	for _, h := range hits {
		if !strings.HasPrefix(h.Name, "s3__") {
			t.Errorf("hit %s outside keep", h.Name)
		}
	}
	if _, err := x.Search(context.Background(), strings.Repeat("x", MaxQueryLen+1), 5, nil); err == nil || !strings.Contains(err.Error(), "cap") {
		t.Errorf("an over-long query: %v", err)
	}
	if hits, _ := x.Search(context.Background(), "file", 1000, nil); len(hits) != MaxLimit {
		t.Errorf("limit 1000 gave %d hits, want the cap %d", len(hits), MaxLimit)
	}
}
