package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/mcp-router/mcp-router/backend/filelimit"
	"github.com/mcp-router/mcp-router/backend/hook"
	"github.com/mcp-router/mcp-router/backend/settings"
	"github.com/mcp-router/mcp-router/backend/store"
)

func (e *env) hooksCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hooks",
		Short: "Add, list, test and remove the JavaScript hooks that run around every request",
		Long: "A hook is a JavaScript function body run with `context` in scope: pre hooks before a request is\n" +
			"routed, post hooks after the upstream answers, both hooks in both phases, in ascending --order.\n" +
			"A running router picks up changes within a second. See docs/hooks.md.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(e.hooksAdd(), e.hooksUpdate(), e.hooksList(), e.hooksShow(),
		e.hooksToggle("enable", true), e.hooksToggle("disable", false), e.hooksRemove(), e.hooksTest())
	return cmd
}

// withHooks runs fn with a hook service over an open store, under the hook
// limits of the settings (so that `hooks test` runs as the router would).
func (e *env) withHooks(fn func(*hook.Service) error) error {
	return e.withStore(func(st *store.Store) error {
		set := settings.New(st)
		return fn(hook.New(st.Hooks(), hook.Options{Limits: func() hook.Limits {
			ctx := context.Background()
			return hook.Limits{Timeout: set.HookTimeout(ctx), MaxMemory: int64(set.HookMemoryMB(ctx)) << 20}
		}}))
	})
}

// hookErr turns store and script errors into one line that says what to do.
func hookErr(err error, name string) error {
	var se *hook.ScriptError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, store.ErrNotFound):
		return fmt.Errorf("no hook named %q (see `mcp-router hooks list`)", name)
	case errors.Is(err, store.ErrDuplicate):
		return fmt.Errorf("a hook named %q already exists (use `mcp-router hooks update %s --file F`)", name, name)
	case errors.As(err, &se):
		return fmt.Errorf("hook %q: %w", name, se)
	case errors.Is(err, store.ErrInvalid):
		return usageError{errors.New(strings.Replace(err.Error(), store.ErrInvalid.Error()+": ", "", 1))}
	}
	return err
}

func checkType(t string) error {
	switch t {
	case store.HookPre, store.HookPost, store.HookBoth:
		return nil
	}
	return usagef("bad --type %q: want pre, post or both", t)
}

// readScript reads --file (- for stdin) within hook.ScriptLimits, refusing
// oversized scripts before reading them whole.
func readScript(cmd *cobra.Command, path string) (string, error) {
	if path == "" {
		return "", usagef("--file is required: the hook's script (- reads stdin)")
	}
	data, _, err := readInput(cmd, path, hook.ScriptLimits())
	if err != nil {
		return "", err
	}
	return string(data), nil
}

// hookContextLimits are the caps of `hooks test --context FILE`.
func hookContextLimits() filelimit.Limits {
	return filelimit.Limits{What: "hook context file", MaxBytes: hook.MaxScriptBytes}.WithDefaults()
}

func (e *env) hooksAdd() *cobra.Command {
	var typ, file string
	var order int
	var failClosed, disabled bool
	cmd := &cobra.Command{
		Use:   "add NAME --type pre|post|both --file F [--order N] [--fail-closed] [--disabled]",
		Short: "Add a hook from a script file",
		Example: "  mcp-router hooks add no-secrets --type pre --file no-secrets.js\n" +
			"  mcp-router hooks add redact --type post --file redact.js --order 10 --fail-closed",
		Args: exactArgs(1, "hooks add NAME --type pre|post|both --file F [--order N] [--fail-closed] [--disabled]"),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			if err := hook.ValidName(name); err != nil {
				return hookErr(err, name)
			}
			if !cmd.Flags().Changed("type") {
				return usagef("--type is required: pre, post or both")
			}
			if err := checkType(typ); err != nil {
				return err
			}
			script, err := readScript(cmd, file)
			if err != nil {
				return err
			}
			return e.withHooks(func(svc *hook.Service) error {
				h, err := svc.Create(cmd.Context(), store.Hook{Name: name, HookType: typ, ExecutionOrder: order,
					Script: script, FailClosed: failClosed, Enabled: !disabled})
				if err != nil {
					return hookErr(err, name)
				}
				fmt.Fprintf(cmd.OutOrStdout(), "added %s (%s, order %d%s)\n", h.Name, h.HookType, h.ExecutionOrder, hookFlags(h))
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&typ, "type", "", "when the hook runs: pre, post or both")
	cmd.Flags().StringVar(&file, "file", "", "the script (a function body with `context` in scope); - reads stdin")
	cmd.Flags().IntVar(&order, "order", 0, "execution order; lower runs first, ties by name")
	cmd.Flags().BoolVar(&failClosed, "fail-closed", false, "block the request when the script fails (default: log and go on)")
	cmd.Flags().BoolVar(&disabled, "disabled", false, "store the hook turned off")
	return cmd
}

func hookFlags(h store.Hook) string {
	var f []string
	if h.FailClosed {
		f = append(f, "fail-closed")
	}
	if !h.Enabled {
		f = append(f, "disabled")
	}
	if len(f) == 0 {
		return ""
	}
	return ", " + strings.Join(f, ", ")
}

func (e *env) hooksUpdate() *cobra.Command {
	var typ, file string
	var order int
	var failClosed bool
	cmd := &cobra.Command{
		Use:   "update NAME [--file F] [--type pre|post|both] [--order N] [--fail-closed=true|false]",
		Short: "Change a hook's script or settings",
		Args:  exactArgs(1, "hooks update NAME [--file F] [--type pre|post|both] [--order N] [--fail-closed=true|false]"),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			fl := cmd.Flags()
			if !fl.Changed("file") && !fl.Changed("type") && !fl.Changed("order") && !fl.Changed("fail-closed") {
				return usagef("nothing to update: give --file, --type, --order or --fail-closed")
			}
			if fl.Changed("type") {
				if err := checkType(typ); err != nil {
					return err
				}
			}
			var script string
			if fl.Changed("file") {
				var err error
				if script, err = readScript(cmd, file); err != nil {
					return err
				}
			}
			return e.withHooks(func(svc *hook.Service) error {
				h, err := svc.Get(cmd.Context(), name)
				if err != nil {
					return hookErr(err, name)
				}
				if fl.Changed("file") {
					h.Script = script
				}
				if fl.Changed("type") {
					h.HookType = typ
				}
				if fl.Changed("order") {
					h.ExecutionOrder = order
				}
				if fl.Changed("fail-closed") {
					h.FailClosed = failClosed
				}
				if h, err = svc.Update(cmd.Context(), h); err != nil {
					return hookErr(err, name)
				}
				fmt.Fprintf(cmd.OutOrStdout(), "updated %s (%s, order %d%s)\n", h.Name, h.HookType, h.ExecutionOrder, hookFlags(h))
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&typ, "type", "", "when the hook runs: pre, post or both")
	cmd.Flags().StringVar(&file, "file", "", "the new script; - reads stdin")
	cmd.Flags().IntVar(&order, "order", 0, "execution order; lower runs first")
	cmd.Flags().BoolVar(&failClosed, "fail-closed", false, "block the request when the script fails")
	return cmd
}

// hookView is what `hooks list --json` prints per hook.
type hookView struct {
	Name           string `json:"name"`
	Enabled        bool   `json:"enabled"`
	ExecutionOrder int    `json:"executionOrder"`
	HookType       string `json:"hookType"`
	FailClosed     bool   `json:"failClosed"`
	ScriptBytes    int    `json:"scriptBytes"`
	Script         string `json:"script"`
	CreatedAt      string `json:"createdAt"`
	UpdatedAt      string `json:"updatedAt"`
}

func (e *env) hooksList() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List hooks in the order they run",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return e.withHooks(func(svc *hook.Service) error {
				hooks, err := svc.List(cmd.Context())
				if err != nil {
					return err
				}
				if asJSON {
					views := make([]hookView, len(hooks))
					for i, h := range hooks {
						views[i] = hookView{h.Name, h.Enabled, h.ExecutionOrder, h.HookType, h.FailClosed, len(h.Script), h.Script,
							h.CreatedAt.UTC().Format("2006-01-02T15:04:05Z"), h.UpdatedAt.UTC().Format("2006-01-02T15:04:05Z")}
					}
					return writeJSON(cmd.OutOrStdout(), views)
				}
				if len(hooks) == 0 {
					fmt.Fprintln(cmd.OutOrStdout(), "No hooks yet. Add one with: mcp-router hooks add NAME --type pre --file hook.js")
					return nil
				}
				tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "ORDER\tNAME\tTYPE\tENABLED\tFAIL-CLOSED\tSIZE\tUPDATED")
				for _, h := range hooks {
					fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%d B\t%s\n", h.ExecutionOrder, h.Name, h.HookType, yesNo(h.Enabled),
						yesNo(h.FailClosed), len(h.Script), fmtTime(&h.UpdatedAt, "-"))
				}
				return tw.Flush()
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON (with the scripts)")
	return cmd
}

func (e *env) hooksShow() *cobra.Command {
	return &cobra.Command{
		Use:   "show NAME",
		Short: "Print a hook's script",
		Args:  exactArgs(1, "hooks show NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.withHooks(func(svc *hook.Service) error {
				h, err := svc.Get(cmd.Context(), args[0])
				if err != nil {
					return hookErr(err, args[0])
				}
				_, err = io.WriteString(cmd.OutOrStdout(), strings.TrimRight(h.Script, "\n")+"\n")
				return err
			})
		},
	}
}

func (e *env) hooksToggle(verb string, on bool) *cobra.Command {
	return &cobra.Command{
		Use:   verb + " NAME",
		Short: strings.ToUpper(verb[:1]) + verb[1:] + " a hook",
		Args:  exactArgs(1, "hooks "+verb+" NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.withHooks(func(svc *hook.Service) error {
				if err := svc.SetEnabled(cmd.Context(), args[0], on); err != nil {
					return hookErr(err, args[0])
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%sd %s\n", verb, args[0])
				return nil
			})
		},
	}
}

func (e *env) hooksRemove() *cobra.Command {
	return &cobra.Command{
		Use:     "remove NAME",
		Aliases: []string{"rm"},
		Short:   "Remove a hook",
		Args:    exactArgs(1, "hooks remove NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.withHooks(func(svc *hook.Service) error {
				if err := svc.Delete(cmd.Context(), args[0]); err != nil {
					return hookErr(err, args[0])
				}
				fmt.Fprintf(cmd.OutOrStdout(), "removed %s\n", args[0])
				return nil
			})
		},
	}
}

func (e *env) hooksTest() *cobra.Command {
	var ctxFile, phase string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "test NAME --context FILE.json [--phase pre|post] [--json]",
		Short: "Run a hook once against a sample context and print what it did",
		Long: "The context file is the object the script sees as `context` (see docs/hooks.md), e.g.\n" +
			`  {"requestType": "CallTool", "serverName": "everything", "toolName": "echo",` + "\n" +
			`   "arguments": {"message": "hi"}, "request": {"method": "tools/call", "params": {"name": "everything__echo"}}}` + "\n" +
			"The hook runs whether or not it is enabled; nothing is stored. Exit 0 whatever the hook decided.",
		Args: exactArgs(1, "hooks test NAME --context FILE.json [--phase pre|post] [--json]"),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			if ctxFile == "" {
				return usagef("--context is required: a JSON file with the sample context (- reads stdin)")
			}
			data, src, err := readInput(cmd, ctxFile, hookContextLimits())
			if err != nil {
				return err
			}
			if err := hookContextLimits().CheckJSON(data); err != nil {
				return fmt.Errorf("%s: %w", src, err)
			}
			var m map[string]any
			if err := json.Unmarshal(data, &m); err != nil || m == nil {
				if err == nil {
					err = errors.New("not a JSON object")
				}
				return fmt.Errorf("%s: %v", src, err)
			}
			if !cmd.Flags().Changed("phase") {
				if p, ok := m["phase"].(string); ok {
					phase = p
				}
			}
			if phase != hook.PhasePre && phase != hook.PhasePost {
				return usagef("bad --phase %q: want pre or post", phase)
			}
			call, err := hook.CallFromContext(m)
			if err != nil {
				return fmt.Errorf("%s: %s", src, strings.Replace(err.Error(), store.ErrInvalid.Error()+": ", "", 1))
			}
			return e.withHooks(func(svc *hook.Service) error {
				res, err := svc.Test(cmd.Context(), name, call, phase)
				if err != nil {
					return hookErr(err, name)
				}
				if asJSON {
					return writeJSON(cmd.OutOrStdout(), res)
				}
				w := cmd.OutOrStdout()
				for _, l := range res.Logs {
					who := "console." + l.Level
					if l.Router {
						who = "router " + l.Level
					}
					fmt.Fprintf(w, "[%s] %s\n", who, l.Message)
				}
				switch {
				case res.Block != nil:
					fmt.Fprintf(w, "result: blocked: %s\n", res.Block.Error())
				case res.Error != "":
					fmt.Fprintf(w, "result: continue (the script failed: %s)\n", res.Error)
				default:
					fmt.Fprintln(w, "result: continue")
				}
				fmt.Fprintf(w, "time: %.3f ms\ncontext:\n", res.DurationMs)
				return writeJSON(w, res.Context)
			})
		},
	}
	cmd.Flags().StringVar(&ctxFile, "context", "", "JSON file with the sample context; - reads stdin")
	cmd.Flags().StringVar(&phase, "phase", hook.PhasePre, "phase to run: pre or post (default: the file's \"phase\", else pre)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}
