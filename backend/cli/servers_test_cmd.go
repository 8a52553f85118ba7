package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcp-router/mcp-router/backend/core"
	"github.com/mcp-router/mcp-router/backend/store"
	"github.com/mcp-router/mcp-router/backend/upstream"

	"github.com/mark3labs/mcp-go/mcp"
)

// consoleTail is how many of a failed server's stderr lines are shown.
const consoleTail = 10

func (e *env) serversTest() *cobra.Command {
	var asJSON, verbose bool
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "test NAME",
		Short: "Connect to a server once and list its tools",
		Args:  exactArgs(1, "servers test NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			var def store.Server
			err := e.withStore(func(st *store.Store) error {
				var err error
				def, err = getServer(cmd, st, args[0])
				return err
			})
			if err != nil {
				return err
			}
			// A server that turns out to be this data dir's router is
			// refused here as the running router would refuse it.
			instance, chain, err := e.identity()
			if err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), timeout)
			defer cancel()
			var stderr strings.Builder
			var live io.Writer = &stderr
			if verbose {
				live = io.MultiWriter(&stderr, cmd.ErrOrStderr())
			}
			sec, err := e.serverSecrets()
			if err != nil {
				return err
			}
			res, err := upstream.Probe(ctx, def.Server, upstream.Options{
				ClientInfo: mcp.Implementation{Name: "mcp-router", Version: core.Version},
				Instance:   instance, Chain: chain,
				Secrets: sec, // secret env and header values, read for this connection only
			}, live)
			if err != nil {
				if ctx.Err() == context.DeadlineExceeded {
					err = fmt.Errorf("no answer within %s", timeout)
				}
				if !verbose {
					printTail(cmd.ErrOrStderr(), stderr.String())
				}
				return fmt.Errorf("%s: %w", def.Name, err)
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), res)
			}
			printProbe(cmd.OutOrStdout(), def, res)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "show the server's stderr as it runs")
	cmd.Flags().DurationVar(&timeout, "timeout", 2*time.Minute, "give up after this long (npx may download first)")
	return cmd
}

func printTail(w io.Writer, stderr string) {
	lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
	if len(lines) == 1 && lines[0] == "" {
		return
	}
	if len(lines) > consoleTail {
		lines = lines[len(lines)-consoleTail:]
	}
	fmt.Fprintln(w, "server stderr (last lines):")
	for _, l := range lines {
		fmt.Fprintln(w, "  "+l)
	}
}

func printProbe(w io.Writer, def store.Server, res upstream.ProbeResult) {
	fmt.Fprintf(w, "%s: connected to %s %s over %s (protocol %s)\n", def.Name,
		res.ServerName, res.ServerVersion, def.Transport, res.ProtocolVersion)
	c := res.Catalog
	fmt.Fprintf(w, "%d tools, %d resources, %d resource templates, %d prompts\n\n",
		len(c.Tools), len(c.Resources), len(c.ResourceTemplates), len(c.Prompts))
	if len(c.Tools) == 0 {
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TOOL\tDESCRIPTION")
	for _, t := range c.Tools {
		desc, _, _ := strings.Cut(strings.TrimSpace(t.Description), "\n")
		if len(desc) > 80 {
			desc = desc[:77] + "..."
		}
		fmt.Fprintf(tw, "%s\t%s\n", t.Name, desc)
	}
	_ = tw.Flush()
}
