package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcp-router/mcp-router/backend/filelimit"
	"github.com/mcp-router/mcp-router/backend/policy"
	"github.com/mcp-router/mcp-router/backend/settings"
	"github.com/mcp-router/mcp-router/backend/store"
)

func (e *env) policyCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "policy",
		Short: "Check policy.yaml and explain what it does to a call (docs/policy.md)",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(e.policyCheck(), e.policyExplain())
	return cmd
}

// policyPath is FILE, or policy.yaml in the data dir.
func (e *env) policyPath(args []string) (string, bool, error) {
	if len(args) == 1 {
		return args[0], true, nil
	}
	dir, err := e.resolveDataDir()
	if err != nil {
		return "", false, err
	}
	return filepath.Join(dir, policy.FileName), false, nil
}

// loadPolicy reads and parses the file ("-": stdin); a missing default
// file is no policy (nil, nil). Problems are printed to w, one
// "FILE:LINE:COL: message" a line. The file is read and parsed within
// policy.FileLimits (a FIFO or a device is refused, not waited on), and
// reading and parsing stop when the command's context ends: a signal ends
// the command at once.
func loadPolicy(cmd *cobra.Command, path string, explicit bool, w io.Writer) (*policy.Policy, error) {
	ctx, lim := cmd.Context(), policy.FileLimits()
	var src []byte
	var err error
	if path == "-" {
		src, err = readStdin(ctx, cmd.InOrStdin(), lim)
	} else {
		src, _, err = lim.ReadFile(path)
	}
	if errors.Is(err, fs.ErrNotExist) && !explicit {
		return nil, nil
	}
	var le *filelimit.Error
	if errors.As(err, &le) {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err != nil {
		return nil, err
	}
	p, err := policy.ParseContext(ctx, src, lim)
	if ctx.Err() != nil {
		return nil, fmt.Errorf("%s: the check was stopped (%w)", path, context.Cause(ctx))
	}
	var fe *policy.FileError
	if errors.As(err, &fe) {
		fe.Path = path
		fmt.Fprintln(w, fe.Error())
		return nil, fmt.Errorf("%s does not load (%d problem%s)", path, len(fe.Problems), plural(len(fe.Problems)))
	}
	return p, err
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func (e *env) policyCheck() *cobra.Command {
	return &cobra.Command{
		Use:   "check [FILE]",
		Short: "Check a policy file (default: policy.yaml in the data dir; - reads stdin); problems are printed as FILE:LINE:COLUMN: message",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path, explicit, err := e.policyPath(args)
			if err != nil {
				return err
			}
			p, err := loadPolicy(cmd, path, explicit, cmd.OutOrStdout())
			if err != nil {
				return err
			}
			if p == nil {
				fmt.Fprintf(cmd.OutOrStdout(), "%s does not exist: the router runs without a policy\n", path)
				return nil
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: ok, %d rule%s\n", path, p.Rules(), plural(p.Rules()))
			return nil
		},
	}
}

func (e *env) policyExplain() *cobra.Command {
	var client, subject, server, toolName, args, file, permission string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "explain --client NAME --tool TOOL [--server S] [--permission read|write] [--args JSON]",
		Short: "Print which rules match a tool call and what the policy decides",
		Long: "Print which rules of the policy match a call of TOOL by the client NAME (a token's name,\n" +
			"\"local\" in stdio mode, \"chat\" for the chat panel) and the decision. TOOL is the router's name\n" +
			"(<server><separator><tool>), an ability of the policy (its backend server and tool, permission\n" +
			"and argument mapping are shown, and --args is checked and mapped as a call would be), or, with\n" +
			"--server, the server's own tool name. --permission read|write explains the call as one of an\n" +
			"ability with that permission (match.permissions). Rate limits are shown, not spent.",
		Example: "  mcp-router policy explain --client claude --tool github__delete_repo\n" +
			"  mcp-router policy explain --client claude --tool read_note --args '{\"title\":\"todo\"}'\n" +
			"  mcp-router policy explain --client claude --tool notes__delete_note --permission write\n" +
			"  mcp-router policy explain --client ci --subject build-bot --server fs --tool write_file --args '{\"path\":\"/tmp/x\"}'",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if client == "" || toolName == "" {
				return usagef("policy explain needs --client and --tool")
			}
			if permission != "" && permission != policy.PermissionRead && permission != policy.PermissionWrite {
				return usagef("--permission %q: it is read or write", permission)
			}
			if args != "" {
				var obj map[string]any
				if err := json.Unmarshal([]byte(args), &obj); err != nil {
					return usagef("--args is not a JSON object: %v", err)
				}
			}
			var pathArgs []string
			if file != "" {
				pathArgs = []string{file}
			}
			path, explicit, err := e.policyPath(pathArgs)
			if err != nil {
				return err
			}
			p, err := loadPolicy(cmd, path, explicit, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			q := policy.Query{Client: client, Subject: subject, Server: server, Tool: toolName}
			var ab *policy.Ability
			if server == "" && p != nil {
				ab = p.Ability(toolName)
			}
			switch {
			case ab != nil:
				if permission != "" && permission != ab.Permission {
					return usagef("--permission %s: ability %q has permission %s", permission, ab.Name, ab.Permission)
				}
				q.Server, q.Tool, q.Target, q.Permission = ab.Server, ab.Tool, ab.Name, ab.Permission
			case server != "":
				sep, err := e.separator(cmd)
				if err != nil {
					return err
				}
				q.Target = server + sep + toolName
			default:
				sep, err := e.separator(cmd)
				if err != nil {
					return err
				}
				s, t, ok := strings.Cut(toolName, sep)
				if !ok {
					return usagef("--tool %q has no server part (separator %q) and is no ability of the policy: give --server, the router's name or an ability's name", toolName, sep)
				}
				q.Server, q.Tool, q.Target = s, t, toolName
			}
			if ab == nil {
				q.Permission = permission
			}
			var ex policy.Explanation
			if p == nil {
				ex = policy.Explanation{Decision: "allow", Why: "there is no policy file", Listed: true, Matches: []policy.RuleMatch{}}
			} else {
				ex = p.Explain(q)
			}
			// An ability's arguments are checked and mapped before any rule.
			var abOut *abilityExplained
			if ab != nil {
				abOut = &abilityExplained{Name: ab.Name, Permission: ab.Permission, Server: ab.Server, Tool: ab.Tool, Mapping: ab.Mapping()}
				if abOut.Mapping == nil {
					abOut.Mapping = []string{}
				}
				if args != "" {
					mapped, err := ab.Prepare(json.RawMessage(args))
					if err != nil {
						abOut.ArgumentsError = err.Error()
						ex.Decision, ex.Rule = "invalid_arguments", ""
						ex.Why = "the arguments do not fit the ability's input_schema: the call is refused (-32602) before any rule, and nothing is sent"
					} else {
						abOut.Arguments = mapped
					}
				}
			}
			out := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return enc.Encode(struct {
					Policy  string            `json:"policy"`
					Query   policy.Query      `json:"query"`
					Ability *abilityExplained `json:"ability,omitempty"`
					policy.Explanation
				}{path, q, abOut, ex})
			}
			if p == nil {
				fmt.Fprintf(out, "policy: %s does not exist\n", path)
			} else {
				fmt.Fprintf(out, "policy: %s (%d rule%s)\n", path, p.Rules(), plural(p.Rules()))
			}
			if abOut != nil {
				fmt.Fprintf(out, "ability: %s (%s), routed to server %q, tool %q\n", abOut.Name, abOut.Permission, abOut.Server, abOut.Tool)
				if len(abOut.Mapping) == 0 {
					fmt.Fprintln(out, "  arguments: none (the tool is called with {})")
				} else {
					fmt.Fprintf(out, "  arguments: %s\n", strings.Join(abOut.Mapping, "; "))
				}
			}
			who := fmt.Sprintf("%q", client)
			if subject != "" {
				who += fmt.Sprintf(" (subject %q)", subject)
			}
			perm := ""
			if q.Permission != "" {
				perm = ", permission " + q.Permission
			}
			fmt.Fprintf(out, "call: client %s, server %q, tool %q (%s)%s\n", who, q.Server, q.Tool, q.Target, perm)
			if len(ex.Matches) == 0 {
				fmt.Fprintln(out, "matching rules: none")
			} else {
				fmt.Fprintln(out, "matching rules:")
				for _, m := range ex.Matches {
					fmt.Fprintf(out, "  %s: %s\n", m.Rule, strings.Join(m.Effects, "; "))
				}
			}
			decision := ex.Decision
			if ex.Rule != "" {
				decision += fmt.Sprintf(" (policy %q)", ex.Rule)
			}
			fmt.Fprintf(out, "decision: %s: %s\n", decision, ex.Why)
			listed := "yes"
			if !ex.Listed {
				listed = "no"
			}
			fmt.Fprintf(out, "in tools/list: %s\n", listed)
			switch {
			case abOut != nil && abOut.ArgumentsError != "":
				fmt.Fprintf(out, "arguments: refused: %s\n", abOut.ArgumentsError)
			case abOut != nil && abOut.Arguments != nil:
				fmt.Fprintf(out, "arguments: sent to %s as %s\n", abOut.Tool, abOut.Arguments)
			case args != "":
				fmt.Fprintln(out, "arguments: valid JSON; no rule looks at arguments (an audit rule records them)")
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&client, "client", "", "the client: a token's name")
	f.StringVar(&subject, "subject", "", "the subject of the client's JWT, if it presents one")
	f.StringVar(&server, "server", "", "the server (then --tool is the server's own tool name)")
	f.StringVar(&toolName, "tool", "", "the tool: the router's name, an ability's name, or the server's own name with --server")
	f.StringVar(&permission, "permission", "", "read or write: explain the call as one of an ability with that permission")
	f.StringVar(&args, "args", "", "the call's arguments as a JSON object")
	f.StringVar(&file, "file", "", "a policy file to explain instead of the data dir's")
	f.BoolVar(&asJSON, "json", false, "print the explanation as JSON")
	return cmd
}

// abilityExplained is what explain says of an ability: its backend, its
// permission and argument mapping, and the arguments --args maps to (or
// why they are refused).
type abilityExplained struct {
	Name           string          `json:"name"`
	Permission     string          `json:"permission"`
	Server         string          `json:"server"`
	Tool           string          `json:"tool"`
	Mapping        []string        `json:"mapping"`
	Arguments      json.RawMessage `json:"arguments,omitempty"`
	ArgumentsError string          `json:"argumentsError,omitempty"`
}

// separator is the tool name separator setting.
func (e *env) separator(cmd *cobra.Command) (string, error) {
	sep := ""
	err := e.withStore(func(st *store.Store) error {
		sep = settings.New(st).Separator(cmd.Context())
		return nil
	})
	return sep, err
}
