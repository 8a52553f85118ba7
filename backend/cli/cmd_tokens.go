package cli

import (
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcp-router/mcp-router/backend/auth"
	"github.com/mcp-router/mcp-router/backend/store"
)

func (e *env) tokensCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tokens",
		Short: "Create, list, revoke, delete and scope the access tokens clients use",
		Long: "Clients send a token as `Authorization: Bearer mcpr_…` (or $MCPR_TOKEN for `mcp-router connect`).\n" +
			"Only a hash of each token is stored, so a token is shown once, when it is created.\n\n" +
			"A token has a role. A client token (the default, what `snippet` and the Connect page make) reaches the\n" +
			"MCP endpoint (/mcp, /sse) only. An admin token (--admin) also opens the browser UI of `serve`, which can\n" +
			"start processes and change every setting: keep it out of AI clients' configs.\n\n" +
			"A token may also carry roles of its own (--role reviewer): state_gate lets it emit the events kept to\n" +
			"those roles. They never change what the token reaches.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(e.tokensCreate(), e.tokensList(), e.tokensRevoke(), e.tokensDelete(), e.tokensUpdate())
	return cmd
}

// withAuth runs fn with the token service of an open store.
func (e *env) withAuth(fn func(*store.Store, *auth.Service) error) error {
	return e.withStore(func(st *store.Store) error {
		svc := auth.New(st)
		defer svc.Close()
		return fn(st, svc)
	})
}

func (e *env) tokensCreate() *cobra.Command {
	var serversFlag, profileFlag string
	var roles []string
	var asJSON, admin bool
	cmd := &cobra.Command{
		Use:   "create NAME [--servers a,b | --admin] [--profile P] [--role R]...",
		Short: "Create a token and print it (once: it cannot be shown again)",
		Example: "  mcp-router tokens create laptop\n" +
			"  mcp-router tokens create ci --servers github,fs --json\n" +
			"  mcp-router tokens create review-bot --role reviewer   # state_gate: may emit events kept to reviewer\n" +
			"  mcp-router tokens create me --admin        # for the browser UI",
		Args: exactArgs(1, "tokens create NAME [--servers a,b | --admin] [--role R]... [--json]"),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			if err := auth.ValidName(name); err != nil {
				return err
			}
			if admin && cmd.Flags().Changed("servers") {
				return usagef("--admin and --servers cannot be combined: an admin token manages every server")
			}
			if admin && profileFlag != "" {
				return usagef("--admin and --profile cannot be combined: an admin token manages every profile")
			}
			servers, err := parseServerList(cmd, serversFlag)
			if err != nil {
				return err
			}
			if roles, err = checkRoleFlag(cmd, roles); err != nil {
				return err
			}
			return e.withAuth(func(st *store.Store, svc *auth.Service) error {
				if err := checkServersExist(cmd, st, servers); err != nil {
					return err
				}
				if err := checkProfileExists(cmd, st, profileFlag); err != nil {
					return err
				}
				secret, tok, err := svc.CreateToken(cmd.Context(), auth.NewToken{Name: name, Servers: servers, Roles: roles, Admin: admin,
					Profile: profileFlag})
				if errors.Is(err, store.ErrDuplicate) {
					return fmt.Errorf("a token named %q already exists (see `mcp-router tokens list`)", name)
				}
				if err != nil {
					return err
				}
				if asJSON {
					return writeJSON(cmd.OutOrStdout(), struct {
						Name    string     `json:"name"`
						Token   string     `json:"token"`
						Servers []string   `json:"servers"`
						Role    store.Role `json:"role"`
						Roles   []string   `json:"roles"`
						Profile string     `json:"profile,omitempty"`
					}{tok.Name, secret, nonNil(tok.Servers), tok.Role, nonNil(tok.Roles), tok.Profile})
				}
				// The secret alone on stdout, so $(mcp-router tokens create x) works.
				fmt.Fprintln(cmd.OutOrStdout(), secret)
				if admin {
					fmt.Fprintf(cmd.ErrOrStderr(), "Created admin token %q: it opens the browser UI, which can start processes and change every setting; "+
						"never put it in an AI client's config. Copy it now: it cannot be shown again.\n", tok.Name)
					return nil
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "Created client token %q for %s (the MCP endpoint only)%s%s. Copy it now: it cannot be shown again.\n",
					tok.Name, serversLabel(tok.Servers), rolesNote(tok.Roles), profileNote(tok.Profile))
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&serversFlag, "servers", "", "comma-separated servers the token may use (default: all)")
	cmd.Flags().StringVar(&profileFlag, "profile", "", "bind the token to a profile: it reaches /mcp/P only (and plain /mcp is that profile)")
	cmd.Flags().BoolVar(&admin, "admin", false, "make an admin token: it also opens the browser UI (default: a client token, the MCP endpoint only)")
	cmd.Flags().StringSliceVar(&roles, "role", nil, "a role of the token's own, for state_gate (repeat, or a,b); 1-64 letters, digits, _ . -; not admin or client")
	cmd.Flags().BoolVar(&asJSON, "json", false, `print JSON: {"name": …, "token": "mcpr_…", "servers": […], "role": "client"|"admin", "roles": […]}`)
	return cmd
}

// checkRoleFlag reads --role: the names auth.CheckRoles accepts, as a
// usage error naming the flag otherwise; given, it names at least one.
func checkRoleFlag(cmd *cobra.Command, roles []string) ([]string, error) {
	out, err := auth.CheckRoles(roles)
	if err != nil {
		return nil, usagef("--role: %v", err)
	}
	if cmd.Flags().Changed("role") && len(out) == 0 {
		return nil, usagef("--role needs at least one role")
	}
	return out, nil
}

// profileNote is ", bound to profile P" for a bound token.
func profileNote(p string) string {
	if p == "" {
		return ""
	}
	return fmt.Sprintf(", bound to profile %s (/mcp/%s)", p, p)
}

// checkProfileExists refuses --profile P when there is no profile P.
func checkProfileExists(cmd *cobra.Command, st *store.Store, name string) error {
	if name == "" {
		return nil
	}
	if _, err := st.Profiles().Get(cmd.Context(), name); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return usagef("--profile: no profile named %q (see `mcp-router profiles list`)", name)
		}
		return err
	}
	return nil
}

// rolesNote is ", with roles a, b" for a token with roles of its own.
func rolesNote(roles []string) string {
	if len(roles) == 0 {
		return ""
	}
	return ", with roles " + strings.Join(roles, ", ")
}

// parseServerList reads --servers a,b: trimmed, no empties, no repeats.
func parseServerList(cmd *cobra.Command, v string) ([]string, error) {
	if !cmd.Flags().Changed("servers") {
		return nil, nil
	}
	var out []string
	seen := map[string]bool{}
	for _, s := range strings.Split(v, ",") {
		s = strings.TrimSpace(s)
		if s == "" || seen[s] {
			continue
		}
		seen[s] = true
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, usagef("--servers needs at least one server name (leave it out to allow all servers)")
	}
	return out, nil
}

func checkServersExist(cmd *cobra.Command, st *store.Store, names []string) error {
	if len(names) == 0 {
		return nil
	}
	rows, err := st.Servers().List(cmd.Context())
	if err != nil {
		return err
	}
	have := map[string]bool{}
	for _, r := range rows {
		have[r.Name] = true
	}
	var missing []string
	for _, n := range names {
		if !have[n] {
			missing = append(missing, fmt.Sprintf("%q", n))
		}
	}
	if len(missing) == 1 {
		return fmt.Errorf("--servers: no server named %s (see `mcp-router servers list`)", missing[0])
	}
	if len(missing) > 1 {
		return fmt.Errorf("--servers: no servers named %s (see `mcp-router servers list`)", strings.Join(missing, ", "))
	}
	return nil
}

// tokenView is what `tokens list --json` shows: never the secret or hash.
type tokenView struct {
	Name       string     `json:"name"`
	Prefix     string     `json:"prefix"`
	Servers    []string   `json:"servers"` // empty: all servers
	Role       store.Role `json:"role"`    // client or admin
	Roles      []string   `json:"roles"`   // its own, for state_gate
	Profile    string     `json:"profile"` // bound to; "" none
	CreatedAt  time.Time  `json:"createdAt"`
	LastUsedAt *time.Time `json:"lastUsedAt"`
	RevokedAt  *time.Time `json:"revokedAt"`
	Revoked    bool       `json:"revoked"`
}

func (e *env) tokensList() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List tokens (names and prefixes, never the secrets)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return e.withAuth(func(_ *store.Store, svc *auth.Service) error {
				toks, err := svc.List(cmd.Context())
				if err != nil {
					return err
				}
				if asJSON {
					views := make([]tokenView, len(toks))
					for i, t := range toks {
						views[i] = tokenView{t.Name, t.Prefix, nonNil(t.Servers), t.Role, nonNil(t.Roles), t.Profile, t.CreatedAt, t.LastUsedAt, t.RevokedAt, t.RevokedAt != nil}
					}
					return writeJSON(cmd.OutOrStdout(), views)
				}
				if len(toks) == 0 {
					fmt.Fprintln(cmd.OutOrStdout(), "No tokens yet. Create one with: mcp-router tokens create NAME (add --admin for one that opens the browser UI)")
					return nil
				}
				tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "NAME\tROLE\tROLES\tPREFIX\tSERVERS\tCREATED\tLAST USED\tREVOKED")
				for _, t := range toks {
					servers := "all"
					if len(t.Servers) > 0 {
						servers = strings.Join(t.Servers, ",")
					}
					roles := "-"
					if len(t.Roles) > 0 {
						roles = strings.Join(t.Roles, ",")
					}
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s…\t%s\t%s\t%s\t%s\n", t.Name, t.Role, roles, t.Prefix, servers,
						fmtTime(&t.CreatedAt, "-"), fmtTime(t.LastUsedAt, "never"), fmtTime(t.RevokedAt, "no"))
				}
				return tw.Flush()
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func (e *env) tokensRevoke() *cobra.Command {
	return &cobra.Command{
		Use:   "revoke NAME",
		Short: "Revoke a token; a running router stops accepting it within a second",
		Args:  exactArgs(1, "tokens revoke NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.withAuth(func(_ *store.Store, svc *auth.Service) error {
				err := svc.Revoke(cmd.Context(), args[0])
				switch {
				case errors.Is(err, store.ErrNotFound):
					return fmt.Errorf("no token named %q (see `mcp-router tokens list`)", args[0])
				case err != nil:
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "revoked %s\n", args[0])
				return nil
			})
		},
	}
}

func serversLabel(servers []string) string {
	if len(servers) == 0 {
		return "all servers"
	}
	return "servers " + strings.Join(servers, ", ")
}

func fmtTime(t *time.Time, zero string) string {
	if t == nil || t.IsZero() {
		return zero
	}
	return t.Local().Format("2006-01-02 15:04")
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
