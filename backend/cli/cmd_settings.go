package cli

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/mcp-router/mcp-router/backend/settings"
	"github.com/mcp-router/mcp-router/backend/store"
)

func (e *env) settingsCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "settings",
		Short: "Show and change settings (" + strings.Join(settings.Keys(), ", ") + ")",
		Long:  "Show and change settings. Keys:\n\n" + settingsHelp(),
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(e.settingsGet(), e.settingsSet(), e.settingsReset(), e.settingsList())
	return cmd
}

func settingsHelp() string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	for _, d := range settings.Defs() {
		fmt.Fprintf(tw, "  %s\t%s (default %s; %s)\n", d.Key, d.Help, d.Default, d.Allowed)
	}
	_ = tw.Flush()
	return b.String()
}

func (e *env) settingsGet() *cobra.Command {
	return &cobra.Command{
		Use:   "get KEY",
		Short: "Print one setting's value (its default when unset)",
		Args:  exactArgs(1, "settings get KEY"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.withStore(func(st *store.Store) error {
				v, err := settings.New(st).Get(cmd.Context(), args[0])
				if err != nil {
					return err
				}
				fmt.Fprintln(cmd.OutOrStdout(), v)
				return nil
			})
		},
	}
}

func (e *env) settingsSet() *cobra.Command {
	return &cobra.Command{
		Use:     "set KEY VALUE",
		Short:   "Change a setting",
		Example: "  mcp-router settings set port 4000\n  mcp-router settings set auth off\n  mcp-router settings set separator _",
		Args:    exactArgs(2, "settings set KEY VALUE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			key := args[0]
			// Validate before opening the store: a bad call writes nothing.
			v, err := settings.Validate(key, args[1])
			if err != nil {
				return err
			}
			return e.withStore(func(st *store.Store) error {
				s := settings.New(st)
				undo, err := e.applyLoginItem(cmd.Context(), s, key, v)
				if err != nil {
					return err
				}
				if err := s.Set(cmd.Context(), key, v); err != nil {
					undo()
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%s = %s\n", key, v)
				if w := settings.Warning(key, v); w != "" {
					fmt.Fprintf(cmd.ErrOrStderr(), "warning: %s\n", w)
				}
				return nil
			})
		},
	}
}

func (e *env) settingsReset() *cobra.Command {
	return &cobra.Command{
		Use:   "reset KEY",
		Short: "Go back to a setting's default",
		Args:  exactArgs(1, "settings reset KEY"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.withStore(func(st *store.Store) error {
				s := settings.New(st)
				undo, err := e.applyLoginItem(cmd.Context(), s, args[0], defaultOf(args[0]))
				if err != nil {
					return err
				}
				if err := s.Reset(cmd.Context(), args[0]); err != nil {
					undo()
					return err
				}
				v, err := s.Get(cmd.Context(), args[0])
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%s = %s (default)\n", args[0], v)
				return nil
			})
		},
	}
}

func (e *env) settingsList() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List every setting with its value",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return e.withStore(func(st *store.Store) error {
				s := settings.New(st)
				all, err := s.All(cmd.Context())
				if err != nil {
					return err
				}
				if asJSON {
					return writeJSON(cmd.OutOrStdout(), all)
				}
				tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "KEY\tVALUE\tDEFAULT\tDESCRIPTION")
				for _, d := range settings.Defs() {
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", d.Key, all[d.Key], d.Default, d.Help)
				}
				return tw.Flush()
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON: {\"key\": \"value\", …} with defaults filled in")
	return cmd
}

// applyLoginItem writes or removes the OS login item when key is
// startAtLogin and its value changes, before the setting is stored (the
// desktop app's settings page does the same); undo puts it back if storing
// then fails.
func (e *env) applyLoginItem(ctx context.Context, s *settings.Settings, key, value string) (undo func(), err error) {
	if key != settings.KeyStartAtLogin {
		return func() {}, nil
	}
	before, err := s.Get(ctx, key)
	if err != nil {
		return nil, err
	}
	if before == value {
		return func() {}, nil
	}
	if err := e.setLoginItem(value == "on"); err != nil {
		return nil, fmt.Errorf("startAtLogin: %w", err)
	}
	return func() { _ = e.setLoginItem(before == "on") }, nil
}

// defaultOf is a setting's default value ("" for an unknown key).
func defaultOf(key string) string {
	for _, d := range settings.Defs() {
		if d.Key == key {
			return d.Default
		}
	}
	return ""
}
