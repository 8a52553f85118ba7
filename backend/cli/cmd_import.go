package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcp-router/mcp-router/backend/electronimport"
	"github.com/mcp-router/mcp-router/backend/store"
)

func (e *env) importCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "import",
		Short: "Import from another router (the Electron MCP Router)",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(e.importElectron())
	return cmd
}

func (e *env) importElectron() *cobra.Command {
	var dbPath, exportPath string
	var dryRun, asJSON bool
	cmd := &cobra.Command{
		Use:   "electron",
		Short: "Import the Electron MCP Router's servers, tool toggles and Projects (as profiles)",
		Long: "Reads the Electron MCP Router's database (a copy of it: the original is never written) from its\n" +
			"usual place, or the file given with --db, or a file its Export wrote (--export), and adds its\n" +
			"servers (with their env, args and headers; credentials into the keychain), their per-tool\n" +
			"toggles, and a profile for each Project. Names already taken here are skipped, never\n" +
			"overwritten, so a second import adds nothing. Its access tokens are not carried over.\n" +
			"--dry-run prints the same summary without writing. Details: docs/import.md.",
		Example: "  mcp-router import electron --dry-run\n" +
			"  mcp-router import electron --db \"$HOME/.config/MCP Router/mcprouter.db\"\n" +
			"  mcp-router import electron --export mcp-router-export.json",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			src, err := electronimport.Read(cmd.Context(), dbPath, exportPath)
			if err != nil {
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
				plan, err := electronimport.MakePlan(cmd.Context(), st, src, guard.Refuse(cmd.Context()))
				if err != nil {
					return err
				}
				if !dryRun {
					if err := electronimport.Apply(cmd.Context(), st, sec, plan); err != nil {
						return err
					}
				}
				if asJSON {
					return writeJSON(cmd.OutOrStdout(), struct {
						electronimport.Plan
						Applied bool `json:"applied"`
					}{plan, !dryRun})
				}
				printPlan(cmd.OutOrStdout(), plan, dryRun)
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&dbPath, "db", "", "the Electron app's database file (default: mcprouter.db in its data directory)")
	cmd.Flags().StringVar(&exportPath, "export", "", "a file the Electron app's Export wrote, instead of its database")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "print what the import would do; write nothing")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the summary as JSON")
	return cmd
}

// printPlan prints the import's summary: with dryRun what it would do,
// else what it did — the same plan either way.
func printPlan(w io.Writer, p electronimport.Plan, dryRun bool) {
	verb := "imported"
	if dryRun {
		verb = "would import"
	}
	from := p.Kind
	if p.Workspace != "" {
		from += fmt.Sprintf(", workspace %q", p.Workspace)
	}
	fmt.Fprintf(w, "source: %s (%s)\n", p.Source, from)
	if p.Empty() {
		fmt.Fprintln(w, "nothing to import")
	}
	if len(p.Servers) > 0 {
		fmt.Fprintf(w, "%s %d server(s):\n", verb, len(p.Servers))
		for _, s := range p.Servers {
			var extra []string
			if s.From != s.Name {
				extra = append(extra, fmt.Sprintf("from %q", s.From))
			}
			if !s.Enabled {
				extra = append(extra, "disabled")
			}
			if n := len(s.DisabledTools); n > 0 {
				extra = append(extra, fmt.Sprintf("%d tool(s) off: %s", n, strings.Join(s.DisabledTools, ", ")))
			}
			if len(s.SecretEnv)+len(s.SecretHeaders) > 0 {
				extra = append(extra, "secrets to the keychain: "+strings.Join(append(append([]string{}, s.SecretEnv...), s.SecretHeaders...), ", "))
			}
			if s.Project != "" {
				extra = append(extra, fmt.Sprintf("project %q", s.Project))
			}
			line := fmt.Sprintf("  %s  %s  %s", s.Name, s.Transport, s.Target)
			if len(extra) > 0 {
				line += "  (" + strings.Join(extra, "; ") + ")"
			}
			fmt.Fprintln(w, line)
		}
	}
	if len(p.Profiles) > 0 {
		fmt.Fprintf(w, "%s %d profile(s):\n", verb, len(p.Profiles))
		for _, pr := range p.Profiles {
			fmt.Fprintf(w, "  %s  (project %q): %s\n", pr.Name, pr.From, strings.Join(pr.Servers, ", "))
		}
	}
	if len(p.Skipped) > 0 {
		fmt.Fprintf(w, "skipped %d:\n", len(p.Skipped))
		for _, s := range p.Skipped {
			fmt.Fprintf(w, "  %s %q: %s\n", s.Kind, s.Name, s.Reason)
		}
	}
	if len(p.Notes) > 0 || p.TokensNote != "" {
		fmt.Fprintln(w, "not carried over:")
		if p.TokensNote != "" {
			fmt.Fprintf(w, "  %s\n", p.TokensNote)
		}
		for _, n := range p.Notes {
			fmt.Fprintf(w, "  %s\n", n)
		}
	}
	if dryRun {
		fmt.Fprintln(w, "dry run: nothing was written")
	}
}
