package cli

import (
	"errors"
	"fmt"

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
	var serversFlag string
	var all bool
	cmd := &cobra.Command{
		Use:   "update NAME (--servers a,b | --all-servers)",
		Short: "Change the servers a token may use; a running router applies it within a second",
		Example: "  mcp-router tokens update ci --servers github,fs\n" +
			"  mcp-router tokens update ci --all-servers",
		Args: exactArgs(1, "tokens update NAME (--servers a,b | --all-servers)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			given := cmd.Flags().Changed("servers")
			if given == all {
				return usagef("tokens update %s: give --servers a,b or --all-servers (one of them)", args[0])
			}
			servers, err := parseServerList(cmd, serversFlag)
			if err != nil {
				return err
			}
			return e.withAuth(func(st *store.Store, svc *auth.Service) error {
				if err := checkServersExist(cmd, st, servers); err != nil {
					return err
				}
				tok, err := svc.SetServers(cmd.Context(), args[0], servers)
				switch {
				case errors.Is(err, store.ErrNotFound):
					return noToken(args[0])
				case err != nil:
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "token %s may now use %s\n", tok.Name, serversLabel(tok.Servers))
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&serversFlag, "servers", "", "comma-separated servers the token may use, replacing the current list")
	cmd.Flags().BoolVar(&all, "all-servers", false, "let the token use every server")
	return cmd
}
