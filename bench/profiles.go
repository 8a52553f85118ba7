package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/mcp-router/mcp-router/backend/toolsearch"
)

// search_tools (issue 27, docs/profiles.md): the ranking of a search
// profile's search_tools over a catalog of 100 servers × 100 tools,
// in-process (the index the router keeps; no upstream needed). Reported,
// not asserted: p50 ≤ 2 ms.

var searchWords = []string{"read", "write", "list", "search", "create", "delete", "update", "fetch", "send", "get",
	"file", "issue", "message", "calendar", "event", "weather", "forecast", "repository", "commit", "branch",
	"user", "channel", "document", "page", "table", "row", "image", "invoice", "ticket", "note"}

// searchCatalog is servers × perServer tools with names, descriptions and
// two parameters from searchWords, a Japanese description on every tenth.
func searchCatalog(servers, perServer int) []toolsearch.Tool {
	out := make([]toolsearch.Tool, 0, servers*perServer)
	for s := range servers {
		server := catalogServerName(s)
		for _, raw := range catalogServerTools(s, perServer) {
			var t struct {
				Name string `json:"name"`
			}
			_ = json.Unmarshal(raw, &t)
			out = append(out, toolsearch.Tool{Name: server + "__" + t.Name, Server: server, Raw: raw})
		}
	}
	return out
}

func catalogServerName(s int) string { return fmt.Sprintf("srv%03d", s) }

// catalogServerTools are server s's tool definitions as the upstream
// lists them (unprefixed names).
func catalogServerTools(s, perServer int) []json.RawMessage {
	out := make([]json.RawMessage, 0, perServer)
	for i := range perServer {
		w := func(k int) string { return searchWords[(s*7+i*3+k)%len(searchWords)] }
		desc := fmt.Sprintf("%s the %s of a %s in %s", w(0), w(1), w(2), w(3))
		if i%10 == 0 {
			desc += " 東京の天気予報を取得します"
		}
		raw, _ := json.Marshal(map[string]any{"name": fmt.Sprintf("%s_%s_%d", w(0), w(1), i), "description": desc,
			"inputSchema": map[string]any{"type": "object", "properties": map[string]any{
				w(4):         map[string]any{"type": "string", "description": "the " + w(5)},
				w(6) + "_id": map[string]any{"type": "string", "description": "which " + w(6)}}}})
		out = append(out, raw)
	}
	return out
}

// searchBench times n search_tools rankings (limit 10) over a
// servers × perServer catalog and writes one line.
func searchBench(w io.Writer, servers, perServer, n int) error {
	tools := searchCatalog(servers, perServer)
	start := time.Now()
	x, err := toolsearch.Build(tools)
	if err != nil {
		return err
	}
	defer x.Close()
	build := time.Since(start)
	queries := []string{"weather forecast", "delete file", "send message to channel", "create calendar event", "天気予報", "commit branch"}
	durations := make([]time.Duration, 0, n)
	for i := range n {
		t0 := time.Now()
		if _, err := x.Search(context.Background(), queries[i%len(queries)], 10, nil); err != nil {
			return err
		}
		durations = append(durations, time.Since(t0))
	}
	slices.Sort(durations)
	ms := func(p float64) float64 {
		return float64(durations[int(p*float64(len(durations)-1))].Microseconds()) / 1000
	}
	fmt.Fprintf(w, "search_tools ranking over %d tools (%d servers, in-process, %d queries): p50 %.3f ms, p99 %.3f ms; index built in %d ms; target (reported, not asserted): p50 ≤ 2 ms — %s\n",
		len(tools), servers, n, ms(0.5), ms(0.99), build.Milliseconds(), verdict(ms(0.5) <= 2))
	return nil
}
