// Command weather-mcp is a sample MCP server over stdio: Japanese weather
// forecasts from the Japan Meteorological Agency's public forecast JSON.
// It talks to its host only through MCP (github.com/mark3labs/mcp-go) and
// imports nothing from MCP Router itself (a test holds it to that), as
// seed 003 wants of a server under mcp_servers/.
//
//	weather-mcp [--base-url URL]
//
// Tools: list_areas(query) and get_forecast(area), with area names in
// Japanese (東京, 大阪府) or English (Tokyo, Osaka) or a JMA area code.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// version of the sample server.
const version = "1.0.0"

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("weather-mcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	base := fs.String("base-url", DefaultBaseURL, "base URL of the JMA's forecast JSON (…/common/const/area.json, …/forecast/data/forecast/CODE.json)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "weather-mcp: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if !strings.HasPrefix(*base, "http://") && !strings.HasPrefix(*base, "https://") {
		fmt.Fprintf(stderr, "weather-mcp: --base-url %q must be an http or https URL\n", *base)
		return 2
	}
	s := NewServer(NewJMA(*base, nil))
	if err := server.NewStdioServer(s).Listen(context.Background(), stdin, stdout); err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
		fmt.Fprintf(stderr, "weather-mcp: %v\n", err)
		return 1
	}
	return 0
}

// NewServer is the MCP server over j.
func NewServer(j *JMA) *server.MCPServer {
	s := server.NewMCPServer("weather", version, server.WithToolCapabilities(false),
		server.WithInstructions("Japanese weather forecasts from the Japan Meteorological Agency. "+
			"Find an area with list_areas, then call get_forecast with its name or code."))
	s.AddTool(mcp.NewTool("list_areas",
		mcp.WithDescription("Find forecast areas of the Japan Meteorological Agency by Japanese or English name or code "+
			"(e.g. 東京, Osaka, 130000). An empty query lists every prefecture's forecast office."),
		mcp.WithString("query", mcp.Description("part of an area name in Japanese or English, or an area code")),
		mcp.WithReadOnlyHintAnnotation(true), mcp.WithOpenWorldHintAnnotation(true),
	), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		areas, err := j.Areas(ctx)
		if err != nil {
			return mcp.NewToolResultError(err.Error()), nil
		}
		found := Find(areas, req.GetString("query", ""))
		if len(found) == 0 {
			return mcp.NewToolResultError(fmt.Sprintf("no area matches %q; try a prefecture such as 東京 or Osaka", req.GetString("query", ""))), nil
		}
		var b strings.Builder
		for _, a := range found {
			fmt.Fprintf(&b, "%s %s (%s), %s of office %s\n", a.Code, a.Name, a.EnName, a.Kind, a.Office)
		}
		return structured(strings.TrimSpace(b.String()), map[string]any{"areas": found}), nil
	})
	s.AddTool(mcp.NewTool("get_forecast",
		mcp.WithDescription("The Japan Meteorological Agency's forecast for the next days: weather, wind, chance of rain and "+
			"temperatures. area is a prefecture or forecast region in Japanese or English (東京, 大阪府, Tokyo) or its code."),
		mcp.WithString("area", mcp.Required(), mcp.Description("area name in Japanese or English, or a JMA area code")),
		mcp.WithReadOnlyHintAnnotation(true), mcp.WithOpenWorldHintAnnotation(true),
	), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		q := strings.TrimSpace(req.GetString("area", ""))
		if q == "" {
			return mcp.NewToolResultError("area is required: a prefecture or region name (東京, Osaka) or a code"), nil
		}
		areas, err := j.Areas(ctx)
		if err != nil {
			return mcp.NewToolResultError(err.Error()), nil
		}
		found := Find(areas, q)
		if len(found) == 0 {
			return mcp.NewToolResultError(fmt.Sprintf("unknown area %q; call list_areas to find one", q)), nil
		}
		a := found[0]
		if len(found) > 1 && !isExact(a, q) {
			var names []string
			for i, f := range found {
				if i == 8 {
					names = append(names, "…")
					break
				}
				names = append(names, fmt.Sprintf("%s (%s, %s)", f.Name, f.EnName, f.Code))
			}
			return mcp.NewToolResultError(fmt.Sprintf("%q matches several areas: %s; be more precise", q, strings.Join(names, ", "))), nil
		}
		region := ""
		if a.Kind == "region" {
			region = a.Code
		}
		fcs, err := j.Forecasts(ctx, a.Office, region)
		if err != nil {
			return mcp.NewToolResultError(err.Error()), nil
		}
		return structured(render(a, fcs), map[string]any{"area": a, "forecasts": fcs}), nil
	})
	return s
}

func isExact(a Area, q string) bool {
	fq := fold(q)
	return a.Code == fq || fold(a.Name) == fq || fold(a.EnName) == fq ||
		trimSuffixes(fold(a.Name)) == trimSuffixes(fq) || trimSuffixes(fold(a.EnName)) == trimSuffixes(fq)
}

func structured(text string, v any) *mcp.CallToolResult {
	res := mcp.NewToolResultText(text)
	b, err := json.Marshal(v)
	if err == nil {
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		res.StructuredContent = m
	}
	return res
}

func render(a Area, fcs []Forecast) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Forecast for %s (%s), issued %s by %s\n", a.Name, a.EnName, fcs[0].Reported, fcs[0].Office)
	for _, fc := range fcs {
		fmt.Fprintf(&b, "\n%s (%s)\n", fc.Region, fc.Code)
		for _, d := range fc.Days {
			fmt.Fprintf(&b, "  %s: %s", d.Date, d.Weather)
			if d.Wind != "" {
				fmt.Fprintf(&b, "; wind: %s", d.Wind)
			}
			b.WriteByte('\n')
		}
		if len(fc.Pops) > 0 {
			var ps []string
			for _, p := range fc.Pops {
				ps = append(ps, fmt.Sprintf("%s %s%%", shortTime(p.Time), p.Percent))
			}
			fmt.Fprintf(&b, "  chance of rain: %s\n", strings.Join(ps, ", "))
		}
		if len(fc.Temps) > 0 {
			var ts []string
			for _, t := range fc.Temps {
				ts = append(ts, fmt.Sprintf("%s %s°C", shortTime(t.Time), t.Celsius))
			}
			fmt.Fprintf(&b, "  temperatures at %s: %s\n", fc.Temps[0].Station, strings.Join(ts, ", "))
		}
	}
	return strings.TrimSpace(b.String())
}

// shortTime is "MM-DD HH:MM" of an RFC 3339 time.
func shortTime(t string) string {
	if len(t) >= 16 {
		return t[5:10] + " " + t[11:16]
	}
	return t
}
