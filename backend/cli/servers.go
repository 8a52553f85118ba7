package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

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
	cmd.AddCommand(e.serversInstall())                  // servers_install.go
	cmd.AddCommand(e.serversChat())                     // servers_chat.go
	cmd.AddCommand(e.serversExport())                   // servers_export.go
	cmd.AddCommand(e.serversLogin(), e.serversLogout()) // servers_login.go
	cmd.AddCommand(e.serversOutdated())                 // servers_outdated.go
	return cmd
}

func (e *env) serversAdd() *cobra.Command {
	var envs, headers, secretEnvs, secretHeaders []string
	var cwd, url, transport, prefix, isolation, protocol, start string
	var timeout int
	var disabled, builtin, passAuth bool
	cmd := &cobra.Command{
		Use:   "add NAME (-- COMMAND [ARGS...] | --url URL | --builtin)",
		Short: "Add an upstream server: a stdio command after --, or an HTTP/SSE URL",
		Example: "  mcp-router servers add everything -- npx -y @modelcontextprotocol/server-everything\n" +
			"  mcp-router servers add remote --url http://127.0.0.1:3001/mcp --secret-header Authorization='Bearer …'\n" +
			"  mcp-router servers add github -- npx -y @modelcontextprotocol/server-github --secret-env GITHUB_TOKEN=ghp_…\n" +
			"  mcp-router servers add state_gate --builtin\n" +
			"  mcp-router servers add docs --url https://mcp.example.com   (a bare base URL: the endpoint is discovered)\n" +
			"  mcp-router servers add gosdk --protocol 2026-07-28 -- everything-server   (a stdio server on 2026-07-28)",
		RunE: func(cmd *cobra.Command, args []string) error {
			def, err := buildServer(args, cmd.ArgsLenAtDash(), addFlags{envs, headers, secretEnvs, secretHeaders, cwd, url, transport, prefix, isolation, protocol, start, timeout, disabled, passAuth})
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
				// Secret values go to the keychain, placeholders to the database.
				sec, err := e.serverSecrets()
				if err != nil {
					return err
				}
				// A taken name is refused before a value is written under it.
				if err := st.Servers().Free(cmd.Context(), def.Name); err != nil {
					return err
				}
				var created store.Server
				if _, err := sec.Save(nil, def, func(d spec.Server) (err error) {
					created, err = st.Servers().Create(cmd.Context(), d)
					return err
				}); err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "added %s (%s: %s)\n", created.Name, created.Transport, created.Target())
				if n := len(created.SecretEnv) + len(created.SecretHeaders); n > 0 {
					fmt.Fprintf(cmd.OutOrStdout(), "%d secret value(s) kept in %s, not in the database\n", n, secretsWhere(sec))
				}
				hintSecrets(cmd.ErrOrStderr(), created.Server)
				return nil
			})
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&envs, "env", nil, "environment variable KEY=VALUE for a stdio server (repeatable)")
	f.StringArrayVar(&secretEnvs, "secret-env", nil, "secret environment variable KEY=VALUE: the value is kept in the OS keychain (else the 0600 secrets file), never in the database or an export (repeatable)")
	f.StringVar(&cwd, "cwd", "", "working directory of a stdio server")
	f.StringVar(&url, "url", "", "URL of an HTTP or SSE server; a bare base URL (no path) is resolved by discovery")
	f.StringVar(&transport, "transport", "", "http (streamable HTTP, default for --url) or sse")
	f.StringArrayVar(&headers, "header", nil, "HTTP header KEY=VALUE sent to an HTTP/SSE server (repeatable)")
	f.StringArrayVar(&secretHeaders, "secret-header", nil, "secret HTTP header KEY=VALUE (Authorization, an API key): kept like --secret-env (repeatable)")
	f.StringVar(&prefix, "prefix", string(spec.PrefixAlways), "tool name prefix: always (<server>__<tool>) or never")
	f.IntVar(&timeout, "timeout", 0, "seconds to wait for one upstream request (default: the timeout setting)")
	f.BoolVar(&disabled, "disabled", false, "add the server without starting it")
	f.BoolVar(&builtin, "builtin", false, "add a server built into the router (state_gate)")
	f.BoolVar(&passAuth, "pass-upstream-auth", false, "send a client's X-Upstream-Authorization header as this HTTP/SSE server's Authorization, on that client's calls")
	f.StringVar(&protocol, "protocol", "auto", protocolFlagHelp)
	f.StringVar(&start, "start", string(spec.StartAuto), startFlagHelp)
	f.StringVar(&isolation, "isolation", string(spec.Shared), "shared (one instance for every client) or per-client (one instance per client; args, env and headers may use ${client.root}, ${client.roots}, ${client.name}, ${token.name})")
	return cmd
}

// buildBuiltin is `servers add NAME --builtin`: a server that runs inside
// the router and takes none of the command or URL flags.
func buildBuiltin(cmd *cobra.Command, args []string, prefix string, timeout int, disabled bool) (spec.Server, error) {
	if len(args) != 1 || cmd.ArgsLenAtDash() >= 0 {
		return spec.Server{}, usagef("servers add NAME --builtin takes only the name (built in: %s)", builtinNames())
	}
	for _, f := range []string{"env", "cwd", "url", "transport", "header", "pass-upstream-auth", "secret-env", "secret-header", "isolation", "protocol"} {
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
	secretEnvs, secretHeaders   []string
	cwd, url, transport, prefix string
	isolation, protocol, start  string
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
		PrefixMode: spec.PrefixMode(f.prefix), TimeoutSeconds: f.timeout, Enabled: !f.disabled, PassUpstreamAuth: f.passAuth,
		Isolation: isolationFlag(f.isolation)}
	protocol, perr := spec.ParseProtocol(f.protocol)
	if perr != nil {
		return spec.Server{}, usagef("--protocol: %v", perr)
	}
	def.Protocol = protocol
	def.Start = spec.StartMode(f.start)
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
		if len(f.headers) > 0 || len(f.secretHeaders) > 0 {
			return spec.Server{}, usagef("--header and --secret-header are for HTTP/SSE servers; a stdio server takes --env or --secret-env")
		}
	} else if len(f.envs) > 0 || len(f.secretEnvs) > 0 || f.cwd != "" {
		return spec.Server{}, usagef("--env, --secret-env and --cwd are for stdio servers; an HTTP/SSE server takes --header or --secret-header")
	}
	var err error
	if def.Env, err = parsePairs("--env", f.envs); err != nil {
		return spec.Server{}, err
	}
	if def.Headers, err = parsePairs("--header", f.headers); err != nil {
		return spec.Server{}, err
	}
	if def.Env, def.SecretEnv, err = addSecrets("env", def.Env, nil, f.secretEnvs); err != nil { // servers_secrets.go
		return spec.Server{}, err
	}
	if def.Headers, def.SecretHeaders, err = addSecrets("header", def.Headers, nil, f.secretHeaders); err != nil {
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
	var asJSON, connect bool
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the configured servers",
		Long: "list shows the servers' definitions. With --connect it also connects to each enabled server once\n" +
			"(as servers test does, at most " + strconv.Itoa(listConnectParallel) + " at a time) and shows the MCP revision of the connection\n" +
			"(PROTOCOL) and the revisions the server offers through server/discover (OFFERS).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var rows []store.Server
			err := e.withStore(func(st *store.Store) error {
				var err error
				if rows, err = st.Servers().List(cmd.Context()); err != nil {
					return err
				}
				return resolveStarts(cmd.Context(), st, rows)
			})
			if err != nil {
				return err
			}
			if !connect {
				if asJSON {
					return writeJSON(cmd.OutOrStdout(), serverRows(rows))
				}
				if len(rows) == 0 {
					fmt.Fprintln(cmd.OutOrStdout(), "No servers yet. Add one with: mcp-router servers add NAME -- COMMAND [ARGS...]")
					return nil
				}
				tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "NAME\tTRANSPORT\tENABLED\tSTART\tPREFIX\tTARGET")
				for _, r := range rows {
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.Name, r.Transport, yesNo(r.Enabled), startColumn(r.Server), r.PrefixMode, r.Target())
				}
				return tw.Flush()
			}
			listed, err := e.connectAll(cmd.Context(), rows, timeout)
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), listed)
			}
			if len(listed) == 0 {
				fmt.Fprintln(cmd.OutOrStdout(), "No servers yet. Add one with: mcp-router servers add NAME -- COMMAND [ARGS...]")
				return nil
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tTRANSPORT\tENABLED\tPROTOCOL\tOFFERS\tTARGET")
			for _, r := range listed {
				protocol, offers := r.Protocol, strings.Join(r.ProtocolsOffered, ",")
				switch {
				case !r.Enabled:
					protocol = "-"
				case r.ConnectError != "":
					protocol = "error: " + cutLine(r.ConnectError, 60)
				}
				if offers == "" {
					offers = "-"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.Name, r.Transport, yesNo(r.Enabled), protocol, offers, r.Target())
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().BoolVar(&connect, "connect", false, "connect to each enabled server once and show its protocol revisions")
	cmd.Flags().DurationVar(&timeout, "timeout", time.Minute, "with --connect: give up on a server after this long")
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
				rows := []store.Server{r}
				if err := resolveStarts(cmd.Context(), st, rows); err != nil {
					return err
				}
				r = rows[0]
				if asJSON {
					return writeJSON(cmd.OutOrStdout(), serverRows(rows)[0])
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
			if k, _, _ := strings.Cut(kv, "="); !r.IsSecretEnv(k) {
				fmt.Fprintf(tw, "Env:\t%s\n", kv)
			}
		}
		for _, k := range r.SecretEnv {
			fmt.Fprintf(tw, "Secret env:\t%s (value in the keychain or the secrets file, not shown)\n", k)
		}
	} else {
		fmt.Fprintf(tw, "URL:\t%s\n", r.URL)
		headers := slices.Sorted(maps.Keys(r.Headers))
		for _, k := range headers {
			if !r.IsSecretHeader(k) {
				fmt.Fprintf(tw, "Header:\t%s: %s\n", k, r.Headers[k])
			}
		}
		for _, k := range r.SecretHeaders {
			fmt.Fprintf(tw, "Secret header:\t%s (value in the keychain or the secrets file, not shown)\n", k)
		}
		if r.PassUpstreamAuth {
			fmt.Fprintf(tw, "Upstream auth:\ta client's X-Upstream-Authorization is sent as Authorization\n")
		}
	}
	if b := r.Bundle; b != nil { // servers_install.go
		bundleLines(tw, *b)
	}
	fmt.Fprintf(tw, "Prefix:\t%s\n", r.PrefixMode)
	if r.IsPerClient() {
		fmt.Fprintf(tw, "Isolation:\tper-client (one instance per client)\n")
	}
	if r.Protocol != spec.ProtocolAuto {
		fmt.Fprintf(tw, "Protocol:\t%s (the protocol setting)\n", r.Protocol)
	}
	fmt.Fprintf(tw, "Start:\t%s\n", startLine(r.Server))
	if r.TimeoutSeconds > 0 {
		fmt.Fprintf(tw, "Timeout:\t%ds\n", r.TimeoutSeconds)
	} else {
		fmt.Fprintf(tw, "Timeout:\tthe timeout setting\n")
	}
	if len(r.DisabledTools) > 0 {
		fmt.Fprintf(tw, "Disabled tools:\t%s\n", strings.Join(r.DisabledTools, ", "))
	}
	if r.ToolChanges != "" {
		fmt.Fprintf(tw, "Tool changes:\t%s (its own; others follow the toolChanges setting)\n", r.ToolChanges)
	}
	if !r.Source.IsZero() {
		fmt.Fprintf(tw, "Installed from:\t%s@%s (%s; see servers outdated)\n", r.Source.Name, r.Source.Version, r.Source.Registry)
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
				r, err := getServer(cmd, st, args[0])
				if err != nil {
					return err
				}
				if err := st.Servers().Delete(cmd.Context(), args[0]); err != nil {
					return notFound(err, args[0])
				}
				fmt.Fprintf(cmd.OutOrStdout(), "removed %s\n", args[0])
				e.forgetLogin(cmd, st, args[0])
				e.forgetSecrets(cmd, r.Server)
				e.forgetBundle(cmd, r.Server) // servers_install.go
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
	var secretEnvs, secretHeaders []string
	var client string
	cmd := &cobra.Command{
		Use:   "import FILE",
		Short: "Import servers from a client config (Claude, Cursor, VS Code, Gemini CLI, Windsurf, Cline, LM Studio, Zed, opencode, Continue); - reads stdin",
		Long: "Imports the servers of a client config; names already taken are skipped. An entry whose value is\n" +
			"a secret's placeholder, ${secret:NAME} (what `servers export` writes for a secret value), is a\n" +
			"secret entry: its value is asked for on the terminal (not shown), or given with --secret-env\n" +
			"SERVER:KEY=VALUE / --secret-header SERVER:NAME=VALUE; without a terminal and without those flags\n" +
			"the import names what it needs and imports nothing. The values go to the OS keychain (else the\n" +
			"0600 secrets file), never to the database.\n\n" +
			"--client CLIENT reads the file as that client's (its section, and its meaning of a bare url: SSE\n" +
			"for gemini and cline); a .yaml/.yml file is read as Continue's (docs/clients.md).",
		Example: "  mcp-router servers import ~/.cursor/mcp.json\n" +
			"  mcp-router servers import --client gemini ~/.gemini/settings.json\n" +
			"  mcp-router servers import servers.json --secret-env github:GITHUB_TOKEN=ghp_…",
		Args: exactArgs(1, "servers import FILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			data, name, err := readInput(cmd, args[0], config.ClientConfigLimits())
			if err != nil {
				return err
			}
			c := client
			if c == "" && (strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml")) {
				c = config.ClientContinue
			}
			var defs []spec.Server
			if c == "" {
				defs, err = config.ParseClientConfig(data)
			} else {
				defs, err = config.ParseClientConfigFor(c, data)
			}
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			if err := importSecretValues(defs, spec.KindEnv, secretEnvs); err != nil { // servers_secrets.go
				return err
			}
			if err := importSecretValues(defs, spec.KindHeader, secretHeaders); err != nil {
				return err
			}
			sec, err := e.serverSecrets()
			if err != nil {
				return err
			}
			return e.withStore(func(st *store.Store) error {
				guard, err := e.loopGuard(cmd.Context(), st)
				if err != nil {
					return err
				}
				opts := config.ImportOptions{Refuse: guard.Refuse(cmd.Context()), Secrets: sec}
				report, err := config.ImportServersWith(cmd.Context(), st.Servers(), defs, opts)
				if nv, ok := asNoValue(err); ok && args[0] != "-" {
					// Ask on the terminal for what the file leaves out (stdin
					// is the file itself with "-": nothing to ask on).
					asked, aerr := e.askSecrets(cmd.ErrOrStderr(), defs, nv.Refs)
					if aerr != nil {
						return aerr
					}
					if !asked {
						return neededSecretsError(nv)
					}
					report, err = config.ImportServersWith(cmd.Context(), st.Servers(), defs, opts)
				} else if ok {
					return neededSecretsError(nv)
				}
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
	cmd.Flags().StringArrayVar(&secretEnvs, "secret-env", nil, "value of a secret env entry of the file, SERVER:KEY=VALUE (makes the entry secret; repeatable)")
	cmd.Flags().StringArrayVar(&secretHeaders, "secret-header", nil, "value of a secret header of the file, SERVER:NAME=VALUE (repeatable)")
	cmd.Flags().StringVar(&client, "client", "", "read the file as this client's config (gemini, cline, zed, opencode, continue, …)")
	return cmd
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

// protocolFlagHelp is --protocol's help, for add and update.
const protocolFlagHelp = "protocol revision of the router's connection: auto (HTTP servers that offer 2026-07-28 use it, others 2025-11-25), 2025-11-25 (pin the handshake), or 2026-07-28 (required: the connect fails if the server does not offer it; the only way onto it for a stdio server)"

// isolationFlag is --isolation's value as stored: shared is the default,
// stored as "" so that a definition that never chose reads the same.
func isolationFlag(v string) spec.Isolation {
	if v == string(spec.Shared) {
		return ""
	}
	return spec.Isolation(v)
}
