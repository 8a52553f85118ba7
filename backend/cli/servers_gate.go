package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/store"
)

type gateFlags struct {
	on, off, hide, show    bool
	message, initTool      string
	initArgs, overviewTool string
	initArgFiles           []string
}

func (e *env) serversGate() *cobra.Command {
	var f gateFlags
	cmd := &cobra.Command{
		Use:   "gate NAME [--on|--off] [flags]",
		Short: "Lock a server's tools per client until the client calls <server>__activate",
		Long: "Turns the activate gate of a server on or off and sets what activation does.\n" +
			"Flags not given keep their stored value; --init-tool \"\" removes the init step with its arguments.\n" +
			"A file given with --init-arg-file is stored by its absolute path and read at every activation.",
		Example: "  mcp-router servers gate penpot --on --message 'Load the /penpot skill, then call penpot__activate' \\\n" +
			"      --init-tool execute_code --init-arg-file code=./penpot-init.js --overview-tool high_level_overview\n" +
			"  mcp-router servers gate penpot --hide-tools\n" +
			"  mcp-router servers gate penpot --off",
		Args: exactArgs(1, "servers gate NAME [--on|--off] [--message TEXT] [--init-tool TOOL] [--init-args JSON] [--init-arg-file KEY=FILE] [--overview-tool TOOL] [--hide-tools|--show-tools]"),
		RunE: func(cmd *cobra.Command, args []string) error {
			changed := cmd.Flags().Changed
			given := false
			for _, name := range []string{"on", "off", "message", "init-tool", "init-args", "init-arg-file", "overview-tool", "hide-tools", "show-tools"} {
				given = given || changed(name)
			}
			if !given {
				return usagef("servers gate %s: say what to change, e.g. --on or --off", args[0])
			}
			return e.withStore(func(st *store.Store) error {
				r, err := getServer(cmd, st, args[0])
				if err != nil {
					return err
				}
				gate, err := applyGateFlags(r.Gate, f, changed)
				if err != nil {
					return err
				}
				def := r.Server
				def.Gate = gate
				updated, err := st.Servers().Update(cmd.Context(), def)
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "gate of %s is %s\n", updated.Name, onOff(updated.Gate.Enabled))
				printGate(cmd.OutOrStdout(), updated.Gate)
				return nil
			})
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&f.on, "on", false, "turn the gate on")
	fl.BoolVar(&f.off, "off", false, "turn the gate off (the settings are kept)")
	fl.StringVar(&f.message, "message", "", "what an AI sees before activation (the activate tool's description)")
	fl.StringVar(&f.initTool, "init-tool", "", "a tool of the server run on every activation")
	fl.StringVar(&f.initArgs, "init-args", "", "the init tool's arguments, a JSON object")
	fl.StringArrayVar(&f.initArgFiles, "init-arg-file", nil, "KEY=FILE: the init argument KEY is FILE's content, read at each activation (repeatable; replaces the stored set)")
	fl.StringVar(&f.overviewTool, "overview-tool", "", "the server's overview tool, pointed to by the activate result")
	fl.BoolVar(&f.hide, "hide-tools", false, "hide the server's tools from tools/list until activation")
	fl.BoolVar(&f.show, "show-tools", false, "list the server's tools before activation (calls are refused)")
	return cmd
}

// applyGateFlags returns g changed by the flags the user gave.
func applyGateFlags(g spec.Gate, f gateFlags, changed func(string) bool) (spec.Gate, error) {
	if f.on && f.off {
		return g, usagef("give --on or --off, not both")
	}
	if f.hide && f.show {
		return g, usagef("give --hide-tools or --show-tools, not both")
	}
	switch {
	case f.on:
		g.Enabled = true
	case f.off:
		g.Enabled = false
	}
	if changed("message") {
		g.Message = strings.TrimSpace(f.message)
	}
	if changed("init-tool") {
		g.InitTool = strings.TrimSpace(f.initTool)
		if g.InitTool == "" {
			g.InitArgs, g.InitArgFiles = nil, nil
		}
	}
	if changed("init-args") {
		if strings.TrimSpace(f.initArgs) == "" {
			g.InitArgs = nil
		} else {
			var obj map[string]any
			if err := json.Unmarshal([]byte(f.initArgs), &obj); err != nil || obj == nil {
				return g, usagef("--init-args %q: want a JSON object, e.g. '{\"mode\":\"init\"}'", f.initArgs)
			}
			g.InitArgs = json.RawMessage(f.initArgs)
		}
	}
	if changed("init-arg-file") {
		files := map[string]string{}
		for _, p := range f.initArgFiles {
			k, path, ok := strings.Cut(p, "=")
			if !ok || strings.TrimSpace(k) == "" || path == "" {
				return g, usagef("--init-arg-file %q: want KEY=FILE", p)
			}
			abs, err := filepath.Abs(path)
			if err != nil {
				return g, err
			}
			info, err := os.Stat(abs)
			if err != nil {
				return g, fmt.Errorf("--init-arg-file %s: %s: no such file", k, path)
			}
			if info.IsDir() {
				return g, fmt.Errorf("--init-arg-file %s: %s is a directory", k, path)
			}
			files[k] = abs
		}
		g.InitArgFiles = files
	}
	if changed("overview-tool") {
		g.OverviewTool = strings.TrimSpace(f.overviewTool)
	}
	switch {
	case f.hide:
		g.HideTools = true
	case f.show:
		g.HideTools = false
	}
	return g, nil
}

// printGate writes the gate settings, one per line.
func printGate(w io.Writer, g spec.Gate) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	gateLines(tw, g)
	_ = tw.Flush()
}

// gateLines writes the gate settings as tab-separated lines.
func gateLines(tw io.Writer, g spec.Gate) {
	fmt.Fprintf(tw, "Gate:\t%s\n", onOff(g.Enabled))
	if g.Message != "" {
		fmt.Fprintf(tw, "Gate message:\t%s\n", g.Message)
	}
	if g.InitTool != "" {
		fmt.Fprintf(tw, "Init tool:\t%s\n", g.InitTool)
	}
	if len(g.InitArgs) > 0 {
		fmt.Fprintf(tw, "Init args:\t%s\n", g.InitArgs)
	}
	keys := make([]string, 0, len(g.InitArgFiles))
	for k := range g.InitArgFiles {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(tw, "Init arg file:\t%s=%s\n", k, g.InitArgFiles[k])
	}
	if g.OverviewTool != "" {
		fmt.Fprintf(tw, "Overview tool:\t%s\n", g.OverviewTool)
	}
	tools := "listed, refused until activation"
	if g.HideTools {
		tools = "hidden until activation"
	}
	fmt.Fprintf(tw, "Tools while locked:\t%s\n", tools)
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}
