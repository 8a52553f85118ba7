// Command mcp-call calls one tool through a streamable HTTP MCP endpoint and
// prints the answer's text (distcheck.CallOverHTTP); the Windows job of
// .github/workflows/windows.yml uses it against the installed app:
//
//	mcp-call -url http://127.0.0.1:3282/mcp -tool everything__test_simple_text [-args '{}'] [-want TEXT] [-wait 60s]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/mcp-router/mcp-router/internal/distcheck"
)

func main() {
	url := flag.String("url", "", "the MCP endpoint")
	tool := flag.String("tool", "", "the tool to call")
	rawArgs := flag.String("args", "{}", "the tool's arguments, a JSON object")
	want := flag.String("want", "", "text the answer must contain")
	wait := flag.Duration("wait", 60*time.Second, "how long to wait for the endpoint and the tool")
	flag.Parse()
	var args map[string]any
	if *url == "" || *tool == "" || json.Unmarshal([]byte(*rawArgs), &args) != nil {
		flag.Usage()
		os.Exit(2)
	}
	text, err := distcheck.CallOverHTTP(context.Background(), *url, *tool, args, *wait)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcp-call:", err)
		os.Exit(1)
	}
	fmt.Println(text)
	if !strings.Contains(text, *want) {
		fmt.Fprintf(os.Stderr, "mcp-call: the answer lacks %q\n", *want)
		os.Exit(1)
	}
}
