package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/mcp-router/mcp-router/backend/registry"
	"github.com/mcp-router/mcp-router/backend/settings"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/store"
)

// `mcp-router registry search|show|install` (docs/registry.md): the MCP
// Registry of the registryURL setting, browsed and installed from.

func (e *env) registryCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "registry",
		Short: "Search the MCP Registry and install servers from it (the registryURL setting)",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(e.registrySearch(), e.registryShow(), e.registryInstall())
	return cmd
}

// registryClient is a client of the registry at base ("": the registryURL
// setting), its answers capped by the registryMaxKB setting.
func registryClient(ctx context.Context, st *store.Store, base string) (*registry.Client, error) {
	set := settings.New(st)
	if base == "" {
		base = set.RegistryURL(ctx)
	}
	return registry.New(registry.Options{BaseURL: base, MaxBytes: set.RegistryMaxBytes(ctx)})
}

func (e *env) registrySearch() *cobra.Command {
	var cursor string
	var limit int
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "search [QUERY]",
		Short:   "List the registry's servers whose name contains QUERY (latest versions, one page)",
		Example: "  mcp-router registry search filesystem\n  mcp-router registry search github --limit 10 --cursor io.github.x/y:1.0.0",
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			query := ""
			if len(args) == 1 {
				query = args[0]
			}
			return e.withStore(func(st *store.Store) error {
				c, err := registryClient(cmd.Context(), st, "")
				if err != nil {
					return err
				}
				page, err := c.Search(cmd.Context(), query, cursor, limit)
				if err != nil {
					return regErr(err)
				}
				if asJSON {
					return writeJSON(cmd.OutOrStdout(), page)
				}
				w := cmd.OutOrStdout()
				if len(page.Servers) == 0 {
					fmt.Fprintf(w, "no servers match %q in %s\n", query, c.BaseURL())
					return nil
				}
				tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "NAME\tVERSION\tINSTALLS\tDESCRIPTION")
				for _, s := range page.Servers {
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", s.Server.Name, s.Server.Version, kinds(s.Server), regText(s.Server.Description, 80))
				}
				tw.Flush()
				if page.Metadata.NextCursor != "" {
					fmt.Fprintf(w, "more: mcp-router registry search %s--cursor %s\n", quoteArg(query), quoteArg(page.Metadata.NextCursor))
				}
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&cursor, "cursor", "", "the cursor a previous page printed, for the next page")
	cmd.Flags().IntVar(&limit, "limit", registry.DefaultLimit, fmt.Sprintf("servers per page (1-%d)", registry.MaxLimit))
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the page as JSON")
	return cmd
}

// kinds summarises what an entry can be installed as: npm, pypi, oci,
// remote.
func kinds(s registry.Server) string {
	var out []string
	seen := map[string]bool{}
	for _, p := range s.Packages {
		if !seen[p.RegistryType] {
			seen[p.RegistryType] = true
			out = append(out, registry.Printable(p.RegistryType))
		}
	}
	if len(s.Remotes) > 0 {
		out = append(out, "remote")
	}
	if len(out) == 0 {
		return "-"
	}
	return strings.Join(out, ",")
}

func regText(s string, n int) string {
	s = strings.Join(strings.Fields(registry.Printable(s)), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func quoteArg(s string) string {
	if s == "" {
		return ""
	}
	if strings.ContainsAny(s, " '\"$`\\;&|<>*?()[]{}!#~") {
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "' "
	}
	return s + " "
}

// nameVersion splits NAME[@VERSION].
func nameVersion(arg string) (string, string) {
	name, version, _ := strings.Cut(arg, "@")
	return name, version
}

// regErr makes a registry error one clear line (a bad name is a usage
// error).
func regErr(err error) error {
	if errors.Is(err, registry.ErrBadInput) {
		return usageError{err}
	}
	return err
}

func (e *env) registryShow() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "show NAME[@VERSION]",
		Short:   "Show a registry server's packages and remotes, and what installing each asks for",
		Example: "  mcp-router registry show io.github.modelcontextprotocol/server-everything",
		Args:    exactArgs(1, "show NAME[@VERSION]"),
		RunE: func(cmd *cobra.Command, args []string) error {
			name, version := nameVersion(args[0])
			return e.withStore(func(st *store.Store) error {
				c, err := registryClient(cmd.Context(), st, "")
				if err != nil {
					return err
				}
				entry, err := c.Get(cmd.Context(), name, version)
				if err != nil {
					return regErr(err)
				}
				if asJSON {
					return writeJSON(cmd.OutOrStdout(), entry)
				}
				printEntry(cmd.OutOrStdout(), entry)
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the entry as JSON")
	return cmd
}

func printEntry(w io.Writer, e registry.Entry) {
	s := e.Server
	p := registry.Printable
	fmt.Fprintf(w, "%s %s\n", s.Name, s.Version)
	if s.Title != "" {
		fmt.Fprintf(w, "  title:       %s\n", regText(s.Title, 200))
	}
	if s.Description != "" {
		fmt.Fprintf(w, "  description: %s\n", regText(s.Description, 400))
	}
	if s.Repository != nil && s.Repository.URL != "" {
		fmt.Fprintf(w, "  repository:  %s\n", p(s.Repository.URL))
	}
	if o := e.Meta.Official; o != nil {
		fmt.Fprintf(w, "  status:      %s (published %s, latest: %s)\n", p(o.Status), p(o.PublishedAt), yesNo(o.IsLatest))
	}
	for i, pk := range s.Packages {
		ref := pk.Identifier
		if pk.Version != "" {
			ref += " " + pk.Version
		}
		fmt.Fprintf(w, "package %d: %s %s (runtime %s, transport %s)", i+1, p(pk.RegistryType), p(ref), p(orDash(pk.RuntimeHint)), p(orDash(pk.Transport.Type)))
		if err := registry.Installable(pk); err != nil {
			fmt.Fprintf(w, " — not installable: %s", strings.TrimPrefix(err.Error(), registry.ErrUnsupported.Error()+": "))
		}
		fmt.Fprintln(w)
		printFields(w, s, registry.Target{Kind: "package", Index: i + 1})
	}
	for i, r := range s.Remotes {
		fmt.Fprintf(w, "remote %d: %s %s\n", i+1, p(r.Type), p(r.URL))
		printFields(w, s, registry.Target{Kind: "remote", Index: i + 1})
	}
	if len(s.Packages)+len(s.Remotes) == 0 {
		fmt.Fprintln(w, "no packages and no remotes: nothing to install")
	}
}

func printFields(w io.Writer, s registry.Server, t registry.Target) {
	_, fields, err := registry.Fields(s, t)
	if err != nil {
		if !errors.Is(err, registry.ErrUnsupported) || t.Kind != "package" {
			fmt.Fprintf(w, "    (%s)\n", registry.Printable(err.Error()))
		}
		return
	}
	for _, f := range fields {
		var notes []string
		if f.Required {
			notes = append(notes, "required")
		}
		if f.Secret {
			notes = append(notes, "secret")
		}
		if f.Default != "" {
			notes = append(notes, "default "+registry.Printable(f.Default))
		}
		if len(f.Choices) > 0 {
			notes = append(notes, "one of "+registry.Printable(strings.Join(f.Choices, ", ")))
		}
		fmt.Fprintf(w, "    --%s %s=…", f.Kind, f.Key)
		if len(notes) > 0 {
			fmt.Fprintf(w, "  [%s]", strings.Join(notes, "; "))
		}
		if f.Description != "" {
			fmt.Fprintf(w, "  %s", regText(f.Description, 120))
		}
		fmt.Fprintln(w)
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func (e *env) registryInstall() *cobra.Command {
	var pkg, remote int
	var argPairs, envPairs, headerPairs []string
	var name string
	var disabled bool
	cmd := &cobra.Command{
		Use:   "install NAME[@VERSION]",
		Short: "Install a registry server as an upstream: one of its packages (npx, uvx, docker) or remotes",
		Long: "Installs a server of the MCP Registry (the registryURL setting) as an upstream server, and records\n" +
			"where it came from and its version (see `servers outdated`). Required values the entry declares are\n" +
			"taken from --arg, --env and --header, else asked on a terminal (secrets without echo); without a\n" +
			"terminal a missing value is an error naming it. Secret values go to the OS keychain (else the 0600\n" +
			"secrets file), never to the database.",
		Example: "  mcp-router registry install io.github.example/weather --env WEATHER_API_KEY=…\n" +
			"  mcp-router registry install io.github.example/weather@1.2.0 --package 2 --arg city=Tokyo\n" +
			"  mcp-router registry install com.example/hosted --remote 1 --header Authorization='Bearer …'",
		Args: exactArgs(1, "install NAME[@VERSION]"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if pkg != 0 && remote != 0 {
				return usagef("give --package or --remote, not both")
			}
			if pkg < 0 || remote < 0 {
				return usagef("--package and --remote take a number from `registry show`, starting at 1")
			}
			target := registry.Target{}
			if pkg > 0 {
				target = registry.Target{Kind: "package", Index: pkg}
			} else if remote > 0 {
				target = registry.Target{Kind: "remote", Index: remote}
			}
			var ans registry.Answers
			var err error
			if ans.Args, err = parsePairs("--arg", argPairs); err != nil {
				return err
			}
			if ans.Env, err = parsePairs("--env", envPairs); err != nil {
				return err
			}
			if ans.Headers, err = parsePairs("--header", headerPairs); err != nil {
				return err
			}
			regName, version := nameVersion(args[0])
			return e.withStore(func(st *store.Store) error {
				return e.installFromRegistry(cmd, st, regName, version, target, name, ans, disabled)
			})
		},
	}
	f := cmd.Flags()
	f.IntVar(&pkg, "package", 0, "install package N of the entry (as numbered by `registry show`)")
	f.IntVar(&remote, "remote", 0, "install remote N of the entry (as numbered by `registry show`)")
	f.StringArrayVar(&argPairs, "arg", nil, "value of an argument or variable the entry declares, KEY=VALUE (repeatable)")
	f.StringArrayVar(&envPairs, "env", nil, "value of an environment variable the entry declares, KEY=VALUE (repeatable)")
	f.StringArrayVar(&headerPairs, "header", nil, "value of a header a remote declares, KEY=VALUE (repeatable)")
	f.StringVar(&name, "name", "", "the server's name in the router (default: the part of the registry name after '/')")
	f.BoolVar(&disabled, "disabled", false, "add the server without starting it")
	return cmd
}

func (e *env) installFromRegistry(cmd *cobra.Command, st *store.Store, regName, version string, target registry.Target,
	name string, ans registry.Answers, disabled bool) error {
	ctx := cmd.Context()
	c, err := registryClient(ctx, st, "")
	if err != nil {
		return err
	}
	entry, err := c.Get(ctx, regName, version)
	if err != nil {
		return regErr(err)
	}
	plan, err := registry.Build(c.BaseURL(), entry.Server, target, name, ans)
	var miss *registry.MissingError
	if errors.As(err, &miss) {
		ask := e.asker(cmd.ErrOrStderr())
		if ask == nil {
			return fmt.Errorf("%s %s: %w; give them as flags, or run the install in a terminal to be asked", entry.Server.Name, plan.Target, err)
		}
		for _, f := range miss.Fields {
			v, err := ask(f)
			if err != nil {
				return err
			}
			setAnswer(&ans, f, v)
		}
		plan, err = registry.Build(c.BaseURL(), entry.Server, target, name, ans)
	}
	if err != nil {
		return regErr(err)
	}
	def := plan.Server
	def.Enabled = !disabled
	guard, err := e.loopGuard(ctx, st)
	if err != nil {
		return err
	}
	if err := guard.Check(ctx, def); err != nil {
		return err
	}
	sec, err := e.serverSecrets()
	if err != nil {
		return err
	}
	if err := st.Servers().Free(ctx, def.Name); err != nil {
		return fmt.Errorf("%w (choose another with --name)", err)
	}
	var created store.Server
	if _, err := sec.Save(nil, def, func(d spec.Server) (err error) {
		created, err = st.Servers().Create(ctx, d)
		return err
	}); err != nil {
		return err
	}
	w := cmd.OutOrStdout()
	fmt.Fprintf(w, "installed %s@%s from %s as %s (%s %s: %s)\n", entry.Server.Name, entry.Server.Version, c.BaseURL(), created.Name,
		plan.Target.Kind, fmt.Sprint(plan.Target.Index), created.Target())
	if created.Transport == spec.Stdio {
		fmt.Fprintf(w, "command: %s\n", strings.Join(append([]string{created.Command}, created.Args...), " "))
	}
	if n := len(created.SecretEnv) + len(created.SecretHeaders); n > 0 {
		fmt.Fprintf(w, "%d secret value(s) kept in %s, not in the database\n", n, secretsWhere(sec))
	}
	return nil
}

func setAnswer(a *registry.Answers, f registry.Field, v string) {
	m := &a.Args
	switch f.Kind {
	case registry.FieldEnv:
		m = &a.Env
	case registry.FieldHeader:
		m = &a.Headers
	}
	if *m == nil {
		*m = map[string]string{}
	}
	(*m)[f.Key] = v
}

// asker asks for one field's value on the terminal (a secret without
// echo); nil when there is no terminal. Options.ReadSecret (tests) answers
// every field.
func (e *env) asker(w io.Writer) func(registry.Field) (string, error) {
	prompt := func(f registry.Field) string {
		p := fmt.Sprintf("%s %s", f.Kind, f.Key)
		if f.Description != "" {
			p += " (" + regText(f.Description, 100) + ")"
		}
		if len(f.Choices) > 0 {
			p += " [" + registry.Printable(strings.Join(f.Choices, "|")) + "]"
		}
		if f.Secret {
			return p + ", not shown: "
		}
		return p + ": "
	}
	check := func(f registry.Field, v string, err error) (string, error) {
		if err != nil {
			return "", fmt.Errorf("read %s %s: %w", f.Kind, f.Key, err)
		}
		if v = strings.TrimRight(v, "\r\n"); v == "" {
			return "", fmt.Errorf("%s %s is required and no value was given", f.Kind, f.Key)
		}
		return v, nil
	}
	if e.opts.ReadSecret != nil {
		return func(f registry.Field) (string, error) {
			v, err := e.opts.ReadSecret(prompt(f))
			return check(f, v, err)
		}
	}
	file, ok := e.opts.Stdin.(*os.File)
	if !ok || !term.IsTerminal(int(file.Fd())) {
		return nil
	}
	lines := bufio.NewReader(file)
	return func(f registry.Field) (string, error) {
		fmt.Fprint(w, prompt(f))
		if f.Secret {
			b, err := term.ReadPassword(int(file.Fd()))
			fmt.Fprintln(w)
			return check(f, string(b), err)
		}
		v, err := lines.ReadString('\n')
		return check(f, v, err)
	}
}
