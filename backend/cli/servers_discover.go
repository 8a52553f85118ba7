package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/mcp-router/mcp-router/backend/discovery"
	"github.com/mcp-router/mcp-router/backend/spec"
)

// serversDiscover is `servers discover URL`: what discovery finds behind
// a URL, without adding anything (docs/discovery.md).
func (e *env) serversDiscover() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "discover URL",
		Short: "Find the MCP endpoint behind a URL (AI catalog, server card, .well-known, transports) without adding it",
		Example: "  mcp-router servers discover https://mcp.example.com\n" +
			"  mcp-router servers discover http://127.0.0.1:3001 --json",
		Args: exactArgs(1, "servers discover URL"),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := (&discovery.Prober{}).Discover(cmd.Context(), args[0])
			if asJSON && (err == nil || errors.Is(err, discovery.ErrNotFound)) {
				if werr := writeJSON(cmd.OutOrStdout(), f); werr != nil {
					return werr
				}
				return err
			}
			if err != nil && !errors.Is(err, discovery.ErrNotFound) {
				return usagef("%v", err)
			}
			printDiscovery(cmd.OutOrStdout(), f)
			return err
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print what was found and tried as JSON")
	return cmd
}

// printDiscovery prints every step, then what was found.
func printDiscovery(w io.Writer, f discovery.Found) {
	fmt.Fprintf(w, "Tried for %s:\n", f.Input)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, s := range f.Steps {
		mark := "--"
		if s.OK {
			mark = "ok"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", mark, s.What, s.URL, s.Result)
	}
	_ = tw.Flush()
	if f.Endpoint == "" {
		fmt.Fprintln(w, "No MCP endpoint found.")
		return
	}
	fmt.Fprintf(w, "Found: %s (%s)\n", f.Endpoint, f.Transport)
	if f.Name != "" {
		fmt.Fprintf(w, "Name: %s %s\n", f.Name, f.Version)
	}
	if f.NeedsAuth {
		fmt.Fprint(w, "Needs authorization")
		if len(f.AuthorizationServers) > 0 {
			fmt.Fprintf(w, ": authorization servers %s", strings.Join(f.AuthorizationServers, ", "))
		}
		if f.ResourceMetadata != "" {
			fmt.Fprintf(w, " (metadata %s)", f.ResourceMetadata)
		}
		fmt.Fprintln(w, "; give a token with --header Authorization='Bearer …'")
	}
}

// bareURL reports whether u is a base URL with no path, which `servers
// add --url` resolves by discovery.
func bareURL(u string) bool {
	p, err := url.Parse(u)
	return err == nil && (p.Scheme == "http" || p.Scheme == "https") && strings.Trim(p.Path, "/") == "" && p.RawQuery == ""
}

// discoverFor resolves def's bare URL to the endpoint found there and
// prints what was tried to w. def keeps its headers.
func discoverFor(ctx context.Context, w io.Writer, def *spec.Server) error {
	f, err := (&discovery.Prober{}).Discover(ctx, def.URL)
	printDiscovery(w, f)
	if err != nil {
		return fmt.Errorf("%w: give the endpoint itself with --url (and --transport sse for a legacy SSE server)", err)
	}
	def.URL = f.Endpoint
	def.Transport = spec.HTTP
	if f.Transport == discovery.TransportSSE {
		def.Transport = spec.SSE
	}
	def.Normalize()
	return def.Validate()
}
