package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/mcp-router/mcp-router/backend/appapi"
	"github.com/mcp-router/mcp-router/backend/config"
	"github.com/mcp-router/mcp-router/backend/core"
	"github.com/mcp-router/mcp-router/backend/profile"
	"github.com/mcp-router/mcp-router/backend/upstream"
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
	o.Database = e.database
	c, err := core.Open(dir, e.withTeam(o))
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
					e.serveBanner(cmd, c, addr, !noAuth && c.Settings.AuthEnabled(cmd.Context()))
				}}, false)
			})
		},
	}
	cmd.Flags().StringVar(&listen, "listen", "", "address to listen on (default: the listen and port settings, 127.0.0.1:3282)")
	cmd.Flags().BoolVar(&noAuth, "no-auth", false, "accept requests without a token (for local test suites)")
	return cmd
}

func (e *env) stdioCommand() *cobra.Command {
	var upAuth []string
	var profileName string
	cmd := &cobra.Command{
		Use:   "stdio",
		Short: "Serve the aggregated MCP server on stdin/stdout, without a running app",
		Long: "stdio serves the aggregated MCP server on stdin/stdout, for a client that starts it as a command.\n\n" +
			"--upstream-auth SERVER=VALUE (repeatable), else $" + config.UpstreamAuthEnv + " (one SERVER=VALUE a line), sends\n" +
			"VALUE as the Authorization of the server SERVER (* for every server) if it has passUpstreamAuth,\n" +
			"as an HTTP client's X-Upstream-Authorization does. See docs/auth.md.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			m, err := upstreamAuth(upAuth, cmd.Flags().Changed("upstream-auth"))
			if err != nil {
				return err
			}
			a := upstream.ClientAuthorization{All: m[config.UpstreamAuthAll]}
			delete(m, config.UpstreamAuthAll)
			if len(m) > 0 {
				a.PerServer = m
			}
			if profileName != "" {
				if err := profile.CheckName(profileName); err != nil {
					return usageError{err}
				}
			}
			return e.runCore(cmd.Context(), func(c *core.Core) error {
				if _, ok := c.Profiles.Lookup(profileName); profileName != "" && !ok {
					return fmt.Errorf("--profile: no profile named %q (see `mcp-router profiles list`)", profileName)
				}
				// Answer at once with what is running: some clients give up
				// on a server whose initialize takes long, and an `npx -y`
				// upstream may take a minute to download. The first list
				// waits a few seconds for servers still starting
				// (core.FirstListWait); each one that comes up later reaches
				// the client as list_changed.
				c.Gateway.Rebuild()
				// The client's calls carry its upstream credentials, as an
				// HTTP request's context does (core.upstreamAuthorization).
				ctx := cmd.Context()
				if !a.Empty() {
					ctx = upstream.WithClientAuthorizations(ctx, a)
				}
				if profileName != "" {
					ctx = profile.WithSelected(ctx, profileName)
				}
				return c.ServeStdio(ctx, cmd.InOrStdin(), cmd.OutOrStdout())
			})
		},
	}
	addUpstreamAuthFlag(cmd, &upAuth)
	cmd.Flags().StringVar(&profileName, "profile", "", "serve this profile's servers and tools only (docs/profiles.md)")
	return cmd
}

// serveBanner tells the user where the router listens and who may use it:
// with auth on, how to make the admin token the browser UI needs when
// there is none yet.
func (e *env) serveBanner(cmd *cobra.Command, c *core.Core, addr string, authOn bool) {
	w := cmd.ErrOrStderr()
	state := "on: clients need a token (mcp-router tokens create NAME)"
	if !authOn {
		state = "off"
	}
	fmt.Fprintf(w, "MCP Router listening on http://%s/mcp (auth %s)\n", addr, state)
	if e.opts.Assets != nil {
		fmt.Fprintf(w, "Browser UI at http://%s/ui/\n", addr)
	}
	if !authOn {
		fmt.Fprintln(w, "Auth is off: the MCP endpoint takes requests without a token; the browser UI and its API do too from this machine, "+
			"while other addresses still need an admin token (mcp-router tokens create NAME --admin).")
		return
	}
	has, err := c.Auth.HasAdmin(cmd.Context())
	if err != nil {
		fmt.Fprintf(w, "Could not look for an admin token: %v\n", err)
		return
	}
	if !has {
		fmt.Fprintln(w, "No admin token yet: the browser UI and its API need one (client tokens reach /mcp only). "+
			"Create it with: mcp-router tokens create NAME --admin")
	}
}
