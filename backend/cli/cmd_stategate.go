package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/mcp-router/mcp-router/backend/core"
	"github.com/mcp-router/mcp-router/backend/settings"
	"github.com/mcp-router/mcp-router/backend/stategate"
	"github.com/mcp-router/mcp-router/backend/store"
)

// The state_gate built-in server's processes and runs (docs/state-gate.md).
func (e *env) stategateCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "stategate",
		Short: "Process definitions and runs of the state_gate built-in server",
		Long: "state_gate holds agents to a process: definitions in YAML (processes/*.yaml in the data dir),\n" +
			"runs kept in the database. Enable the server with `mcp-router servers add state_gate --builtin`.",
		Args: cobra.NoArgs,
	}
	process := &cobra.Command{Use: "process", Short: "Add, check, list, show and remove process definitions", Args: cobra.NoArgs}
	process.AddCommand(e.processAdd(), e.processCheck(), e.processList(), e.processShow(), e.processRemove())
	run := &cobra.Command{Use: "run", Short: "Create, list and show runs", Args: cobra.NoArgs}
	run.AddCommand(e.runCreate(), e.runList(), e.runShow())
	cmd.AddCommand(process, run)
	return cmd
}

// withStateGate runs fn with the engine over the data dir and its store.
func (e *env) withStateGate(fn func(*stategate.Service) error) error {
	dir, err := e.resolveDataDir()
	if err != nil {
		return err
	}
	return e.withStore(func(st *store.Store) error {
		// The CLI holds runs to the router's caps (its settings).
		return fn(stategate.New(stategate.Options{DataDir: dir, Store: st, Limits: core.StateGateLimits(settings.New(st))}))
	})
}

// readDefinition reads a definition file ("-" for stdin) within
// stategate.DefinitionLimits: a FIFO or a device is refused, not waited
// on, and reading stdin stops on a signal.
func (e *env) readDefinition(cmd *cobra.Command, path string) ([]byte, string, error) {
	b, name, err := readInput(cmd, path, stategate.DefinitionLimits())
	if path != "-" {
		name = filepath.Base(path)
	}
	return b, name, err
}

// definitionError prints every problem of a definition, one per line, and
// returns the one-line error.
func definitionError(w io.Writer, name string, err error) error {
	var de *stategate.DefinitionError
	if errors.As(err, &de) {
		de.File = name
		if len(de.Problems) > 1 {
			for _, p := range de.Problems {
				fmt.Fprintf(w, "%s:%s\n", name, p)
			}
		}
	}
	return err
}

func (e *env) processAdd() *cobra.Command {
	var replace bool
	cmd := &cobra.Command{
		Use:     "add FILE",
		Short:   "Check a definition and store it in processes/ of the data dir",
		Example: "  mcp-router stategate process add review.yaml\n  mcp-router stategate process add --replace review.yaml",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			src, name, err := e.readDefinition(cmd, args[0])
			if err != nil {
				return err
			}
			return e.withStateGate(func(s *stategate.Service) error {
				p, err := s.AddProcess(src, replace)
				if err != nil {
					return definitionError(cmd.ErrOrStderr(), name, err)
				}
				fmt.Fprintf(cmd.OutOrStdout(), "added process %s %s (%d states, %d events)\n", p.ID, p.Version, len(p.States), len(p.Events))
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&replace, "replace", false, "replace the definition of a process that exists (its runs keep their version)")
	return cmd
}

func (e *env) processCheck() *cobra.Command {
	return &cobra.Command{
		Use:   "check FILE",
		Short: "Check a definition without storing it",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			src, name, err := e.readDefinition(cmd, args[0])
			if err != nil {
				return err
			}
			// Stops at once on a signal (the context ends).
			p, err := stategate.ParseContext(cmd.Context(), src, stategate.CompileOptions{})
			if ctx := cmd.Context(); ctx != nil && ctx.Err() != nil {
				return fmt.Errorf("%s: the check was stopped (%w)", name, context.Cause(ctx))
			}
			if err != nil {
				return definitionError(cmd.ErrOrStderr(), name, err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: process %s %s is valid\n", name, p.ID, p.Version)
			return nil
		},
	}
}

// processJSON is a definition as `process list --json` prints it.
type processJSON struct {
	File    string                     `json:"file"`
	ID      string                     `json:"id,omitempty"`
	Version string                     `json:"version,omitempty"`
	Name    string                     `json:"name,omitempty"`
	States  int                        `json:"states,omitempty"`
	Events  int                        `json:"events,omitempty"`
	Error   *stategate.DefinitionError `json:"error,omitempty"`
	Problem string                     `json:"problem,omitempty"`
}

func (e *env) processList() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the process definitions (and the files that have problems)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return e.withStateGate(func(s *stategate.Service) error {
				files, err := s.Processes()
				if err != nil {
					return err
				}
				var out []processJSON
				for _, f := range files {
					pj := processJSON{File: f.File}
					if f.Process != nil {
						pj.ID, pj.Version, pj.Name = f.Process.ID, f.Process.Version, f.Process.Name
						pj.States, pj.Events = len(f.Process.States), len(f.Process.Events)
					} else if !errors.As(f.Err, &pj.Error) {
						pj.Problem = f.Err.Error()
					}
					out = append(out, pj)
				}
				if asJSON {
					if out == nil {
						out = []processJSON{}
					}
					return writeJSON(cmd.OutOrStdout(), out)
				}
				if len(out) == 0 {
					fmt.Fprintf(cmd.OutOrStdout(), "no processes (add one with `mcp-router stategate process add FILE`)\n")
					return nil
				}
				w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
				fmt.Fprintln(w, "ID\tVERSION\tNAME\tFILE")
				for _, p := range out {
					if p.ID == "" {
						problem := p.Problem
						if p.Error != nil {
							problem = p.Error.Error()
						}
						fmt.Fprintf(w, "-\t-\t(invalid: %s)\t%s\n", problem, p.File)
						continue
					}
					fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", p.ID, p.Version, p.Name, p.File)
				}
				return w.Flush()
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func (e *env) processShow() *cobra.Command {
	return &cobra.Command{
		Use:   "show ID",
		Short: "Print a process definition as stored",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.withStateGate(func(s *stategate.Service) error {
				p, _, err := s.Process(args[0])
				if err != nil {
					return err
				}
				_, err = cmd.OutOrStdout().Write(p.Source)
				return err
			})
		},
	}
}

func (e *env) processRemove() *cobra.Command {
	return &cobra.Command{
		Use:   "remove ID",
		Short: "Remove a process definition (its runs keep the version they started with)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.withStateGate(func(s *stategate.Service) error {
				if err := s.RemoveProcess(args[0]); err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "removed process %s\n", args[0])
				return nil
			})
		},
	}
}

func (e *env) runCreate() *cobra.Command {
	var contextJSON, workspace string
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "create PROCESS",
		Short:   "Start a run of a process",
		Example: `  mcp-router stategate run create code-review --context '{"repo":"api"}'`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if contextJSON != "" && !json.Valid([]byte(contextJSON)) {
				return usagef("--context must be a JSON object, e.g. '{\"repo\":\"api\"}'")
			}
			return e.withStateGate(func(s *stategate.Service) error {
				run, err := s.CreateRun(cmd.Context(), stategate.Actor{Name: "cli"}, args[0], json.RawMessage(contextJSON), workspace)
				if err != nil {
					return err
				}
				if asJSON {
					return writeJSON(cmd.OutOrStdout(), run)
				}
				fmt.Fprintf(cmd.OutOrStdout(), "created %s (process %s %s, state %s, workspace %s)\n",
					run.RunID, run.ProcessID, run.ProcessVersion, run.CurrentState, run.Workspace)
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&contextJSON, "context", "", "the run's context: a JSON object guards may read")
	cmd.Flags().StringVar(&workspace, "workspace", "", "directory of the run's files (inside the process's workspace_roots)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func (e *env) runList() *cobra.Command {
	var process string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List runs, most recently updated first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return e.withStateGate(func(s *stategate.Service) error {
				runs, err := s.Runs(cmd.Context(), process, 0)
				if err != nil {
					return err
				}
				if asJSON {
					return writeJSON(cmd.OutOrStdout(), runs)
				}
				if len(runs) == 0 {
					fmt.Fprintln(cmd.OutOrStdout(), "no runs")
					return nil
				}
				w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
				fmt.Fprintln(w, "RUN\tPROCESS\tVERSION\tSTATE\tREVISION\tUPDATED")
				for _, r := range runs {
					fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%d\t%s\n", r.RunID, r.ProcessID, r.ProcessVersion, r.CurrentState, r.Revision, r.UpdatedAt)
				}
				if err := w.Flush(); err != nil {
					return err
				}
				for _, r := range runs {
					if r.Error != "" {
						fmt.Fprintf(cmd.OutOrStdout(), "%s is errored: %s\n", r.RunID, r.Error)
					}
				}
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&process, "process", "", "only runs of this process")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func (e *env) runShow() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show RUN",
		Short: "Show a run: state, pending guards, artifacts and history",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.withStateGate(func(s *stategate.Service) error {
				d, err := s.Detail(cmd.Context(), stategate.Actor{Name: "cli"}, args[0])
				if err != nil {
					return err
				}
				if asJSON {
					return writeJSON(cmd.OutOrStdout(), d)
				}
				out := cmd.OutOrStdout()
				fmt.Fprintf(out, "run %s\nprocess %s %s\nstate %s (revision %d)\nworkspace %s\n", d.Run.RunID, d.Run.ProcessID,
					d.Run.ProcessVersion, d.Run.CurrentState, d.Run.Revision, d.Run.Workspace)
				if d.Run.Error != "" {
					fmt.Fprintf(out, "errored: %s\n", d.Run.Error)
				}
				for _, g := range d.State.MissingGuards {
					fmt.Fprintf(out, "pending guard %s: %s\n", g.GuardName, g.CurrentStatus)
				}
				for _, a := range d.State.RequiredArtifacts {
					fmt.Fprintf(out, "required artifact %s: %s\n", a.Type, a.Status)
				}
				for _, a := range d.Artifacts {
					fmt.Fprintf(out, "artifact %s %s (%d bytes, sha256 %s)\n", a.Type, a.Path, a.Size, a.SHA256)
				}
				w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
				fmt.Fprintln(w, "SEQ\tEVENT\tFROM\tTO\tACTOR\tTIME")
				for _, h := range d.History {
					fmt.Fprintf(w, "%d\t%s\t%s\t%s\t%s\t%s\n", h.Seq, h.EventName, h.FromState, h.ToState, h.Actor, h.Time)
				}
				return w.Flush()
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
