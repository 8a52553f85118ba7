package main

import (
	"context"
	"encoding/json"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestMain lets the test binary be re-executed as the router (routerArg),
// as the bench binary is.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == routerArg {
		os.Exit(runRouter(os.Args[2:]))
	}
	os.Exit(m.Run())
}

// The catalog lines of `make bench` run against a real router subprocess
// and report what they measured: the complete tools/list, the bytes per
// discovery mode, search_tools through the router.
func TestCatalogBenchLines(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a router")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	marker := strconv.Itoa(os.Getpid()) + "-catalog-test"
	t.Setenv(markerEnv, marker)
	p := &procs{}
	defer func() { p.stopAll(); reapLeftovers(marker) }()
	var b strings.Builder
	// 600 tools: one page of the router's (10,000); the cursor-following
	// is the gateway's tests' (TestCachedListPagesFollowEachCallersView).
	shape := catalogShape{servers: 12, perServer: 50, profileServers: 2, lists: 3, searches: 3}
	if err := catalogBench(ctx, p, &b, shape); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	t.Log(out)
	for _, re := range []string{
		`tools/list at the router over 600 tools \(12 servers, .*\), complete list until the client holds every answer: router HTTP \(1 page\) p50 [0-9.]+ ms, p99 [0-9.]+ ms; router stdio \(1 page\) p50 [0-9.]+ ms, p99 [0-9.]+ ms; direct HTTP, one mcp-go server with the same tools \(1 page\) p50 [0-9.]+ ms, p99 [0-9.]+ ms; the router's answer served ready-made over HTTP \(static\) p50 [0-9.]+ ms, p99 [0-9.]+ ms; ratio at p50 router HTTP/direct [0-9.]+, router stdio/direct [0-9.]+, router HTTP/static [0-9.]+; decoding one complete list with encoding/json \(not in the figures\) p50 [0-9.]+ ms; [1-9][0-9]* bytes`,
		`100-tool profile \(2 servers\): all [1-9][0-9]* bytes \(100 tools\), gated [1-9][0-9]* bytes \(2 tools, [0-9.]+% of all\), search [1-9][0-9]* bytes \(3 tools, [0-9.]+% of all\); one search_tools answer \(limit 10\) [1-9][0-9]* bytes`,
		`search_tools through the router over 600 tools \(search profile, HTTP, 3 calls, limit 10\): p50 [0-9.]+ ms`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("no line matching %s in:\n%s", re, out)
		}
	}
}

// The bench refuses to report bytes for a list its mode did not shape: a
// gated or search profile that listed the tools themselves (a router that
// ignored the mode) is an error, not a figure.
func TestCatalogModeListChecked(t *testing.T) {
	shape := catalogShape{servers: 3, perServer: 4, profileServers: 2}
	tools := catalogServerTools(0, 4)
	for _, mode := range []string{"gated", "search"} {
		if err := checkModeList(mode, tools, shape); err == nil {
			t.Errorf("%s: the tools themselves accepted as the mode's list", mode)
		}
	}
	if err := checkModeList("all", tools, shape); err == nil {
		t.Error("all: 4 tools accepted for a profile of 2 × 4")
	}
	gated := []json.RawMessage{json.RawMessage(`{"name":"srv001__activate"}`), json.RawMessage(`{"name":"srv000__activate"}`)}
	if err := checkModeList("gated", gated, shape); err != nil {
		t.Error(err)
	}
	search := []json.RawMessage{json.RawMessage(`{"name":"search_tools"}`), json.RawMessage(`{"name":"call_tool"}`), json.RawMessage(`{"name":"add_tools"}`)}
	if err := checkModeList("search", search, shape); err != nil {
		t.Error(err)
	}
}
