package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcp-router/mcp-router/backend/auth"
	"github.com/mcp-router/mcp-router/backend/store"
)

// noToken is the error for an unknown token name.
func noToken(name string) error {
	return fmt.Errorf("no token named %q (see `mcp-router tokens list`)", name)
}

func (e *env) tokensDelete() *cobra.Command {
	return &cobra.Command{
		Use:   "delete NAME",
		Short: "Delete a token for good (revoked or not): it stops working and its name is free again",
		Args:  exactArgs(1, "tokens delete NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.withAuth(func(_ *store.Store, svc *auth.Service) error {
				err := svc.Delete(cmd.Context(), args[0])
				switch {
				case errors.Is(err, store.ErrNotFound):
					return noToken(args[0])
				case err != nil:
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "deleted %s\n", args[0])
				return nil
			})
		},
	}
}

func (e *env) tokensUpdate() *cobra.Command {
	var serversFlag, profileFlag string
	var roles []string
	var all, noRoles, noProfile bool
	const usage = "tokens update NAME [--servers a,b | --all-servers] [--role R... | --no-roles] [--profile P | --no-profile]"
	cmd := &cobra.Command{
		Use:   "update NAME [--servers a,b | --all-servers] [--role R... | --no-roles] [--profile P | --no-profile]",
		Short: "Change the servers a token may use or its own roles; a running router applies it within a second",
		Example: "  mcp-router tokens update ci --servers github,fs\n" +
			"  mcp-router tokens update ci --all-servers\n" +
			"  mcp-router tokens update review-bot --role reviewer,maintainer   # replaces its roles\n" +
			"  mcp-router tokens update review-bot --no-roles",
		Args: exactArgs(1, usage),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			setServers, setRoles := cmd.Flags().Changed("servers"), cmd.Flags().Changed("role")
			setProfile := cmd.Flags().Changed("profile")
			switch {
			case setProfile && noProfile:
				return usagef("tokens update %s: give --profile P or --no-profile, not both", name)
			case setProfile && profileFlag == "":
				return usagef("tokens update %s: --profile needs a profile name (or --no-profile)", name)
			case setServers && all:
				return usagef("tokens update %s: give --servers a,b or --all-servers, not both", name)
			case setRoles && noRoles:
				return usagef("tokens update %s: give --role or --no-roles, not both", name)
			case !setServers && !all && !setRoles && !noRoles && !setProfile && !noProfile:
				return usagef("tokens update %s: nothing to change: give --servers a,b, --all-servers, --role R, --no-roles, --profile P or --no-profile", name)
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
				if setProfile || noProfile {
					_, err := svc.SetProfile(cmd.Context(), name, profileFlag)
					switch {
					case errors.Is(err, store.ErrNotFound):
						return noToken(name)
					case err != nil:
						return err
					}
					if profileFlag == "" {
						fmt.Fprintf(cmd.OutOrStdout(), "token %s is bound to no profile\n", name)
					} else {
						fmt.Fprintf(cmd.OutOrStdout(), "token %s is bound to profile %s (/mcp/%s)\n", name, profileFlag, profileFlag)
					}
				}
				if setServers || all {
					tok, err := svc.SetServers(cmd.Context(), name, servers)
					switch {
					case errors.Is(err, store.ErrNotFound):
						return noToken(name)
					case err != nil:
						return err
					}
					fmt.Fprintf(cmd.OutOrStdout(), "token %s may now use %s\n", tok.Name, serversLabel(tok.Servers))
				}
				if setRoles || noRoles {
					tok, err := svc.SetRoles(cmd.Context(), name, roles)
					switch {
					case errors.Is(err, store.ErrNotFound):
						return noToken(name)
					case err != nil:
						return err
					}
					if len(tok.Roles) == 0 {
						fmt.Fprintf(cmd.OutOrStdout(), "token %s now has no roles of its own\n", tok.Name)
					} else {
						fmt.Fprintf(cmd.OutOrStdout(), "token %s now has roles %s\n", tok.Name, strings.Join(tok.Roles, ", "))
					}
				}
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&serversFlag, "servers", "", "comma-separated servers the token may use, replacing the current list")
	cmd.Flags().BoolVar(&all, "all-servers", false, "let the token use every server")
	cmd.Flags().StringSliceVar(&roles, "role", nil, "the token's own roles, for state_gate, replacing the current ones (repeat, or a,b)")
	cmd.Flags().BoolVar(&noRoles, "no-roles", false, "clear the token's own roles")
	cmd.Flags().StringVar(&profileFlag, "profile", "", "bind the token to a profile: it reaches /mcp/P only")
	cmd.Flags().BoolVar(&noProfile, "no-profile", false, "unbind the token from its profile")
	return cmd
}
