package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcp-router/mcp-router/backend/chat"
	"github.com/mcp-router/mcp-router/backend/core"
)

// chatStartWait bounds how long `chat` waits for the servers to come up;
// one that is not up by then is skipped (seed 003: go on with the others).
const chatStartWait = 30 * time.Second

func (e *env) chatCommand() *cobra.Command {
	var provider, envProvider, model string
	var asJSON, yes bool
	cmd := &cobra.Command{
		Use:   `chat [--provider P | --env-provider openai|anthropic] [--model M] [--json] "QUESTION"`,
		Short: "Ask the model one question with the router's tools, in the terminal (the chat panel's loop)",
		Long: "Runs one turn of the chat panel's tool loop: the question and the router's tools go to the model,\n" +
			"each tool call runs through the router (hooks, policies and the request log apply; client \"chat\")\n" +
			"and is printed as it happens, and the answer streams to stdout. Tools that ask for approval are\n" +
			"asked about on the terminal (--yes allows them; without a terminal they are denied).\n" +
			"With no provider configured it uses OPENAI_API_KEY (and OPENAI_BASE_URL), else ANTHROPIC_API_KEY\n" +
			"(and ANTHROPIC_BASE_URL) from the environment and says so; --env-provider picks one of them.\n" +
			"Configured providers come first: mcp-router chat providers add NAME --kind openai|anthropic …",
		Example: "  mcp-router chat \"What is the weather in Tokyo tomorrow?\"\n" +
			"  mcp-router chat --provider ollama --model llama3.2 --json \"東京の天気は？\"\n" +
			"  OPENAI_API_KEY=sk-… mcp-router chat \"Which servers have tools?\"",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 || strings.TrimSpace(args[0]) == "" {
				return usagef("chat takes one question, in quotes")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.runCore(cmd.Context(), func(c *core.Core) error {
				wctx, cancel := context.WithTimeout(cmd.Context(), chatStartWait)
				c.WaitStarted(wctx)
				cancel()
				c.Gateway.Rebuild()
				return runChat(cmd.Context(), c, chatRun{provider: provider, envProvider: envProvider, model: model, question: args[0], json: asJSON, yes: yes,
					stdin: cmd.InOrStdin(), stdout: cmd.OutOrStdout(), stderr: cmd.ErrOrStderr()})
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&provider, "provider", "", "configured provider to use (default: the first one)")
	f.StringVar(&envProvider, "env-provider", "", "use the key from the environment: openai (OPENAI_API_KEY) or anthropic (ANTHROPIC_API_KEY), even with providers configured (default: the chatEnvProvider setting, only when none is configured)")
	f.StringVar(&model, "model", "", "model (default: the provider's default model)")
	f.BoolVar(&asJSON, "json", false, "print one JSON object (answer, tool calls, usage, notices) instead of streaming")
	f.BoolVar(&yes, "yes", false, "allow tool calls that ask for approval without asking")
	cmd.AddCommand(e.chatProvidersCommand())
	return cmd
}

type chatRun struct {
	provider, envProvider, model, question string
	json, yes                              bool
	stdin                                  io.Reader
	stdout, stderr                         io.Writer
}

// chatJSON is what --json prints.
type chatJSON struct {
	Answer    string        `json:"answer"`
	Usage     chat.Usage    `json:"usage"`
	ToolCalls []chat.Card   `json:"toolCalls"`
	Notices   []chat.Notice `json:"notices"`
	Rounds    int           `json:"rounds"`
}

func runChat(ctx context.Context, c *core.Core, r chatRun) error {
	in := bufio.NewReader(r.stdin)
	emit := func(ev chat.Event) {
		switch ev.Type {
		case chat.EventText:
			if !r.json {
				fmt.Fprint(r.stdout, ev.Text)
			}
		case chat.EventRound:
			if !r.json {
				fmt.Fprintln(r.stdout)
			}
		case chat.EventCard:
			printCard(r.stderr, *ev.Card)
		case chat.EventNotice:
			fmt.Fprintf(r.stderr, "note: %s\n", ev.Notice.Text)
		}
	}
	approve := func(_ context.Context, card chat.Card) (chat.Decision, error) {
		if r.yes {
			return chat.AllowOnce, nil
		}
		if f, ok := r.stdin.(*os.File); !ok || !isTerminal(f) {
			fmt.Fprintf(r.stderr, "  %s asks for approval; denied (no terminal to ask on; --yes allows it)\n", card.Name)
			return chat.Deny, nil
		}
		fmt.Fprintf(r.stderr, "  allow %s %s? [y]es once / [a]lways / [N]o: ", card.Name, card.Args)
		line, _ := in.ReadString('\n')
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "y", "yes":
			return chat.AllowOnce, nil
		case "a", "always":
			return chat.AllowAlways, nil
		}
		return chat.Deny, nil
	}
	out, err := c.Chat.AskWith(ctx, chat.AskOptions{Provider: r.provider, EnvProvider: r.envProvider, Model: r.model, Input: r.question}, emit, approve)
	if err != nil {
		if errors.Is(err, chat.ErrInvalid) || errors.Is(err, chat.ErrNoProvider) {
			return usageError{err}
		}
		return err
	}
	if r.json {
		enc := json.NewEncoder(r.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(chatJSON{Answer: out.Text, Usage: out.Usage, ToolCalls: out.Cards, Notices: out.Notices, Rounds: out.Rounds})
	}
	fmt.Fprintln(r.stdout)
	fmt.Fprintf(r.stderr, "(%d tool calls, %d input + %d output tokens)\n", out.ToolCalls, out.Usage.Input, out.Usage.Output)
	return nil
}

func printCard(w io.Writer, c chat.Card) {
	switch c.Status {
	case chat.CardRunning:
		auto := ""
		if c.AutoContext {
			auto = " (auto context)"
		}
		fmt.Fprintf(w, "→ %s %s%s\n", c.Name, clip(oneLineText(c.Args), 200), auto)
	case chat.CardDone:
		fmt.Fprintf(w, "← %s: %s (%.0f ms)\n", c.Name, clip(oneLineText(c.Result), 200), c.DurationMs)
	case chat.CardError:
		fmt.Fprintf(w, "← %s failed: %s (%.0f ms)\n", c.Name, clip(oneLineText(c.Result), 300), c.DurationMs)
	case chat.CardDenied:
		fmt.Fprintf(w, "← %s denied\n", c.Name)
	}
}

// isTerminal reports whether f is a character device (a terminal).
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// ---- chat providers ---------------------------------------------------------

func (e *env) chatProvidersCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "providers",
		Short: "Add, list and remove the chat's model providers",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	var kind, baseURL, model, tools, keyEnv string
	var keyStdin bool
	add := &cobra.Command{
		Use:   "add NAME --kind openai|anthropic [--base-url URL] [--model M] [--api-key-env VAR | --api-key-stdin]",
		Short: "Add or replace a provider (OpenAI, any OpenAI-compatible server, or Anthropic)",
		Example: "  mcp-router chat providers add openai --kind openai --model gpt-5.2 --api-key-env OPENAI_API_KEY\n" +
			"  mcp-router chat providers add ollama --kind openai --base-url http://127.0.0.1:11434/v1 --model llama3.2\n" +
			"  echo \"$KEY\" | mcp-router chat providers add claude --kind anthropic --model claude-sonnet-5 --api-key-stdin",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			in := chat.ProviderInput{Name: args[0], Kind: kind, BaseURL: baseURL, DefaultModel: model, Tools: tools}
			switch {
			case keyEnv != "" && keyStdin:
				return usagef("give --api-key-env or --api-key-stdin, not both")
			case keyEnv != "":
				v, ok := os.LookupEnv(keyEnv)
				if !ok || strings.TrimSpace(v) == "" {
					return usagef("--api-key-env %s: the variable is not set", keyEnv)
				}
				in.APIKey = &v
			case keyStdin:
				line, err := bufio.NewReader(cmd.InOrStdin()).ReadString('\n')
				if err != nil && line == "" {
					return usagef("--api-key-stdin: nothing on stdin")
				}
				in.APIKey = &line
			}
			return e.withChat(cmd.Context(), func(c *core.Core) error {
				v, err := c.Chat.SaveProvider(cmd.Context(), in)
				if err != nil {
					if errors.Is(err, chat.ErrInvalid) {
						return usageError{err}
					}
					return err
				}
				key := "no key"
				if v.HasKey {
					key = "key " + v.KeyMask + " in the " + c.ChatKeys.Backend()
				}
				fmt.Fprintf(cmd.OutOrStdout(), "saved provider %s (%s, %s)\n", v.Name, v.Kind, key)
				return nil
			})
		},
	}
	f := add.Flags()
	f.StringVar(&kind, "kind", "", "openai (also Ollama, LM Studio, vLLM, OpenRouter) or anthropic")
	f.StringVar(&baseURL, "base-url", "", "API base URL, e.g. http://127.0.0.1:11434/v1 for Ollama (default: the vendor's)")
	f.StringVar(&model, "model", "", "default model")
	f.StringVar(&tools, "tools", "auto", "auto, or off for a model without tool support")
	f.StringVar(&keyEnv, "api-key-env", "", "read the API key from this environment variable")
	f.BoolVar(&keyStdin, "api-key-stdin", false, "read the API key from the first line of stdin")
	_ = add.MarkFlagRequired("kind")

	var asJSON bool
	list := &cobra.Command{
		Use:   "list [--json]",
		Short: "List the providers (keys masked)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return e.withChat(cmd.Context(), func(c *core.Core) error {
				ps, err := c.Chat.Providers(cmd.Context())
				if err != nil {
					return err
				}
				if asJSON {
					if ps == nil {
						ps = []chat.ProviderView{}
					}
					return json.NewEncoder(cmd.OutOrStdout()).Encode(ps)
				}
				if len(ps) == 0 {
					fmt.Fprintln(cmd.OutOrStdout(), "no chat providers; "+chat.ConfigureHint)
					return nil
				}
				tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "NAME\tKIND\tBASE URL\tMODEL\tTOOLS\tKEY")
				for _, p := range ps {
					key := "-"
					if p.HasKey {
						key = p.KeyMask
					}
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", p.Name, p.Kind, dash(p.BaseURL), dash(p.DefaultModel), p.Tools, key)
				}
				return tw.Flush()
			})
		},
	}
	list.Flags().BoolVar(&asJSON, "json", false, "print JSON")

	remove := &cobra.Command{
		Use:   "remove NAME",
		Short: "Remove a provider and its key",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.withChat(cmd.Context(), func(c *core.Core) error {
				if err := c.Chat.DeleteProvider(cmd.Context(), args[0]); err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "removed provider %s\n", args[0])
				return nil
			})
		},
	}
	cmd.AddCommand(add, list, remove)
	return cmd
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// withChat opens the services without starting any server (provider
// commands only touch the database and the key store).
func (e *env) withChat(ctx context.Context, fn func(*core.Core) error) error {
	dir, err := e.resolveDataDir()
	if err != nil {
		return err
	}
	c, err := core.Open(dir, core.Options{Database: e.database})
	if err != nil {
		return err
	}
	defer c.Close()
	_ = ctx
	return fn(c)
}
