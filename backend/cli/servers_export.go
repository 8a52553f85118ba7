package cli

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/mcp-router/mcp-router/backend/config"
	"github.com/mcp-router/mcp-router/backend/filemode"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/store"
)

// serversExport is `servers export [NAME...] [-o FILE]`: the servers as a
// client config ({"mcpServers": …}) that `servers import` reads back, with
// passUpstreamAuth (docs/auth.md) and the chat fields.
func (e *env) serversExport() *cobra.Command {
	var outPath string
	cmd := &cobra.Command{
		Use:   "export [NAME...] [-o FILE]",
		Short: "Print servers as {\"mcpServers\": …}, the format `servers import` reads (plain env and headers as stored, secret values as ${secret:NAME})",
		Example: "  mcp-router servers export > servers.json\n" +
			"  mcp-router servers export github notes -o two.json\n" +
			"  mcp-router --data-dir OTHER servers import servers.json",
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.withStore(func(st *store.Store) error {
				rows, err := st.Servers().List(cmd.Context())
				if err != nil {
					return err
				}
				byName := make(map[string]spec.Server, len(rows))
				for _, r := range rows {
					byName[r.Name] = r.Server
				}
				var defs []spec.Server
				if len(args) == 0 {
					for _, r := range rows {
						defs = append(defs, r.Server)
					}
				}
				for _, name := range args {
					def, ok := byName[name]
					if !ok {
						return notFound(store.ErrNotFound, name)
					}
					defs = append(defs, def)
				}
				data, skipped, err := config.ExportClientConfig(defs)
				if err != nil {
					return err
				}
				if outPath == "" {
					_, err = cmd.OutOrStdout().Write(data)
				} else {
					// Plain env and headers may be sensitive too: the owner's
					// eyes only. Secret values are placeholders (config.ExportClientConfig).
					err = writeNewFile(outPath, data)
				}
				if err != nil {
					return err
				}
				for _, s := range skipped {
					fmt.Fprintf(cmd.ErrOrStderr(), "left out %s: %s\n", s.Name, s.Reason)
				}
				if outPath != "" {
					fmt.Fprintf(cmd.OutOrStdout(), "exported %d server(s) to %s\n", len(defs)-len(skipped), outPath)
				}
				return nil
			})
		},
	}
	cmd.Flags().StringVarP(&outPath, "output", "o", "", "write to FILE (created with mode 0600; an existing file is not overwritten)")
	return cmd
}

// writeNewFile creates path with mode 0600, whatever the umask, and writes
// data; an existing file is left alone.
func writeNewFile(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, filemode.Secret)
	if err != nil {
		if os.IsExist(err) {
			return fmt.Errorf("%s already exists: choose another file or remove it first", path)
		}
		return err
	}
	if err := f.Chmod(filemode.Secret); err != nil {
		f.Close()
		os.Remove(path)
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(path)
		return err
	}
	return f.Close()
}
