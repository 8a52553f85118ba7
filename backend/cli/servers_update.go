package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/store"
)

type updateFlags struct {
	timeout                  int
	envs, unsetEnvs          []string
	headers, unsetHeaders    []string
	args                     []string
	noArgs, passAuth         bool
	secretEnv, secretHeader  secretEdits // servers_secrets.go
	cwd, url, transport, pfx string
	isolation, protocol      string
	start                    string
	toolChanges              string
}

// serversUpdate edits a stored server: flags not given keep their value.
func (e *env) serversUpdate() *cobra.Command {
	var f updateFlags
	cmd := &cobra.Command{
		Use:   "update NAME [flags] [-- COMMAND [ARGS...]]",
		Short: "Change a server's timeout, environment, headers, arguments, command or URL",
		Long: "Changes only what the flags say; the rest of the definition is kept. --env and --header add or\n" +
			"replace one entry each (--unset-env, --unset-header remove one); --arg replaces the whole argument\n" +
			"list (repeat it, one argument each; --no-args empties it); a command after -- replaces the command\n" +
			"and its arguments. --timeout 0 makes the server follow the timeout setting. A running router\n" +
			"restarts the server within a second.\n\n" +
			"Secret values: --secret-env KEY=VALUE (--secret-header for HTTP/SSE) sets an entry whose value is\n" +
			"kept in the OS keychain (else the 0600 secrets file), never in the database, the logs or an\n" +
			"export; --secret-env KEY without a value moves a plain entry's value there; --plain-env KEY\n" +
			"brings a secret entry's value back into the definition. --env on a secret entry is refused\n" +
			"(use --secret-env to change it), and --unset-env removes a secret entry with its value.",
		Example: "  mcp-router servers update everything --timeout 120\n" +
			"  mcp-router servers update fs --env DEBUG=1 --unset-env TRACE --arg /home/me --arg /tmp\n" +
			"  mcp-router servers update remote --secret-header 'Authorization=Bearer new'\n" +
			"  mcp-router servers update github --secret-env GITHUB_TOKEN      (the plain value moves to the keychain)\n" +
			"  mcp-router servers update everything -- node /opt/everything/dist/index.js stdio\n" +
			"  mcp-router servers update fs --isolation per-client --arg '${client.roots}'   (one instance per client, on its roots)\n" +
			"  mcp-router servers update gosdk --protocol 2026-07-28   (the stdio pipe on 2026-07-28; auto: back to the default)",
		RunE: func(cmd *cobra.Command, args []string) error {
			dash := cmd.ArgsLenAtDash()
			if len(args) == 0 || dash == 0 {
				return usagef("usage: mcp-router servers update NAME [flags] [-- COMMAND [ARGS...]]")
			}
			if dash < 0 && len(args) > 1 || dash > 1 {
				return usagef("unexpected %q: flags go before NAME's command, and the command after --", args[1])
			}
			var command []string
			if dash == 1 {
				if command = args[1:]; len(command) == 0 {
					return usagef("no command after --")
				}
			}
			changed := cmd.Flags().Changed
			given := len(command) > 0
			for _, n := range []string{"timeout", "env", "unset-env", "header", "unset-header", "arg", "no-args", "cwd", "url", "transport", "prefix", "pass-upstream-auth", "isolation", "tool-changes", "protocol", "start",
				"secret-env", "plain-env", "secret-header", "plain-header"} {
				given = given || changed(n)
			}
			if !given {
				return usagef("servers update %s: say what to change, e.g. --timeout 120 (see --help)", args[0])
			}
			return e.withStore(func(st *store.Store) error {
				r, err := getServer(cmd, st, args[0])
				if err != nil {
					return err
				}
				def, err := applyUpdate(r.Server, f, command, changed)
				if err != nil {
					return err
				}
				guard, err := e.loopGuard(cmd.Context(), st)
				if err != nil {
					return err
				}
				if err := guard.Check(cmd.Context(), def); err != nil {
					return err
				}
				// Secret values go to the keychain first, the definition with
				// their placeholders to the database (secrets.ServerValues).
				sec, err := e.serverSecrets()
				if err != nil {
					return err
				}
				var updated store.Server
				if _, err := sec.Save(&r.Server, def, func(d spec.Server) (err error) {
					updated, err = st.Servers().Update(cmd.Context(), d)
					return err
				}); err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "updated %s\n", updated.Name)
				printServer(cmd.OutOrStdout(), updated)
				hintSecrets(cmd.ErrOrStderr(), updated.Server)
				return nil
			})
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&f.timeout, "timeout", 0, "seconds to wait for one upstream request; 0: the timeout setting")
	fl.StringArrayVar(&f.envs, "env", nil, "set environment variable KEY=VALUE of a stdio server (repeatable)")
	fl.StringArrayVar(&f.unsetEnvs, "unset-env", nil, "remove environment variable KEY, plain or secret (repeatable)")
	fl.StringArrayVar(&f.secretEnv.set, "secret-env", nil, "set secret environment variable KEY=VALUE (kept in the keychain); KEY alone: make the plain KEY secret (repeatable)")
	fl.StringArrayVar(&f.secretEnv.plain, "plain-env", nil, "make secret environment variable KEY plain: its value goes back into the definition (repeatable)")
	fl.StringArrayVar(&f.headers, "header", nil, "set HTTP header KEY=VALUE of an HTTP/SSE server (repeatable)")
	fl.StringArrayVar(&f.unsetHeaders, "unset-header", nil, "remove HTTP header KEY, plain or secret (repeatable)")
	fl.StringArrayVar(&f.secretHeader.set, "secret-header", nil, "set secret HTTP header KEY=VALUE (kept in the keychain); KEY alone: make the plain header secret (repeatable)")
	fl.StringArrayVar(&f.secretHeader.plain, "plain-header", nil, "make secret HTTP header KEY plain: its value goes back into the definition (repeatable)")
	fl.StringArrayVar(&f.args, "arg", nil, "the stdio command's arguments, one per flag, replacing the stored ones")
	fl.BoolVar(&f.noArgs, "no-args", false, "run the stdio command without arguments")
	fl.StringVar(&f.cwd, "cwd", "", "working directory of a stdio server (\"\": the router's)")
	fl.StringVar(&f.url, "url", "", "URL of an HTTP or SSE server")
	fl.StringVar(&f.transport, "transport", "", "http or sse, for a server with a URL")
	fl.StringVar(&f.pfx, "prefix", "", "tool name prefix: always or never")
	fl.StringVar(&f.toolChanges, "tool-changes", "", "what a tool this server changed after it was first seen does: notify, hold, or setting (follow the toolChanges setting)")
	fl.BoolVar(&f.passAuth, "pass-upstream-auth", false, "=true: send a client's X-Upstream-Authorization as this server's Authorization; =false: stop")
	fl.StringVar(&f.protocol, "protocol", "", protocolFlagHelp)
	fl.StringVar(&f.start, "start", "", startFlagHelp)
	fl.StringVar(&f.isolation, "isolation", "", "shared (one instance for every client) or per-client (one instance per client, docs/perclient.md)")
	return cmd
}

// applyUpdate returns def changed by the flags given, validated.
func applyUpdate(def spec.Server, f updateFlags, command []string, changed func(string) bool) (spec.Server, error) {
	stdio := def.Transport == spec.Stdio
	kind := "an HTTP/SSE server"
	if stdio {
		kind = "a stdio server"
	}
	for _, n := range []string{"env", "unset-env", "arg", "no-args", "cwd", "secret-env", "plain-env"} {
		if changed(n) && !stdio {
			return def, usagef("--%s is for stdio servers; %s is %s", n, def.Name, kind)
		}
	}
	for _, n := range []string{"header", "unset-header", "url", "transport", "pass-upstream-auth", "secret-header", "plain-header"} {
		if changed(n) && stdio {
			return def, usagef("--%s is for HTTP/SSE servers; %s is %s", n, def.Name, kind)
		}
	}
	if len(command) > 0 && !stdio {
		return def, usagef("%s is %s: give --url, not a command", def.Name, kind)
	}
	if changed("arg") && (f.noArgs || len(command) > 0) || f.noArgs && len(command) > 0 {
		return def, usagef("give the arguments one way: --arg, --no-args or after the command")
	}
	if changed("pass-upstream-auth") {
		def.PassUpstreamAuth = f.passAuth
	}
	if changed("isolation") {
		def.Isolation = isolationFlag(f.isolation)
	}
	if changed("protocol") {
		p, err := spec.ParseProtocol(f.protocol)
		if err != nil {
			return def, usagef("--protocol: %v", err)
		}
		def.Protocol = p
	}
	if changed("start") {
		def.Start = spec.StartMode(f.start)
	}
	if changed("timeout") {
		if f.timeout < 0 {
			return def, usagef("--timeout must be 0 (the timeout setting) or a positive number of seconds")
		}
		def.TimeoutSeconds = f.timeout
	}
	if err := checkPlainEdits(def, spec.KindEnv, f.envs, f.secretEnv); err != nil {
		return def, err
	}
	if err := checkPlainEdits(def, spec.KindHeader, f.headers, f.secretHeader); err != nil {
		return def, err
	}
	var err error
	if def.Env, err = editPairs("env", def.Env, f.envs, f.unsetEnvs); err != nil {
		return def, err
	}
	if def.Headers, err = editPairs("header", def.Headers, f.headers, f.unsetHeaders); err != nil {
		return def, err
	}
	if err := applySecretEdits(&def, spec.KindEnv, f.secretEnv, f.envs, f.unsetEnvs); err != nil {
		return def, err
	}
	if err := applySecretEdits(&def, spec.KindHeader, f.secretHeader, f.headers, f.unsetHeaders); err != nil {
		return def, err
	}
	switch {
	case len(command) > 0:
		def.Command, def.Args = command[0], append([]string(nil), command[1:]...)
	case changed("arg"):
		def.Args = append([]string(nil), f.args...)
	case f.noArgs:
		def.Args = nil
	}
	if changed("cwd") {
		def.Cwd = strings.TrimSpace(f.cwd)
	}
	if changed("url") {
		def.URL = strings.TrimSpace(f.url)
	}
	if changed("transport") {
		def.Transport = spec.Transport(f.transport)
		if def.Transport == spec.Stdio {
			return def, usagef("--transport %s: an HTTP/SSE server stays http or sse", f.transport)
		}
	}
	if changed("prefix") {
		def.PrefixMode = spec.PrefixMode(f.pfx)
	}
	if changed("tool-changes") {
		switch m := spec.ToolChangeMode(strings.TrimSpace(f.toolChanges)); {
		case m == "setting":
			def.ToolChanges = ""
		case spec.ValidToolChangeMode(m):
			def.ToolChanges = m
		default:
			return def, usagef("--tool-changes %q: want notify, hold or setting", f.toolChanges)
		}
	}
	if err := def.Validate(); err != nil {
		return def, err
	}
	return def, nil
}

// editPairs sets then removes KEY=VALUE entries; a key both set and
// removed is refused.
func editPairs(flag string, m map[string]string, set, unset []string) (map[string]string, error) {
	if len(set) == 0 && len(unset) == 0 {
		return m, nil
	}
	add, err := parsePairs("--"+flag, set)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(m)+len(add))
	for k, v := range m {
		out[k] = v
	}
	for k, v := range add {
		out[k] = v
	}
	for _, k := range unset {
		if _, ok := add[k]; ok {
			return nil, usagef("--%s and --unset-%s both name %q", flag, flag, k)
		}
		if _, ok := out[k]; !ok {
			return nil, fmt.Errorf("--unset-%s %s: not set (nothing to remove)", flag, k)
		}
		delete(out, k)
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}
