package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/mcp-router/mcp-router/backend/config"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/store"
)

func (e *env) serversCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "servers",
		Short: "Add, list, test and manage upstream MCP servers",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(e.serversAdd(), e.serversList(), e.serversShow(), e.serversRemove(),
		e.serversToggle("enable", true), e.serversToggle("disable", false), e.serversImport(), e.serversTest(), e.serversGate(), e.serversUpdate(), e.serversDiscover())
	cmd.AddCommand(e.serversChat())                     // servers_chat.go
	cmd.AddCommand(e.serversExport())                   // servers_export.go
	cmd.AddCommand(e.serversLogin(), e.serversLogout()) // servers_login.go
	return cmd
}

func (e *env) serversAdd() *cobra.Command {
	var envs, headers []string
	var cwd, url, transport, prefix string
	var timeout int
	var disabled, builtin, passAuth bool
	cmd := &cobra.Command{
		Use:   "add NAME (-- COMMAND [ARGS...] | --url URL | --builtin)",
		Short: "Add an upstream server: a stdio command after --, or an HTTP/SSE URL",
		Example: "  mcp-router servers add everything -- npx -y @modelcontextprotocol/server-everything\n" +
			"  mcp-router servers add remote --url http://127.0.0.1:3001/mcp --header Authorization='Bearer …'\n" +
			"  mcp-router servers add state_gate --builtin\n" +
			"  mcp-router servers add docs --url https://mcp.example.com   (a bare base URL: the endpoint is discovered)",
		RunE: func(cmd *cobra.Command, args []string) error {
			def, err := buildServer(args, cmd.ArgsLenAtDash(), addFlags{envs, headers, cwd, url, transport, prefix, timeout, disabled, passAuth})
			if builtin {
				def, err = buildBuiltin(cmd, args, prefix, timeout, disabled)
			}
			if err != nil {
				return err
			}
			return e.withStore(func(st *store.Store) error {
				guard, err := e.loopGuard(cmd.Context(), st)
				if err != nil {
					return err
				}
				if err := guard.Check(cmd.Context(), def); err != nil {
					return err
				}
				// A bare base URL: find the endpoint (servers_discover.go),
				// and check again what the documents pointed at: a catalog
				// may name this router.
				if !builtin && def.URL != "" && transport == "" && bareURL(def.URL) {
					if err := discoverFor(cmd.Context(), cmd.ErrOrStderr(), &def); err != nil {
						return err
					}
					if err := guard.Check(cmd.Context(), def); err != nil {
						return err
					}
				}
				created, err := st.Servers().Create(cmd.Context(), def)
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "added %s (%s: %s)\n", created.Name, created.Transport, created.Target())
				return nil
			})
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&envs, "env", nil, "environment variable KEY=VALUE for a stdio server (repeatable)")
	f.StringVar(&cwd, "cwd", "", "working directory of a stdio server")
	f.StringVar(&url, "url", "", "URL of an HTTP or SSE server; a bare base URL (no path) is resolved by discovery")
	f.StringVar(&transport, "transport", "", "http (streamable HTTP, default for --url) or sse")
	f.StringArrayVar(&headers, "header", nil, "HTTP header KEY=VALUE sent to an HTTP/SSE server (repeatable)")
	f.StringVar(&prefix, "prefix", string(spec.PrefixAlways), "tool name prefix: always (<server>__<tool>) or never")
	f.IntVar(&timeout, "timeout", 0, "seconds to wait for one upstream request (default: the timeout setting)")
	f.BoolVar(&disabled, "disabled", false, "add the server without starting it")
	f.BoolVar(&builtin, "builtin", false, "add a server built into the router (state_gate)")
	f.BoolVar(&passAuth, "pass-upstream-auth", false, "send a client's X-Upstream-Authorization header as this HTTP/SSE server's Authorization, on that client's calls")
	return cmd
}

// buildBuiltin is `servers add NAME --builtin`: a server that runs inside
// the router and takes none of the command or URL flags.
func buildBuiltin(cmd *cobra.Command, args []string, prefix string, timeout int, disabled bool) (spec.Server, error) {
	if len(args) != 1 || cmd.ArgsLenAtDash() >= 0 {
		return spec.Server{}, usagef("servers add NAME --builtin takes only the name (built in: %s)", builtinNames())
	}
	for _, f := range []string{"env", "cwd", "url", "transport", "header", "pass-upstream-auth"} {
		if cmd.Flags().Changed(f) {
			return spec.Server{}, usagef("--%s does not apply to a built-in server", f)
		}
	}
	if _, ok := spec.BuiltinServers[args[0]]; !ok {
		return spec.Server{}, usagef("no built-in server is named %q (built in: %s)", args[0], builtinNames())
	}
	def := spec.Server{Name: args[0], Transport: spec.Builtin, PrefixMode: spec.PrefixMode(prefix), TimeoutSeconds: timeout, Enabled: !disabled}
	def.Normalize()
	return def, def.Validate()
}

func builtinNames() string {
	names := make([]string, 0, len(spec.BuiltinServers))
	for n := range spec.BuiltinServers {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

type addFlags struct {
	envs, headers               []string
	cwd, url, transport, prefix string
	timeout                     int
	disabled, passAuth          bool
}

// buildServer turns `add` arguments into a validated definition.
func buildServer(args []string, dash int, f addFlags) (spec.Server, error) {
	if len(args) == 0 || dash == 0 {
		return spec.Server{}, usagef("servers add needs a NAME, then `-- COMMAND [ARGS...]` or --url URL")
	}
	name := args[0]
	var command []string
	switch {
	case dash > 1:
		return spec.Server{}, usagef("unexpected %q before --: put the command after --", args[1])
	case dash < 0 && len(args) > 1:
		return spec.Server{}, usagef("put the command after --, e.g. `mcp-router servers add %s -- %s`", name, strings.Join(args[1:], " "))
	case dash == 1:
		command = args[1:]
	}
	def := spec.Server{Name: name, Cwd: f.cwd, URL: f.url, Transport: spec.Transport(f.transport),
		PrefixMode: spec.PrefixMode(f.prefix), TimeoutSeconds: f.timeout, Enabled: !f.disabled, PassUpstreamAuth: f.passAuth}
	if f.timeout < 0 {
		return spec.Server{}, usagef("--timeout must be a positive number of seconds (or 0: the timeout setting)")
	}
	if len(command) > 0 && f.url != "" {
		return spec.Server{}, usagef("give either a command after -- or --url, not both")
	}
	if len(command) == 0 && f.url == "" {
		return spec.Server{}, usagef("server %q needs a command after -- (stdio) or --url URL (http, sse)", name)
	}
	if dash == 1 && len(command) == 0 {
		return spec.Server{}, usagef("no command after --")
	}
	if len(command) > 0 {
		def.Command, def.Args = command[0], command[1:]
		if f.transport != "" && f.transport != string(spec.Stdio) {
			return spec.Server{}, usagef("--transport %s needs --url, not a command", f.transport)
		}
		if len(f.headers) > 0 {
			return spec.Server{}, usagef("--header is for HTTP/SSE servers; a stdio server takes --env")
		}
	} else if len(f.envs) > 0 || f.cwd != "" {
		return spec.Server{}, usagef("--env and --cwd are for stdio servers; an HTTP/SSE server takes --header")
	}
	var err error
	if def.Env, err = parsePairs("--env", f.envs); err != nil {
		return spec.Server{}, err
	}
	if def.Headers, err = parsePairs("--header", f.headers); err != nil {
		return spec.Server{}, err
	}
	def.Normalize()
	if err := def.Validate(); err != nil {
		return spec.Server{}, err
	}
	return def, nil
}

// parsePairs reads repeated KEY=VALUE flags.
func parsePairs(flag string, pairs []string) (map[string]string, error) {
	if len(pairs) == 0 {
		return nil, nil
	}
	out := make(map[string]string, len(pairs))
	for _, p := range pairs {
		k, v, ok := strings.Cut(p, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, usagef("%s %q: want KEY=VALUE", flag, p)
		}
		out[k] = v
	}
	return out, nil
}

func (e *env) serversList() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the configured servers",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return e.withStore(func(st *store.Store) error {
				rows, err := st.Servers().List(cmd.Context())
				if err != nil {
					return err
				}
				if asJSON {
					return writeJSON(cmd.OutOrStdout(), rows)
				}
				if len(rows) == 0 {
					fmt.Fprintln(cmd.OutOrStdout(), "No servers yet. Add one with: mcp-router servers add NAME -- COMMAND [ARGS...]")
					return nil
				}
				tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "NAME\tTRANSPORT\tENABLED\tPREFIX\tTARGET")
				for _, r := range rows {
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Name, r.Transport, yesNo(r.Enabled), r.PrefixMode, r.Target())
				}
				return tw.Flush()
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func (e *env) serversShow() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show NAME",
		Short: "Show one server's definition",
		Args:  exactArgs(1, "servers show NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.withStore(func(st *store.Store) error {
				r, err := getServer(cmd, st, args[0])
				if err != nil {
					return err
				}
				if asJSON {
					return writeJSON(cmd.OutOrStdout(), r)
				}
				printServer(cmd.OutOrStdout(), r)
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func printServer(w io.Writer, r store.Server) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "Name:\t%s\n", r.Name)
	fmt.Fprintf(tw, "Transport:\t%s\n", r.Transport)
	fmt.Fprintf(tw, "Enabled:\t%s\n", yesNo(r.Enabled))
	if r.Transport == spec.Stdio {
		fmt.Fprintf(tw, "Command:\t%s\n", r.Target())
		if r.Cwd != "" {
			fmt.Fprintf(tw, "Working dir:\t%s\n", r.Cwd)
		}
		for _, kv := range r.EnvList() {
			fmt.Fprintf(tw, "Env:\t%s\n", kv)
		}
	} else {
		fmt.Fprintf(tw, "URL:\t%s\n", r.URL)
		for k, v := range r.Headers {
			fmt.Fprintf(tw, "Header:\t%s: %s\n", k, v)
		}
		if r.PassUpstreamAuth {
			fmt.Fprintf(tw, "Upstream auth:\ta client's X-Upstream-Authorization is sent as Authorization\n")
		}
	}
	fmt.Fprintf(tw, "Prefix:\t%s\n", r.PrefixMode)
	if r.TimeoutSeconds > 0 {
		fmt.Fprintf(tw, "Timeout:\t%ds\n", r.TimeoutSeconds)
	} else {
		fmt.Fprintf(tw, "Timeout:\tthe timeout setting\n")
	}
	if len(r.DisabledTools) > 0 {
		fmt.Fprintf(tw, "Disabled tools:\t%s\n", strings.Join(r.DisabledTools, ", "))
	}
	fmt.Fprintf(tw, "Added:\t%s\n", r.CreatedAt.Local().Format("2006-01-02 15:04:05"))
	if !r.Gate.IsZero() {
		gateLines(tw, r.Gate)
	}
	if !r.Chat.IsZero() { // servers_chat.go
		_ = tw.Flush()
		fmt.Fprintln(w, "Chat:")
		printChat(w, r.Chat)
	}
	_ = tw.Flush()
}

func (e *env) serversRemove() *cobra.Command {
	return &cobra.Command{
		Use:     "remove NAME",
		Aliases: []string{"rm"},
		Short:   "Remove a server",
		Args:    exactArgs(1, "servers remove NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.withStore(func(st *store.Store) error {
				if err := st.Servers().Delete(cmd.Context(), args[0]); err != nil {
					return notFound(err, args[0])
				}
				fmt.Fprintf(cmd.OutOrStdout(), "removed %s\n", args[0])
				e.forgetLogin(cmd, st, args[0])
				return nil
			})
		},
	}
}

func (e *env) serversToggle(verb string, enabled bool) *cobra.Command {
	return &cobra.Command{
		Use:   verb + " NAME",
		Short: strings.ToUpper(verb[:1]) + verb[1:] + " a server",
		Args:  exactArgs(1, "servers "+verb+" NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.withStore(func(st *store.Store) error {
				if err := st.Servers().SetEnabled(cmd.Context(), args[0], enabled); err != nil {
					return notFound(err, args[0])
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%sd %s\n", verb, args[0])
				return nil
			})
		},
	}
}

func (e *env) serversImport() *cobra.Command {
	return &cobra.Command{
		Use:   "import FILE",
		Short: "Import servers from a client config (Claude Desktop, Claude Code .mcp.json, Cursor, VS Code); - reads stdin",
		Args:  exactArgs(1, "servers import FILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			data, name, err := readInput(cmd, args[0], config.ClientConfigLimits())
			if err != nil {
				return err
			}
			defs, err := config.ParseClientConfig(data)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			return e.withStore(func(st *store.Store) error {
				guard, err := e.loopGuard(cmd.Context(), st)
				if err != nil {
					return err
				}
				report, err := config.ImportServers(cmd.Context(), st.Servers(), defs, guard.Refuse(cmd.Context()))
				if err != nil {
					return err
				}
				for _, s := range report.Skipped {
					fmt.Fprintf(cmd.ErrOrStderr(), "skipped %s: %s\n", s.Name, s.Reason)
				}
				if len(report.Added) == 0 {
					fmt.Fprintln(cmd.OutOrStdout(), "nothing imported")
					return nil
				}
				fmt.Fprintf(cmd.OutOrStdout(), "imported %d server(s): %s\n", len(report.Added), strings.Join(report.Added, ", "))
				noteUpstreamAuth(cmd.ErrOrStderr(), defs, report.Added)
				return nil
			})
		},
	}
}

// noteUpstreamAuth says which imported servers take a client's
// X-Upstream-Authorization: a file from elsewhere turned it on, and the
// value a client sends goes to every such server it calls.
func noteUpstreamAuth(w io.Writer, defs []spec.Server, added []string) {
	for _, d := range defs {
		if d.PassUpstreamAuth && slices.Contains(added, d.Name) {
			fmt.Fprintf(w, "note: %s has passUpstreamAuth on: a client's X-Upstream-Authorization is sent to %s on that client's calls (turn off: servers update %s --pass-upstream-auth=false)\n",
				d.Name, d.URL, d.Name)
		}
	}
}

func getServer(cmd *cobra.Command, st *store.Store, name string) (store.Server, error) {
	r, err := st.Servers().Get(cmd.Context(), name)
	if err != nil {
		return r, notFound(err, name)
	}
	return r, nil
}

// notFound turns store.ErrNotFound into a message that says what to do.
func notFound(err error, name string) error {
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("no server named %q (see `mcp-router servers list`)", name)
	}
	return err
}

func exactArgs(n int, usage string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) != n {
			return usagef("usage: mcp-router %s", usage)
		}
		return nil
	}
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
