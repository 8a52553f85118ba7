package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-router/mcp-router/backend/config"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/store"
)

// The large catalog (issue 27 item 6, docs/profiles.md#measured): a router
// with 100 upstream servers of 100 tools each (searchCatalog's tools),
// served in this process as streamable HTTP MCP servers (mcp-go) so that
// the catalog costs no extra processes. Measured: a client's complete
// tools/list at the router (every page), search_tools through the router,
// and the bytes of tool definitions a client receives from a 1,000-tool
// profile under each discovery mode.

// catalogShape is what catalogBench builds and measures.
type catalogShape struct {
	servers, perServer int
	profileServers     int    // servers of the all/gated/search profiles
	lists              int    // timed complete tools/list runs
	searches           int    // timed search_tools calls
	cpuprofile         string // the catalog router's CPU profile during the timed tools/list runs
}

// catalogUpstreams serves servers × perServer tools, server s at
// /srvNNN/mcp, and returns the base URL and a stop function.
func catalogUpstreams(servers, perServer int) (string, func(), error) {
	mux := http.NewServeMux()
	// The direct reference: one mcp-go server holding every tool under the
	// name the router gives it, so its tools/list has the router's tools.
	direct := server.NewMCPServer("direct", "1", server.WithToolCapabilities(false))
	for s := range servers {
		srv := server.NewMCPServer(catalogServerName(s), "1", server.WithToolCapabilities(false))
		tools := make([]server.ServerTool, 0, perServer)
		for _, raw := range catalogServerTools(s, perServer) {
			var t struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				InputSchema json.RawMessage `json:"inputSchema"`
			}
			if err := json.Unmarshal(raw, &t); err != nil {
				return "", nil, err
			}
			tools = append(tools, server.ServerTool{Tool: mcp.NewToolWithRawSchema(t.Name, t.Description, t.InputSchema),
				Handler: func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return mcp.NewToolResultText(echoMessage), nil
				}})
		}
		srv.AddTools(tools...)
		mux.Handle("/"+catalogServerName(s)+"/mcp", server.NewStreamableHTTPServer(srv))
		for _, t := range tools {
			t.Tool.Name = catalogServerName(s) + "__" + t.Tool.Name
			direct.AddTool(t.Tool, t.Handler)
		}
	}
	mux.Handle("/"+directCatalogPath+"/mcp", server.NewStreamableHTTPServer(direct))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(l) }()
	stop := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = hs.Shutdown(ctx)
	}
	return "http://" + l.Addr().String(), stop, nil
}

// directCatalogPath is where catalogUpstreams serves all the tools from one
// server.
const directCatalogPath = "direct"

// The three profiles of the bytes comparison, and the search profile over
// the whole catalog that search_tools is timed on.
var catalogModes = []string{"all", "gated", "search"}

const searchAllProfile = "searchall"

// catalogBench starts a router over the catalog and writes its lines.
func catalogBench(ctx context.Context, p *procs, w io.Writer, shape catalogShape) error {
	base, stop, err := catalogUpstreams(shape.servers, shape.perServer)
	if err != nil {
		return err
	}
	defer stop()
	dir, err := os.MkdirTemp("", "mcpr-bench-catalog-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := storeCatalog(ctx, dir, base, shape); err != nil {
		return err
	}
	router, url, err := p.routerServe(ctx, fmt.Sprintf("router serve (%d-tool catalog)", shape.servers*shape.perServer), dir, true, shape.cpuprofile)
	if err != nil {
		return err
	}
	s, err := dialHTTP(ctx, url, "")
	if err != nil {
		return err
	}
	defer s.close()
	total := shape.servers * shape.perServer
	if err := waitToolCount(ctx, s, total, 120*time.Second); err != nil {
		return fmt.Errorf("catalog router: %w", err)
	}

	if shape.cpuprofile != "" {
		_ = os.Remove(shape.cpuprofile + ".done")
		_ = router.cmd.Process.Signal(syscall.SIGUSR1)
	}
	// A complete tools/list (every page, as a client that lists all tools),
	// timed until the client holds every answer (rawlist.go), through the
	// router over HTTP and over stdio, and straight from one mcp-go server
	// holding the same tools, interleaved run by run.
	self, err := os.Executable()
	if err != nil {
		return err
	}
	stdio, err := dialStdio(ctx, p, "router stdio (catalog)", self,
		[]string{routerArg, "--data-dir", dir, "--log-level", "warn", "stdio"}, syscall.SIGTERM)
	if err != nil {
		return err
	}
	defer stdio.close()
	if err := waitToolCount(ctx, stdio, total, 120*time.Second); err != nil {
		return fmt.Errorf("catalog router (stdio): %w", err)
	}
	direct, err := dialHTTP(ctx, base+"/"+directCatalogPath+"/mcp", "")
	if err != nil {
		return err
	}
	defer direct.close()
	// The floor: the router's own answer (every page), served ready-made.
	routerPages, err := listAllRaw(ctx, s)
	if err != nil {
		return err
	}
	staticURL, stopStatic, err := serveStaticList(staticPages(routerPages))
	if err != nil {
		return err
	}
	defer stopStatic()
	static, err := dialHTTP(ctx, staticURL, "")
	if err != nil {
		return err
	}
	defer static.close()
	paths := []struct {
		name  string
		s     *session
		lat   []time.Duration
		pages int
	}{{name: "router HTTP", s: s}, {name: "router stdio", s: stdio}, {name: "direct HTTP", s: direct}, {name: "static", s: static}}
	var decode []time.Duration
	var bytesAll int
	if shape.cpuprofile != "" {
		_ = os.Remove(shape.cpuprofile + ".done")
		_ = router.cmd.Process.Signal(syscall.SIGUSR1)
	}
	for run := range shape.lists {
		for n := range paths {
			pt := &paths[(n+run)%len(paths)]
			t0 := time.Now()
			pages, err := listAllRaw(ctx, pt.s)
			if err != nil {
				return fmt.Errorf("%s: %w", pt.name, err)
			}
			pt.lat = append(pt.lat, time.Since(t0))
			t1 := time.Now()
			tools, err := decodePages(pages)
			if err != nil {
				return fmt.Errorf("%s: %w", pt.name, err)
			}
			decode = append(decode, time.Since(t1))
			if len(tools) != total {
				return fmt.Errorf("%s: tools/list holds %d tools, want %d", pt.name, len(tools), total)
			}
			pt.pages = len(pages)
			if pt.s == s {
				bytesAll = toolBytes(tools)
			}
		}
	}
	if shape.cpuprofile != "" {
		_ = router.cmd.Process.Signal(syscall.SIGUSR2)
		waitFile(shape.cpuprofile+".done", 10*time.Second)
	}
	for n := range paths {
		slices.Sort(paths[n].lat)
	}
	slices.Sort(decode)
	routed, routedStdio, straight, floor := paths[0], paths[1], paths[2], paths[3]
	fmt.Fprintf(w, "tools/list at the router over %d tools (%d servers, upstreams in-process over HTTP, %d runs), complete list until the client holds every answer: router HTTP (%d %s) p50 %.3f ms, p99 %.3f ms; router stdio (%d %s) p50 %.3f ms, p99 %.3f ms; direct HTTP, one mcp-go server with the same tools (%d %s) p50 %.3f ms, p99 %.3f ms; the router's answer served ready-made over HTTP (static) p50 %.3f ms, p99 %.3f ms; ratio at p50 router HTTP/direct %.2f, router stdio/direct %.2f, router HTTP/static %.2f; decoding one complete list with encoding/json (not in the figures) p50 %.3f ms; %d bytes of tool definitions in all; target (reported, not asserted): p50 ≤ 10 ms — router HTTP %s, router stdio %s\n",
		total, shape.servers, shape.lists,
		routed.pages, plural(routed.pages, "page"), ms(routed.lat, 0.5), ms(routed.lat, 0.99),
		routedStdio.pages, plural(routedStdio.pages, "page"), ms(routedStdio.lat, 0.5), ms(routedStdio.lat, 0.99),
		straight.pages, plural(straight.pages, "page"), ms(straight.lat, 0.5), ms(straight.lat, 0.99),
		ms(floor.lat, 0.5), ms(floor.lat, 0.99),
		ms(routed.lat, 0.5)/ms(straight.lat, 0.5), ms(routedStdio.lat, 0.5)/ms(straight.lat, 0.5), ms(routed.lat, 0.5)/ms(floor.lat, 0.5),
		ms(decode, 0.5), bytesAll, verdict(ms(routed.lat, 0.5) <= 10), verdict(ms(routedStdio.lat, 0.5) <= 10))

	// What each discovery mode puts in a client's context, same tools.
	bytes := map[string]int{}
	counts := map[string]int{}
	var searchResult int
	for _, mode := range catalogModes {
		ps, err := dialHTTP(ctx, url+"/"+mode, "")
		if err != nil {
			return fmt.Errorf("profile %s: %w", mode, err)
		}
		tools, _, err := listAll(ctx, ps)
		if err == nil && mode == "search" {
			searchResult, err = searchToolsBytes(ctx, ps, "weather forecast")
		}
		ps.close()
		if err != nil {
			return fmt.Errorf("profile %s: %w", mode, err)
		}
		if err := checkModeList(mode, tools, shape); err != nil {
			return err
		}
		bytes[mode], counts[mode] = toolBytes(tools), len(tools)
	}
	perProfile := shape.profileServers * shape.perServer
	fmt.Fprintf(w, "tool definitions a client receives in tools/list, %d-tool profile (%d servers): all %d bytes (%d tools), gated %d bytes (%d tools, %.1f%% of all), search %d bytes (%d tools, %.2f%% of all); one search_tools answer (limit 10) %d bytes\n",
		perProfile, shape.profileServers, bytes["all"], counts["all"], bytes["gated"], counts["gated"], 100*float64(bytes["gated"])/float64(bytes["all"]),
		bytes["search"], counts["search"], 100*float64(bytes["search"])/float64(bytes["all"]), searchResult)

	// search_tools through the router: the ranking plus the identity, gate
	// and policy steps and the HTTP round trip. The first search builds the
	// index, so it is not timed.
	ss, err := dialHTTP(ctx, url+"/"+searchAllProfile, "")
	if err != nil {
		return err
	}
	defer ss.close()
	if _, err := searchToolsBytes(ctx, ss, "weather forecast"); err != nil {
		return fmt.Errorf("search_tools: %w", err)
	}
	queries := []string{"weather forecast", "delete file", "send message to channel", "create calendar event", "天気予報", "commit branch"}
	lat := make([]time.Duration, 0, shape.searches)
	for i := range shape.searches {
		t0 := time.Now()
		if _, err := searchToolsBytes(ctx, ss, queries[i%len(queries)]); err != nil {
			return fmt.Errorf("search_tools: %w", err)
		}
		lat = append(lat, time.Since(t0))
	}
	slices.Sort(lat)
	fmt.Fprintf(w, "search_tools through the router over %d tools (search profile, HTTP, %d calls, limit 10): p50 %.3f ms, p99 %.3f ms; target (reported, not asserted): p50 ≤ 2 ms — %s\n",
		total, shape.searches, ms(lat, 0.5), ms(lat, 0.99), verdict(ms(lat, 0.5) <= 2))
	return nil
}

func ms(sorted []time.Duration, q float64) float64 {
	return float64(percentile(sorted, q).Microseconds()) / 1000
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// storeCatalog stores the catalog's servers and the profiles: one per
// discovery mode over the first profileServers servers, and a search
// profile over all of them. The profiles go in with the CLI, as a user
// would add them.
func storeCatalog(ctx context.Context, dir, base string, shape catalogShape) error {
	st, err := store.Open(config.DBPath(dir))
	if err != nil {
		return err
	}
	names := make([]string, 0, shape.servers)
	for s := range shape.servers {
		name := catalogServerName(s)
		names = append(names, name)
		if _, err := st.Servers().Create(ctx, spec.Server{Name: name, Transport: spec.HTTP, URL: base + "/" + name + "/mcp",
			Enabled: true, PrefixMode: spec.PrefixAlways}); err != nil {
			st.Close()
			return fmt.Errorf("add server %s: %w", name, err)
		}
	}
	if err := st.Close(); err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	few := strings.Join(names[:shape.profileServers], ",")
	for _, mode := range catalogModes {
		if _, err := cliRun(ctx, self, dir, "profiles", "add", mode, "--servers", few, "--mode", mode); err != nil {
			return err
		}
	}
	_, err = cliRun(ctx, self, dir, "profiles", "add", searchAllProfile, "--servers", strings.Join(names, ","), "--mode", "search")
	return err
}

// listAll runs tools/list page by page and returns every tool's
// definition as the client received it, and the number of pages.
func listAll(ctx context.Context, s *session) ([]json.RawMessage, int, error) {
	var all []json.RawMessage
	cursor := ""
	for pages := 1; ; pages++ {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		res, err := s.request(ctx, "tools/list", params)
		if err != nil {
			return nil, 0, err
		}
		var lr struct {
			Tools      []json.RawMessage `json:"tools"`
			NextCursor string            `json:"nextCursor"`
		}
		if err := json.Unmarshal(res, &lr); err != nil {
			return nil, 0, fmt.Errorf("tools/list: %w", err)
		}
		all = append(all, lr.Tools...)
		if lr.NextCursor == "" {
			return all, pages, nil
		}
		if pages >= 1000 {
			return nil, 0, errors.New("tools/list: more than 1000 pages")
		}
		cursor = lr.NextCursor
	}
}

// toolBytes is the size of the tool definitions as JSON: what a client
// puts in its model's context.
func toolBytes(tools []json.RawMessage) int {
	n := 0
	for _, t := range tools {
		n += len(t)
	}
	return n
}

// waitToolCount polls the complete tools/list until it holds want tools.
func waitToolCount(ctx context.Context, s *session, want int, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		tools, _, err := listAll(ctx, s)
		if err == nil && len(tools) == want {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d tools offered after %s, want %d (last error %v)", len(tools), timeout, want, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// searchToolsBytes calls search_tools (limit 10) and returns the size of
// its answer's text, which must name at least one tool.
func searchToolsBytes(ctx context.Context, s *session, query string) (int, error) {
	res, err := s.request(ctx, "tools/call", map[string]any{"name": "search_tools", "arguments": map[string]any{"query": query, "limit": 10}})
	if err != nil {
		return 0, err
	}
	var cr struct {
		IsError bool `json:"isError"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal(res, &cr); err != nil {
		return 0, err
	}
	if cr.IsError || len(cr.Content) == 0 || !strings.Contains(cr.Content[0].Text, "__") {
		return 0, fmt.Errorf("search_tools %q: %.300s", query, res)
	}
	n := 0
	for _, c := range cr.Content {
		n += len(c.Text)
	}
	return n, nil
}

// runCatalogOnly is `-catalog-only`: the search_tools ranking line and the
// catalog lines, without server-everything or the other routers.
func runCatalogOnly(ctx context.Context, o options) error {
	marker := fmt.Sprintf("%d-%d", os.Getpid(), time.Now().UnixNano())
	if err := os.Setenv(markerEnv, marker); err != nil {
		return err
	}
	p := &procs{}
	defer func() { p.stopAll(); reapLeftovers(marker) }()
	fmt.Fprintf(os.Stdout, "\nMCP Router benchmark, catalog lines only — %d cores, %s; 1-min load average %s at the start\n", runtime.NumCPU(), runtime.Version(), loadAverage())
	if err := searchBench(os.Stdout, o.catalog.servers, o.catalog.perServer, 1000); err != nil {
		return err
	}
	if err := catalogBench(ctx, p, os.Stdout, o.catalog); err != nil {
		return err
	}
	fmt.Fprintf(os.Stdout, "1-min load average %s at the end\n", loadAverage())
	if o.catalog.cpuprofile != "" {
		printProfile(os.Stdout, "the catalog's tools/list runs", o.catalog.cpuprofile)
	}
	return nil
}

// checkModeList makes sure a profile lists what its mode promises, so that
// no figure is reported for a list the mode did not shape: all the
// profile's tools under all, one <server>__activate per server under
// gated, the router's three tools under search.
func checkModeList(mode string, tools []json.RawMessage, shape catalogShape) error {
	names := make([]string, 0, len(tools))
	for _, raw := range tools {
		var t struct {
			Name string `json:"name"`
		}
		if err := json.Unmarshal(raw, &t); err != nil {
			return fmt.Errorf("profile %s: %w", mode, err)
		}
		names = append(names, t.Name)
	}
	var want []string
	switch mode {
	case "all":
		if len(names) == shape.profileServers*shape.perServer {
			return nil
		}
		return fmt.Errorf("profile all: %d tools listed, want %d", len(names), shape.profileServers*shape.perServer)
	case "gated":
		for s := range shape.profileServers {
			want = append(want, catalogServerName(s)+"__activate")
		}
	default:
		want = []string{"add_tools", "call_tool", "search_tools"}
	}
	slices.Sort(names)
	if !slices.Equal(names, want) {
		return fmt.Errorf("profile %s lists %v, want %v", mode, names, want)
	}
	return nil
}
