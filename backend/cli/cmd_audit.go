package cli

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/mcp-router/mcp-router/backend/store"
)

func (e *env) auditCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "audit",
		Short: "Verify and export the audit trail of calls a policy's log_level: audit rule matched",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(e.auditVerify(), e.auditExport())
	return cmd
}

func (e *env) auditVerify() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "verify",
		Short: "Check the audit trail's hash chain: exit 1 if a row was edited or deleted",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return e.withStore(func(st *store.Store) error {
				rep, err := st.Audit().Verify(cmd.Context())
				if err != nil {
					return err
				}
				out := cmd.OutOrStdout()
				if asJSON {
					if err := writeJSON(out, rep); err != nil {
						return err
					}
				} else {
					for _, p := range rep.Problems {
						fmt.Fprintln(out, p)
					}
					if rep.OK() {
						fmt.Fprintf(out, "audit trail intact: %d row%s, head %s\n", rep.Rows, plural(rep.Rows), rep.Head)
					}
				}
				if !rep.OK() {
					return fmt.Errorf("the audit trail was tampered with: %d problem%s in %d row%s", len(rep.Problems),
						plural(len(rep.Problems)), rep.Rows, plural(rep.Rows))
				}
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	return cmd
}

func (e *env) auditExport() *cobra.Command {
	var jsonl bool
	cmd := &cobra.Command{
		Use:   "export --jsonl",
		Short: "Print every audit row, oldest first, one JSON object a line (with its hashes)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !jsonl {
				return usagef("audit export needs --jsonl (the one format)")
			}
			return e.withStore(func(st *store.Store) error {
				enc := json.NewEncoder(cmd.OutOrStdout())
				return st.Audit().Each(cmd.Context(), func(r store.AuditRow) error { return enc.Encode(r) })
			})
		},
	}
	cmd.Flags().BoolVar(&jsonl, "jsonl", false, "JSON Lines: one row a line")
	return cmd
}
