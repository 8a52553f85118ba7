package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcp-router/mcp-router/backend/catalog"
	"github.com/mcp-router/mcp-router/backend/settings"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/store"
)

// CLIAccepter is who an accept made with the CLI is recorded as.
const CLIAccepter = "cli"

func (e *env) toolsCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tools",
		Short: "Review tools whose definition an upstream changed after it was first seen (docs/tools.md)",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(e.toolsChanges(), e.toolsAccept())
	return cmd
}

// openCatalog is the persisted catalog on st, as the running router sees
// it (a server's own toolChanges, else the setting).
func openCatalog(ctx context.Context, st *store.Store) *catalog.Catalog {
	set := settings.New(st)
	return catalog.New(ctx, catalog.Options{Store: st.Catalog(),
		Limits: func() catalog.Limits {
			return catalog.Limits{MaxItems: set.CatalogMaxItems(ctx), MaxBytes: set.CatalogMaxBytes(ctx)}
		},
		Mode: func(server string) spec.ToolChangeMode {
			if s, err := st.Servers().Get(ctx, server); err == nil && s.ToolChanges != "" {
				return s.ToolChanges
			}
			return set.ToolChanges(ctx)
		},
		// The accept's records: the running router is another process.
		OnChange: func(ch catalog.Change) {
			entry, row := catalog.Records(ch)
			_ = st.Logs().Insert(ctx, []store.RequestLog{entry})
			_, _ = st.Audit().Append(ctx, row, time.Time{})
		},
	})
}

func (e *env) toolsChanges() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "changes",
		Short: "List the tool changes waiting for a person, each with its diff",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return e.withStore(func(st *store.Store) error {
				changes, err := openCatalog(cmd.Context(), st).Changes(cmd.Context())
				if err != nil {
					return err
				}
				out := cmd.OutOrStdout()
				if asJSON {
					return writeJSON(out, changes)
				}
				if len(changes) == 0 {
					fmt.Fprintln(out, "no tool changes waiting")
					return nil
				}
				for _, ch := range changes {
					writeChange(out, ch)
				}
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the changes as JSON")
	return cmd
}

func writeChange(w io.Writer, ch catalog.Change) {
	state := "served (toolChanges: notify)"
	if ch.Held {
		state = "HELD: withheld from clients until accepted (toolChanges: hold)"
	}
	fmt.Fprintf(w, "%s %s — changed %s — %s\n  accept: mcp-router tools accept %s %s\n%s\n",
		ch.Server, ch.Tool, ch.ChangedAt.Local().Format(time.DateTime), state, ch.Server, ch.Tool, ch.Diff)
}

func (e *env) toolsAccept() *cobra.Command {
	var hash string
	cmd := &cobra.Command{
		Use:   "accept SERVER TOOL",
		Short: "Accept a tool's changed definition: it becomes the pinned one, and a held tool is served again",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.withStore(func(st *store.Store) error {
				ch, err := openCatalog(cmd.Context(), st).Accept(cmd.Context(), args[0], args[1], hash, CLIAccepter)
				if errors.Is(err, store.ErrNotFound) {
					return fmt.Errorf("server %q has no tool %q in the catalog (see mcp-router tools changes)", args[0], args[1])
				}
				if errors.Is(err, store.ErrNoPendingChange) && hash == "" {
					return fmt.Errorf("tool %q of %q has no change waiting (see mcp-router tools changes)", args[1], args[0])
				}
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "accepted the new definition of %s %s (%.12s); a running router serves it within a second\n",
					ch.Server, ch.Tool, ch.NewHash)
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&hash, "hash", "", "accept only this definition (the newHash of tools changes --json): refused if it changed again since")
	return cmd
}
