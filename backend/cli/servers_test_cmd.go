package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
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
			opts, err := e.probeOptions()
			if err != nil {
				return err
			}
			var stderr strings.Builder
			var live io.Writer = &stderr
			if verbose {
				live = io.MultiWriter(&stderr, cmd.ErrOrStderr())
			}
			res, err := probeWithin(cmd.Context(), def, opts, timeout, live)
			if err != nil {
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

// probeOptions: how servers test and servers list --connect connect. A
// server that turns out to be this data dir's router is refused as the
// running router would refuse it.
func (e *env) probeOptions() (upstream.Options, error) {
	instance, chain, err := e.identity()
	if err != nil {
		return upstream.Options{}, err
	}
	sec, err := e.serverSecrets()
	if err != nil {
		return upstream.Options{}, err
	}
	return upstream.Options{
		ClientInfo: mcp.Implementation{Name: "mcp-router", Version: core.Version},
		Instance:   instance, Chain: chain,
		Secrets: sec, // secret env and header values, read for this connection only
	}, nil
}

// probeWithin connects to def once, within timeout.
func probeWithin(ctx context.Context, def store.Server, opts upstream.Options, timeout time.Duration, stderr io.Writer) (upstream.ProbeResult, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, err := upstream.Probe(ctx, def.Server, opts, stderr)
	if err != nil && ctx.Err() == context.DeadlineExceeded {
		err = fmt.Errorf("no answer within %s", timeout)
	}
	return res, err
}

// listConnectParallel bounds the connections servers list --connect makes
// at once.
const listConnectParallel = 4

// listedServer is a row of servers list --connect: the definition, and
// what one connection to it learned.
type listedServer struct {
	store.Server
	// Protocol: the revision of the connection (the 2025-11-25 handshake).
	Protocol string `json:"protocol,omitempty"`
	// ProtocolsOffered: the revisions the server named in its answer to
	// server/discover.
	ProtocolsOffered []string `json:"protocolsOffered,omitempty"`
	// ConnectError: why the connection failed; the server's stderr is not
	// shown here (servers test NAME shows it).
	ConnectError string `json:"connectError,omitempty"`
}

// connectAll connects to each enabled server of rows once, at most
// listConnectParallel at a time, each within timeout.
func (e *env) connectAll(ctx context.Context, rows []store.Server, timeout time.Duration) ([]listedServer, error) {
	out := make([]listedServer, len(rows))
	opts, err := e.probeOptions()
	if err != nil {
		return nil, err
	}
	sem := make(chan struct{}, listConnectParallel)
	var wg sync.WaitGroup
	for i, r := range rows {
		out[i].Server = r
		if !r.Enabled {
			continue
		}
		wg.Add(1)
		go func(l *listedServer) {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			res, err := probeWithin(ctx, l.Server, opts, timeout, io.Discard)
			if err != nil {
				l.ConnectError = err.Error()
				return
			}
			l.Protocol, l.ProtocolsOffered = res.ProtocolVersion, res.ProtocolVersions
		}(&out[i])
	}
	wg.Wait()
	return out, nil
}

// cutLine is s on one line, cut to at most n runes.
func cutLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
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
	if len(res.ProtocolVersions) > 0 {
		fmt.Fprintf(w, "it offers %s (server/discover)\n", strings.Join(res.ProtocolVersions, ", "))
	}
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
