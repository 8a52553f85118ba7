package cli

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcp-router/mcp-router/backend/auth"
	"github.com/mcp-router/mcp-router/backend/config"
	"github.com/mcp-router/mcp-router/backend/profile"
	"github.com/mcp-router/mcp-router/backend/settings"
	"github.com/mcp-router/mcp-router/backend/store"
)

// snippetWhere tells the user where each client's snippet goes.
var snippetWhere = map[string]string{
	config.ClientClaudeCode:    "merge it into .mcp.json at your project root (or ~/.claude.json for all projects)",
	config.ClientClaudeDesktop: "merge it into claude_desktop_config.json (Claude: Settings > Developer > Edit Config), then restart Claude Desktop",
	config.ClientCursor:        "merge it into ~/.cursor/mcp.json (all projects) or .cursor/mcp.json (one project)",
	config.ClientVSCode:        "merge it into .vscode/mcp.json in your workspace (or run \"MCP: Open User Configuration\")",
	config.ClientCodex:         "append it to ~/.codex/config.toml",
	config.ClientGemini:        "merge it into ~/.gemini/settings.json (or .gemini/settings.json in a project), then check with: gemini mcp list",
	config.ClientWindsurf:      "merge it into ~/.codeium/windsurf/mcp_config.json (Windsurf: MCP toolbar > Configure), then refresh the MCP servers",
	config.ClientCline:         "merge it into cline_mcp_settings.json (Cline: MCP Servers > Configure > Configure MCP Servers)",
	config.ClientLMStudio:      "merge it into ~/.lmstudio/mcp.json (LM Studio: Program > Install > Edit mcp.json)",
	config.ClientZed:           "merge it into Zed's settings.json (zed: open settings), which takes comments",
	config.ClientOpencode:      "merge it into ~/.config/opencode/opencode.json (or opencode.json in a project), then check with: opencode mcp list",
	config.ClientContinue:      "save it as a .yaml file in ~/.continue/mcpServers/ (or .continue/mcpServers/ in a workspace); Continue uses MCP in agent mode",
}

func (e *env) snippetCommand() *cobra.Command {
	var client, mode, token, endpoint, profileName string
	var newToken, link bool
	var upAuth []string
	cmd := &cobra.Command{
		Use:   "snippet --client " + strings.Join(config.SnippetClients, "|") + " [--mode http|stdio]",
		Short: "Print the config that connects an AI client to this router",
		Long: "Print the configuration that connects an AI client to the router, ready to paste into the client's\n" +
			"config file. The snippet goes to stdout (so `> file` works); notes go to stderr.\n\n" +
			"With auth on (the default), a new client token named after the client is created for the snippet unless\n" +
			"--token gives an existing client token (an admin token is refused: it would open the browser UI).\n" +
			"--mode stdio runs `mcp-router connect` as a bridge, for clients that only start local commands\n" +
			"(Claude Desktop).\n\n" +
			"--upstream-auth SERVER=VALUE (repeatable; * for every server) puts the client's own credential for\n" +
			"servers with passUpstreamAuth in the snippet: $" + config.UpstreamAuthEnv + " for stdio, the\n" +
			"X-Upstream-Authorization headers for http (docs/auth.md).\n\n" +
			"--profile NAME points the snippet at that profile's endpoint (/mcp/NAME; docs/profiles.md), names its\n" +
			"entry mcp-router-NAME, and binds the token it creates to the profile.\n\n" +
			"--link prints an install link instead (" + strings.Join(config.LinkClients, ", ") + "): opening it makes the\n" +
			"client ask its user to add the router (docs/clients.md).",
		Example: "  mcp-router snippet --client claude-code\n" +
			"  mcp-router snippet --client claude-desktop --mode stdio\n" +
			"  mcp-router snippet --client cursor --profile work\n" +
			"  mcp-router snippet --client vscode --link\n" +
			"  mcp-router snippet --client codex --token mcpr_… >> ~/.codex/config.toml",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if client == "" {
				return usagef("snippet needs --client: one of %s", strings.Join(config.SnippetClients, ", "))
			}
			if err := config.CheckSnippet(client, mode); err != nil {
				return usageError{err}
			}
			if link && !slices.Contains(config.LinkClients, client) {
				return usagef("--link: %s has no install link; links exist for %s", client, strings.Join(config.LinkClients, ", "))
			}
			if token != "" && newToken {
				return usagef("give either --token or --new-token, not both")
			}
			if cmd.Flags().Changed("token") && token == "" {
				return usagef("--token needs a token (mcpr_…)")
			}
			if endpoint != "" {
				if err := checkEndpointURL(endpoint); err != nil {
					return err
				}
			}
			if profileName != "" {
				if err := profile.CheckName(profileName); err != nil {
					return usagef("--profile: %v", err)
				}
			}
			var o config.SnippetOptions
			if len(upAuth) > 0 {
				m, err := config.ParseUpstreamAuth(upAuth)
				if err != nil {
					return usageError{err}
				}
				o.UpstreamAuth = m
			}
			if mode == config.ModeStdio {
				bin, err := executablePath()
				if err != nil {
					return err
				}
				o.BinaryPath = bin
			}
			return e.withAuth(func(st *store.Store, svc *auth.Service) error {
				set := settings.New(st)
				var err error
				if o.URL, o.Name, err = snippetTarget(ctx, st, set, endpoint, profileName); err != nil {
					return err
				}
				// Render once with a stand-in token so that nothing is
				// created for a snippet that cannot be written.
				probe := o
				probe.Token = "mcpr_check"
				render := config.Snippet
				if link {
					render = config.InstallLink
				}
				if _, err := render(client, mode, probe); err != nil {
					return err
				}
				stderr := cmd.ErrOrStderr()
				if o.Token, _, err = snippetToken(cmd, svc, set, client, token, profileName, newToken, "this snippet"); err != nil {
					return err
				}
				text, err := render(client, mode, o)
				if err != nil {
					return err
				}
				if link {
					fmt.Fprintln(cmd.OutOrStdout(), text)
					fmt.Fprintf(stderr, "Open the link (it holds the token) to have %s ask you to add the router.\n", client)
					return nil
				}
				fmt.Fprint(cmd.OutOrStdout(), text)
				fmt.Fprintf(stderr, "To connect, %s.\n", snippetWhere[client])
				return nil
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&client, "client", "", "client to connect: "+strings.Join(config.SnippetClients, ", "))
	f.StringVar(&mode, "mode", config.ModeHTTP, "http (the client connects to the endpoint) or stdio (the client runs `mcp-router connect`)")
	f.StringVar(&token, "token", "", "use this existing token instead of creating one")
	f.BoolVar(&link, "link", false, "print an install link instead ("+strings.Join(config.LinkClients, ", ")+")")
	f.BoolVar(&newToken, "new-token", false, "create a token even when auth is off (so the snippet keeps working if auth is turned on)")
	f.StringVar(&endpoint, "url", "", "endpoint URL (default http://<listen>:<port>/mcp from settings)")
	f.StringVar(&profileName, "profile", "", "the snippet for this profile's endpoint (/mcp/NAME; docs/profiles.md)")
	f.StringArrayVar(&upAuth, "upstream-auth", nil, "SERVER=VALUE: the client's own Authorization for SERVER (* for all) if it has passUpstreamAuth; repeatable")
	return cmd
}

// snippetTarget is the endpoint URL and entry name of a snippet: the
// router's endpoint (--url, else from settings), or with --profile that
// profile's endpoint beside it (/mcp/NAME) and the entry mcp-router-NAME.
func snippetTarget(ctx context.Context, st *store.Store, set *settings.Settings, endpoint, profileName string) (string, string, error) {
	u := endpoint
	if u == "" {
		u = set.EndpointURL(ctx)
	}
	if profileName == "" {
		return u, "", nil
	}
	profiles := profile.New(st)
	if err := profiles.Reload(ctx); err != nil {
		return "", "", err
	}
	if _, ok := profiles.Lookup(profileName); !ok {
		return "", "", fmt.Errorf("--profile: no profile %q (mcp-router profiles list)", profileName)
	}
	// The profile's endpoint beside the router's, as connect --profile
	// and the Connect page build it.
	return strings.TrimSuffix(u, "/") + "/" + profileName, config.SnippetServerName + "-" + profileName, nil
}

// snippetToken is the token a client's config gets: --token (checked to be
// a client token), or a new client token named after the client (bound to
// the profile) when auth is on or newToken, or none. for names what the
// token is for in the note on stderr. created is the new token's name.
func snippetToken(cmd *cobra.Command, svc *auth.Service, set *settings.Settings, client, token, profileName string, newToken bool, forWhat string) (secret, created string, err error) {
	ctx, stderr := cmd.Context(), cmd.ErrOrStderr()
	switch {
	case token != "":
		id, err := svc.Verify(ctx, token)
		if err != nil {
			return "", "", fmt.Errorf("--token: %w", err)
		}
		if id.IsAdmin() {
			return "", "", fmt.Errorf("--token: %q is an admin token; an AI client's config needs a client token (leave --token out to make one)", id.TokenName)
		}
		return token, "", nil
	case set.AuthEnabled(ctx) || newToken:
		secret, name, err := createClientToken(cmd, svc, client)
		if err != nil {
			return "", "", err
		}
		if profileName != "" {
			// A profile's client reaches that profile only, whichever
			// endpoint it is pointed at.
			if _, err := svc.SetProfile(ctx, name, profileName); err != nil {
				return "", "", fmt.Errorf("binding token %q to profile %q: %w", name, profileName, err)
			}
			fmt.Fprintf(stderr, "Bound token %q to profile %q.\n", name, profileName)
		}
		fmt.Fprintf(stderr, "Created client token %q for %s (it reaches the MCP endpoint only and is not shown anywhere else; revoke it with: mcp-router tokens revoke %s).\n", name, forWhat, name)
		return secret, name, nil
	}
	fmt.Fprintln(stderr, "Auth is off, so the config has no token (with auth on, run this again or pass --new-token).")
	return "", "", nil
}

// createClientToken makes a token named after the client: "cursor", then
// "cursor-2", "cursor-3", … when the name is taken.
func createClientToken(cmd *cobra.Command, svc *auth.Service, client string) (string, string, error) {
	for i := 1; i <= 1000; i++ {
		name := client
		if i > 1 {
			name += "-" + strconv.Itoa(i)
		}
		secret, _, err := svc.Create(cmd.Context(), name, nil)
		if errors.Is(err, store.ErrDuplicate) {
			continue
		}
		if err != nil {
			return "", "", err
		}
		return secret, name, nil
	}
	return "", "", fmt.Errorf("too many tokens named %s-N; revoke some or pass --token", client)
}

func checkEndpointURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return usagef("--url %q: want an http:// or https:// URL such as %s", s, config.DefaultEndpointURL)
	}
	return nil
}

// executablePath is the absolute path of the running mcp-router, symlinks
// resolved, so the client starts this very binary.
func executablePath() (string, error) {
	p, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("cannot find the mcp-router binary for a stdio snippet: %w", err)
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	}
	return filepath.Abs(p)
}
