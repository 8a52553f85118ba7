package cli

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/mcp-router/mcp-router/backend/auth"
	"github.com/mcp-router/mcp-router/backend/clients"
	"github.com/mcp-router/mcp-router/backend/config"
	"github.com/mcp-router/mcp-router/backend/profile"
	"github.com/mcp-router/mcp-router/backend/settings"
	"github.com/mcp-router/mcp-router/backend/store"
)

func (e *env) clientsCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "clients",
		Short: "Write the router into an AI client's own config file",
	}
	cmd.AddCommand(e.clientsAddCommand(), e.clientsPathCommand())
	return cmd
}

func (e *env) clientsPathCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "path CLIENT",
		Short: "Print where CLIENT keeps its MCP config on this machine",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			host, err := clients.HostEnv()
			if err != nil {
				return err
			}
			p, err := host.Path(args[0], config.SnippetServerName)
			if err != nil {
				return usageError{err}
			}
			fmt.Fprintln(cmd.OutOrStdout(), p)
			return nil
		},
	}
}

// placeholderToken stands for the token Add creates, in the diff shown
// before anything (the token included) is made.
const placeholderToken = "mcpr_NEW_TOKEN_CREATED_ON_WRITE"

func (e *env) clientsAddCommand() *cobra.Command {
	var mode, token, endpoint, profileName, path string
	var dryRun, yes, newToken bool
	cmd := &cobra.Command{
		Use:   "add CLIENT",
		Short: "Add the router to CLIENT's config file (diff shown first, backup kept)",
		Long: "Add the router's entry to the client's own config file (`mcp-router clients path CLIENT` prints\n" +
			"where it is), in that client's format: the entry `mcp-router` (mcp-router-NAME with --profile) is\n" +
			"replaced if it is there, never added twice, and every other key is kept (with comments, in JSON with\n" +
			"comments). The diff is printed first; --yes writes without asking, a terminal is asked, --dry-run\n" +
			"only prints. Before writing, the old file is copied to FILE.bak-<UTC time>; the new one replaces it\n" +
			"atomically with the same mode. A file that does not parse is not touched.\n\n" +
			"Clients: " + strings.Join(clients.Writable, ", ") + ". A new client token is created on write\n" +
			"(with auth on) unless --token gives one; the diff shows " + placeholderToken + " in its place.",
		Example: "  mcp-router clients add gemini --dry-run\n" +
			"  mcp-router clients add cursor --yes\n" +
			"  mcp-router clients add zed --profile work",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, client := cmd.Context(), args[0]
			if client == config.ClientClaudeDesktop && !cmd.Flags().Changed("mode") {
				mode = config.ModeStdio // its config file starts local commands only
			}
			if err := config.CheckSnippet(client, mode); err != nil {
				return usageError{err}
			}
			if token != "" && newToken {
				return usagef("give either --token or --new-token, not both")
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
				if path == "" {
					host, err := clients.HostEnv()
					if err != nil {
						return err
					}
					name := o.Name
					if name == "" {
						name = config.SnippetServerName
					}
					if path, err = host.Path(client, name); err != nil {
						return usageError{err}
					}
				}
				willCreate := token == "" && (set.AuthEnabled(ctx) || newToken)
				shown := o
				switch {
				case token != "":
					shown.Token = token
				case willCreate:
					shown.Token = placeholderToken
				}
				plan, err := planAdd(client, mode, path, shown)
				if err != nil {
					return err
				}
				out, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
				if plan.Unchanged() {
					fmt.Fprintf(stderr, "%s already has this entry; nothing to do.\n", plan.Path)
					return nil
				}
				fmt.Fprint(out, plan.Diff)
				if dryRun {
					fmt.Fprintln(stderr, "Dry run: nothing was written and no token was created.")
					return nil
				}
				if !yes {
					ok, asked, err := e.confirm(cmd, fmt.Sprintf("Write %s (a backup is kept)? [y/N] ", plan.Path))
					if err != nil {
						return err
					}
					if !asked {
						return usagef("no terminal to ask on: pass --yes to write %s, or --dry-run", plan.Path)
					}
					if !ok {
						fmt.Fprintln(stderr, "Nothing was written.")
						return nil
					}
				}
				var created string
				if willCreate || token != "" {
					if o.Token, created, err = snippetToken(cmd, svc, set, client, token, profileName, newToken, client+"'s config"); err != nil {
						return err
					}
				}
				backup, err := writeAdd(client, mode, path, o, plan.Diff)
				if err != nil {
					if created != "" {
						// The token is in no file: it must not stay valid.
						if rerr := svc.Revoke(ctx, created); rerr == nil {
							fmt.Fprintf(stderr, "Revoked token %q: the file was not written.\n", created)
						}
					}
					return err
				}
				if backup != "" {
					fmt.Fprintf(stderr, "Backed up the old file to %s.\n", backup)
				}
				fmt.Fprintf(stderr, "Wrote %s; restart or reload %s to connect.\n", plan.Path, client)
				return nil
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&mode, "mode", config.ModeHTTP, "http (the client connects to the endpoint) or stdio (the client runs `mcp-router connect`)")
	f.StringVar(&token, "token", "", "use this existing client token instead of creating one")
	f.BoolVar(&newToken, "new-token", false, "create a token even when auth is off")
	f.StringVar(&endpoint, "url", "", "endpoint URL (default http://<listen>:<port>/mcp from settings)")
	f.StringVar(&profileName, "profile", "", "point the entry at this profile's endpoint (/mcp/NAME; docs/profiles.md)")
	f.StringVar(&path, "path", "", "the config file to edit (default: the client's user-wide file; mcp-router clients path CLIENT)")
	f.BoolVar(&dryRun, "dry-run", false, "print the diff only")
	f.BoolVarP(&yes, "yes", "y", false, "write without asking")
	return cmd
}

func planAdd(client, mode, path string, o config.SnippetOptions) (*clients.Plan, error) {
	entry, err := config.Entry(client, mode, o)
	if err != nil {
		return nil, err
	}
	return clients.Prepare(client, path, entry)
}

// writeAdd plans again with the real token and writes, if the change is
// still the one shown.
func writeAdd(client, mode, path string, o config.SnippetOptions, shown string) (string, error) {
	final, err := planAdd(client, mode, path, o)
	if err != nil {
		return "", err
	}
	if !sameShape(shown, final.Diff, o.Token) {
		return "", fmt.Errorf("%s changed while you read the diff; nothing was written, run again", path)
	}
	return final.Write(time.Now())
}

// sameShape reports whether the final diff is the one shown, but for the
// placeholder standing in for the token created since.
func sameShape(shown, final, token string) bool {
	if token == "" {
		return shown == final
	}
	return shown == strings.ReplaceAll(final, token, placeholderToken) || shown == final
}

// confirm asks a yes/no question on the terminal; asked is false when
// stdin is not one.
func (e *env) confirm(cmd *cobra.Command, question string) (ok, asked bool, err error) {
	if e.opts.Confirm != nil {
		ok, err := e.opts.Confirm(question)
		return ok, true, err
	}
	f, isFile := e.opts.Stdin.(*os.File)
	if !isFile || !term.IsTerminal(int(f.Fd())) {
		return false, false, nil
	}
	fmt.Fprint(cmd.ErrOrStderr(), question)
	line, err := bufio.NewReader(f).ReadString('\n')
	if err != nil && line == "" {
		return false, true, fmt.Errorf("reading the answer: %w", err)
	}
	a := strings.ToLower(strings.TrimSpace(line))
	return a == "y" || a == "yes", true, nil
}
