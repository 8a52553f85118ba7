package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/store"
)

// serversChat sets what a server tells the chat panel (seed 003).
func (e *env) serversChat() *cobra.Command {
	var system, response, autoTool, approve string
	var approveTools []string
	cmd := &cobra.Command{
		Use:   "chat NAME [--system-instruction T] [--response-instruction T] [--auto-context-tool TOOL] [--approve always|none] [--approve-tool TOOL]",
		Short: "Set a server's chat instructions, auto-context tool and approvals (the chat panel)",
		Long: "What the built-in chat tells the model about this server (docs/chat.md):\n" +
			"  --system-instruction    always added to the system prompt while the server's tools are offered\n" +
			"  --response-instruction  added once, after one of its tools ran (or with its auto-context result)\n" +
			"  --auto-context-tool     one of its tools, called with the user's message before the first model call\n" +
			"  --approve always        every call of its tools waits for the user's approval in the chat\n" +
			"  --approve-tool TOOL     this tool's calls wait for approval (repeatable; replaces the list)\n" +
			"Flags not given keep their stored value; \"\" clears one.",
		Example: "  mcp-router servers chat weather --system-instruction '天気の質問には weather のツールを使うこと' \\\n" +
			"      --response-instruction 'Say when the forecast was issued.' --auto-context-tool list_areas\n" +
			"  mcp-router servers chat fs --approve-tool write_file --approve-tool delete_file",
		Args: exactArgs(1, "servers chat NAME [--system-instruction T] [--response-instruction T] [--auto-context-tool TOOL] [--approve always|none] [--approve-tool TOOL]"),
		RunE: func(cmd *cobra.Command, args []string) error {
			changed := cmd.Flags().Changed
			given := false
			for _, n := range []string{"system-instruction", "response-instruction", "auto-context-tool", "approve", "approve-tool"} {
				given = given || changed(n)
			}
			if !given {
				return usagef("servers chat %s: say what to change, e.g. --system-instruction TEXT", args[0])
			}
			return e.withStore(func(st *store.Store) error {
				r, err := getServer(cmd, st, args[0])
				if err != nil {
					return err
				}
				c := r.Chat
				if changed("system-instruction") {
					c.SystemInstruction = system
				}
				if changed("response-instruction") {
					c.ResponseInstruction = response
				}
				if changed("auto-context-tool") {
					c.AutoContextTool = autoTool
				}
				if changed("approve") {
					switch approve {
					case spec.ApproveAlways:
						c.Approve = spec.ApproveAlways
					case "none", "":
						c.Approve = ""
					default:
						return usagef("--approve %q: want always or none", approve)
					}
				}
				if changed("approve-tool") {
					c.ApproveTools = nil
					for _, t := range approveTools {
						if t = strings.TrimSpace(t); t != "" {
							c.ApproveTools = append(c.ApproveTools, t)
						}
					}
				}
				def := r.Server
				def.Chat = c
				updated, err := st.Servers().Update(cmd.Context(), def)
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "chat settings of %s:\n", updated.Name)
				printChat(cmd.OutOrStdout(), updated.Chat)
				return nil
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&system, "system-instruction", "", "always added to the chat's system prompt")
	f.StringVar(&response, "response-instruction", "", "added once after one of the server's tools ran")
	f.StringVar(&autoTool, "auto-context-tool", "", "tool called with the user's message before the first model call")
	f.StringVar(&approve, "approve", "", "always: every tool call waits for approval; none: only --approve-tool ones")
	f.StringArrayVar(&approveTools, "approve-tool", nil, "a tool whose calls wait for approval (repeatable)")
	return cmd
}

func printChat(w io.Writer, c spec.Chat) {
	show := func(label, v string) {
		if v == "" {
			v = "-"
		}
		fmt.Fprintf(w, "  %-22s %s\n", label+":", v)
	}
	show("system instruction", c.SystemInstruction)
	show("response instruction", c.ResponseInstruction)
	show("auto-context tool", c.AutoContextTool)
	approval := strings.Join(c.ApproveTools, ", ")
	if c.Approve == spec.ApproveAlways {
		approval = "every tool"
	}
	show("approval", approval)
}
