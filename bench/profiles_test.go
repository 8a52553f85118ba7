package main

import (
	"strings"
	"testing"
)

// The search_tools line of `make bench` runs and says what it measured.
func TestSearchBenchLine(t *testing.T) {
	var b strings.Builder
	if err := searchBench(&b, 5, 20, 20); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "search_tools ranking over 100 tools (5 servers") || !strings.Contains(b.String(), "p50") {
		t.Errorf("line: %q", b.String())
	}
}
