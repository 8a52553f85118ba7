package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/mcp-router/mcp-router/backend/appapi"
	"github.com/mcp-router/mcp-router/backend/core"
)

// runCore opens the data dir's router, runs fn with it and closes it.
func (e *env) runCore(ctx context.Context, fn func(*core.Core) error) error {
	return e.runCoreWith(ctx, core.Options{}, fn)
}

// runCoreWith is runCore with options for core.Open.
func (e *env) runCoreWith(ctx context.Context, o core.Options, fn func(*core.Core) error) error {
	dir, err := e.resolveDataDir()
	if err != nil {
		return err
	}
	c, err := core.Open(dir, o)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.Run(ctx, 0); err != nil {
		return err
	}
	return fn(c)
}

func (e *env) serveCommand() *cobra.Command {
	var listen string
	var noAuth bool
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the router headless: the MCP endpoint on http://127.0.0.1:3282/mcp (and /sse)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			e.tuneRuntime()
			return e.runCore(cmd.Context(), func(c *core.Core) error {
				api := e.newAPI(c)
				defer appapi.Close(api)
				ui := e.uiHandler(api, noAuth)
				// Without --listen the endpoint follows the port and listen
				// settings, moving when they change.
				return c.ServeFollowing(cmd.Context(), core.ServeOptions{Addr: listen, NoAuth: noAuth, UI: ui, Ready: func(addr string) {
					auth := "on: clients need a token (mcp-router tokens create NAME)"
					if noAuth || !c.Settings.AuthEnabled(cmd.Context()) {
						auth = "off"
					}
					fmt.Fprintf(cmd.ErrOrStderr(), "MCP Router listening on http://%s/mcp (auth %s)\n", addr, auth)
					if e.opts.Assets != nil {
						fmt.Fprintf(cmd.ErrOrStderr(), "Browser UI at http://%s/ui/\n", addr)
					}
				}}, false)
			})
		},
	}
	cmd.Flags().StringVar(&listen, "listen", "", "address to listen on (default: the listen and port settings, 127.0.0.1:3282)")
	cmd.Flags().BoolVar(&noAuth, "no-auth", false, "accept requests without a token (for local test suites)")
	return cmd
}

func (e *env) stdioCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "stdio",
		Short: "Serve the aggregated MCP server on stdin/stdout, without a running app",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return e.runCore(cmd.Context(), func(c *core.Core) error {
				// Answer at once with what is running: some clients give up
				// on a server whose initialize takes long, and an `npx -y`
				// upstream may take a minute to download. The first list
				// waits a few seconds for servers still starting
				// (core.FirstListWait); each one that comes up later reaches
				// the client as list_changed.
				c.Gateway.Rebuild()
				return c.ServeStdio(cmd.Context(), cmd.InOrStdin(), cmd.OutOrStdout())
			})
		},
	}
}
