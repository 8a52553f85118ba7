package cli

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/mcp-router/mcp-router/backend/registry"
	"github.com/mcp-router/mcp-router/backend/store"
)

// serversOutdated is `servers outdated`: the servers installed from a
// registry whose registry now has a newer version. Each asks the registry
// it was installed from, not the registryURL setting of today.
func (e *env) serversOutdated() *cobra.Command {
	var all, asJSON bool
	cmd := &cobra.Command{
		Use:   "outdated",
		Short: "List servers installed from an MCP Registry that has a newer version of them",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return e.withStore(func(st *store.Store) error {
				ctx := cmd.Context()
				rows, err := st.Servers().List(ctx)
				if err != nil {
					return err
				}
				clients := map[string]*registry.Client{}
				var checks []registry.Check
				for _, r := range rows {
					if r.Source.IsZero() {
						continue
					}
					c, ok := clients[r.Source.Registry]
					if !ok {
						if c, err = registryClient(ctx, st, r.Source.Registry); err != nil {
							checks = append(checks, registry.Check{Server: r.Name, Source: r.Source, Error: err.Error()})
							continue
						}
						clients[r.Source.Registry] = c
					}
					checks = append(checks, registry.CheckLatest(ctx, c, r.Name, r.Source))
				}
				if asJSON {
					if checks == nil {
						checks = []registry.Check{}
					}
					return writeJSON(cmd.OutOrStdout(), checks)
				}
				w := cmd.OutOrStdout()
				if len(checks) == 0 {
					fmt.Fprintln(w, "no server was installed from a registry")
					return nil
				}
				tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "SERVER\tINSTALLED\tLATEST\tREGISTRY NAME\tREGISTRY")
				shown := 0
				for _, c := range checks {
					switch {
					case c.Error != "":
						fmt.Fprintf(cmd.ErrOrStderr(), "%s: %s\n", c.Server, registry.Printable(c.Error))
					case c.Outdated || all:
						fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", c.Server, c.Source.Version, registry.Printable(c.Latest), c.Source.Name, c.Source.Registry)
						shown++
					}
				}
				if shown == 0 {
					fmt.Fprintln(w, "every server installed from a registry is at its latest version")
					return nil
				}
				return tw.Flush()
			})
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "list every server installed from a registry, outdated or not")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print every check as JSON")
	return cmd
}
