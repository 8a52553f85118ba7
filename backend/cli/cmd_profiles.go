package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/mcp-router/mcp-router/backend/filelimit"
	"github.com/mcp-router/mcp-router/backend/profile"
	"github.com/mcp-router/mcp-router/backend/store"
)

// maxProfilesFile bounds a file `profiles import` reads.
const maxProfilesFile = 8 << 20

func (e *env) profilesCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "profiles",
		Short: "Named sets of servers and tools, each served at its own endpoint (/mcp/NAME)",
		Long: "A profile is a named set of servers, with per-tool selections and a discovery mode, served at\n" +
			"/mcp/NAME (also `mcp-router stdio --profile NAME` and `mcp-router connect --profile NAME`). Plain /mcp\n" +
			"is the default profile: everything the token reaches. A token bound to a profile\n" +
			"(`mcp-router tokens create NAME --profile P`) reaches that profile only.\n\n" +
			"Modes: all lists every tool of the profile; gated shows each server's activate tool until the client activates it;\n" +
			"search lists only search_tools, call_tool and add_tools,\n" +
			"through which the client finds and calls the profile's tools. See docs/profiles.md.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(e.profilesList(), e.profilesShow(), e.profilesAdd(), e.profilesUpdate(), e.profilesRemove(),
		e.profilesExport(), e.profilesImport())
	return cmd
}

// withProfiles runs fn with the profile service of an open store.
func (e *env) withProfiles(fn func(*store.Store, *profile.Service) error) error {
	return e.withStore(func(st *store.Store) error { return fn(st, profile.New(st)) })
}

func noProfile(name string) error {
	return fmt.Errorf("no profile named %q (see `mcp-router profiles list`)", name)
}

// profileJSON is a profile as list --json, show --json and export write it
// and import reads it.
type profileJSON struct {
	Name        string              `json:"name"`
	Description string              `json:"description,omitempty"`
	Mode        string              `json:"mode"`
	Servers     []string            `json:"servers"`
	Tools       map[string][]string `json:"tools,omitempty"`
}

func toJSON(p store.Profile) profileJSON {
	return profileJSON{Name: p.Name, Description: p.Description, Mode: p.Mode, Servers: nonNil(p.Servers), Tools: p.Tools}
}

func (p profileJSON) toStore() store.Profile {
	return store.Profile{Name: p.Name, Description: p.Description, Mode: p.Mode, Servers: p.Servers, Tools: p.Tools}
}

func (e *env) profilesList() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list [--json]",
		Short: "List the profiles",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return e.withProfiles(func(_ *store.Store, svc *profile.Service) error {
				rows, err := svc.List(cmd.Context())
				if err != nil {
					return err
				}
				if asJSON {
					out := make([]profileJSON, 0, len(rows))
					for _, r := range rows {
						out = append(out, toJSON(r))
					}
					return writeJSON(cmd.OutOrStdout(), out)
				}
				if len(rows) == 0 {
					fmt.Fprintln(cmd.OutOrStdout(), "no profiles (add one: mcp-router profiles add NAME --servers a,b)")
					return nil
				}
				tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "NAME\tMODE\tSERVERS\tTOOLS\tENDPOINT")
				for _, r := range rows {
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t/mcp/%s\n", r.Name, r.Mode, strings.Join(r.Servers, ","), toolsLabel(r), r.Name)
				}
				return tw.Flush()
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// toolsLabel says which tools a profile selects: all, or how many of which servers.
func toolsLabel(p store.Profile) string {
	var parts []string
	for _, s := range p.Servers {
		if n := len(p.Tools[s]); n > 0 {
			parts = append(parts, fmt.Sprintf("%s: %d", s, n))
		}
	}
	if len(parts) == 0 {
		return "all"
	}
	return strings.Join(parts, ", ") + " (others: all)"
}

func (e *env) profilesShow() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show NAME [--json]",
		Short: "Show a profile: its servers, selected tools, mode and endpoint",
		Args:  exactArgs(1, "profiles show NAME [--json]"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.withProfiles(func(_ *store.Store, svc *profile.Service) error {
				p, err := svc.Get(cmd.Context(), args[0])
				if errors.Is(err, store.ErrNotFound) {
					return noProfile(args[0])
				}
				if err != nil {
					return err
				}
				if asJSON {
					return writeJSON(cmd.OutOrStdout(), toJSON(p))
				}
				w := cmd.OutOrStdout()
				fmt.Fprintf(w, "name:        %s\n", p.Name)
				if p.Description != "" {
					fmt.Fprintf(w, "description: %s\n", p.Description)
				}
				fmt.Fprintf(w, "mode:        %s\nendpoint:    /mcp/%s\nservers:\n", p.Mode, p.Name)
				for _, s := range p.Servers {
					if tools := p.Tools[s]; len(tools) > 0 {
						fmt.Fprintf(w, "  %s: %s\n", s, strings.Join(tools, ", "))
					} else {
						fmt.Fprintf(w, "  %s: all tools\n", s)
					}
				}
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// parseToolsFlag reads --tools server/tool,server/tool into server →
// tools; every server named must be one of servers.
func parseToolsFlag(v string, servers []string) (map[string][]string, error) {
	out := map[string][]string{}
	for _, entry := range strings.Split(v, ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		s, tool, ok := strings.Cut(entry, "/")
		if !ok || s == "" || tool == "" {
			return nil, usagef("--tools: %q: want SERVER/TOOL (the server's own tool name), comma-separated", entry)
		}
		if !slices.Contains(servers, s) {
			return nil, usagef("--tools: %q: server %q is not in --servers", entry, s)
		}
		if !slices.Contains(out[s], tool) {
			out[s] = append(out[s], tool)
		}
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

type profileFlags struct {
	servers, tools, mode, description string
	allTools                          bool
}

func (f *profileFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.servers, "servers", "", "comma-separated servers of the profile")
	cmd.Flags().StringVar(&f.tools, "tools", "", "comma-separated SERVER/TOOL: only these tools of those servers (others: all their tools)")
	cmd.Flags().StringVar(&f.mode, "mode", "", "discovery mode: all (every tool listed), gated (each server locked behind its activate tool) or search (search_tools, call_tool, add_tools)")
	cmd.Flags().StringVar(&f.description, "description", "", "what the profile is for")
}

// apply sets on p what the flags given say.
func (f *profileFlags) apply(cmd *cobra.Command, p *store.Profile) error {
	if cmd.Flags().Changed("servers") {
		servers, err := parseServerList(cmd, f.servers)
		if err != nil {
			return err
		}
		p.Servers = servers
		// Selections of servers no longer in the profile go with them.
		for s := range p.Tools {
			if !slices.Contains(servers, s) {
				delete(p.Tools, s)
			}
		}
	}
	if cmd.Flags().Changed("tools") {
		tools, err := parseToolsFlag(f.tools, p.Servers)
		if err != nil {
			return err
		}
		p.Tools = tools
	}
	if f.allTools {
		p.Tools = nil
	}
	if cmd.Flags().Changed("mode") {
		p.Mode = f.mode
	}
	if cmd.Flags().Changed("description") {
		p.Description = f.description
	}
	return nil
}

func (e *env) profilesAdd() *cobra.Command {
	var f profileFlags
	const usage = "profiles add NAME --servers a,b [--tools a/t1,b/t2] [--mode all|gated|search] [--description D]"
	cmd := &cobra.Command{
		Use:   "add NAME --servers a,b [--tools a/t1,b/t2] [--mode all|gated|search] [--description D]",
		Short: "Add a profile; a running router serves it at /mcp/NAME within a second",
		Example: "  mcp-router profiles add writing --servers notes,fs\n" +
			"  mcp-router profiles add research --servers web,papers --tools web/search,web/fetch --mode search",
		Args: exactArgs(1, usage),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := profile.CheckName(args[0]); err != nil {
				return usageError{err}
			}
			if !cmd.Flags().Changed("servers") {
				return usagef("profiles add %s: give --servers a,b", args[0])
			}
			p := store.Profile{Name: args[0], Mode: profile.ModeAll}
			if err := f.apply(cmd, &p); err != nil {
				return err
			}
			return e.withProfiles(func(_ *store.Store, svc *profile.Service) error {
				out, err := svc.Create(cmd.Context(), p)
				if errors.Is(err, store.ErrDuplicate) {
					return fmt.Errorf("a profile named %q already exists (see `mcp-router profiles list`)", p.Name)
				}
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "added profile %s (%s): /mcp/%s\n", out.Name, out.Mode, out.Name)
				return nil
			})
		},
	}
	f.add(cmd)
	return cmd
}

func (e *env) profilesUpdate() *cobra.Command {
	var f profileFlags
	const usage = "profiles update NAME [--servers a,b] [--tools a/t1 | --all-tools] [--mode all|gated|search] [--description D]"
	cmd := &cobra.Command{
		Use:   "update NAME [--servers a,b] [--tools a/t1 | --all-tools] [--mode all|gated|search] [--description D]",
		Short: "Change a profile; a running router applies it within a second",
		Args:  exactArgs(1, usage),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			changed := false
			for _, fl := range []string{"servers", "tools", "all-tools", "mode", "description"} {
				changed = changed || cmd.Flags().Changed(fl)
			}
			if !changed {
				return usagef("profiles update %s: nothing to change: give --servers, --tools, --all-tools, --mode or --description", name)
			}
			if f.allTools && cmd.Flags().Changed("tools") {
				return usagef("profiles update %s: give --tools or --all-tools, not both", name)
			}
			return e.withProfiles(func(_ *store.Store, svc *profile.Service) error {
				p, err := svc.Get(cmd.Context(), name)
				if errors.Is(err, store.ErrNotFound) {
					return noProfile(name)
				}
				if err != nil {
					return err
				}
				if err := f.apply(cmd, &p); err != nil {
					return err
				}
				out, err := svc.Update(cmd.Context(), p)
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "updated profile %s (%s)\n", out.Name, out.Mode)
				return nil
			})
		},
	}
	f.add(cmd)
	cmd.Flags().BoolVar(&f.allTools, "all-tools", false, "drop the tool selections: every tool of the profile's servers")
	return cmd
}

func (e *env) profilesRemove() *cobra.Command {
	return &cobra.Command{
		Use:   "remove NAME",
		Short: "Remove a profile; tokens bound to it reach nothing until a profile of that name exists again",
		Args:  exactArgs(1, "profiles remove NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.withProfiles(func(_ *store.Store, svc *profile.Service) error {
				err := svc.Remove(cmd.Context(), args[0])
				if errors.Is(err, store.ErrNotFound) {
					return noProfile(args[0])
				}
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "removed profile %s\n", args[0])
				return nil
			})
		},
	}
}

// profilesFile is what export writes and import reads.
type profilesFile struct {
	Profiles []profileJSON `json:"profiles"`
}

func (e *env) profilesExport() *cobra.Command {
	return &cobra.Command{
		Use:   "export [FILE]",
		Short: `Write every profile as JSON ({"profiles": [...]}) to FILE, or stdout`,
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.withProfiles(func(_ *store.Store, svc *profile.Service) error {
				rows, err := svc.List(cmd.Context())
				if err != nil {
					return err
				}
				out := profilesFile{Profiles: make([]profileJSON, 0, len(rows))}
				for _, r := range rows {
					out.Profiles = append(out.Profiles, toJSON(r))
				}
				if len(args) == 0 {
					return writeJSON(cmd.OutOrStdout(), out)
				}
				f, err := os.OpenFile(args[0], os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
				if err != nil {
					return err
				}
				if err := writeJSON(f, out); err != nil {
					_ = f.Close()
					return err
				}
				if err := f.Close(); err != nil {
					return err
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "wrote %d profiles to %s\n", len(out.Profiles), args[0])
				return nil
			})
		},
	}
}

func (e *env) profilesImport() *cobra.Command {
	var replace bool
	cmd := &cobra.Command{
		Use:   "import FILE [--replace]",
		Short: "Add the profiles of a file `profiles export` wrote (- for stdin); --replace updates those that exist",
		Args:  exactArgs(1, "profiles import FILE [--replace]"),
		RunE: func(cmd *cobra.Command, args []string) error {
			lim := filelimit.Limits{What: "profiles file", MaxBytes: maxProfilesFile}.WithDefaults()
			data, _, err := readInput(cmd, args[0], lim)
			if err != nil {
				return err
			}
			if err := lim.CheckJSON(data); err != nil {
				return fmt.Errorf("%s: %w", args[0], err)
			}
			var in profilesFile
			dec := json.NewDecoder(bytes.NewReader(data))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&in); err != nil {
				return fmt.Errorf("%s: not a profiles file ({\"profiles\": [...]}): %w", args[0], err)
			}
			return e.withProfiles(func(_ *store.Store, svc *profile.Service) error {
				existing, err := svc.List(cmd.Context())
				if err != nil {
					return err
				}
				have := map[string]bool{}
				for _, p := range existing {
					have[p.Name] = true
				}
				// Check all before writing any: a bad entry leaves nothing half-imported.
				names := map[string]bool{}
				for _, p := range in.Profiles {
					if names[p.Name] {
						return fmt.Errorf("%s: profile %q is in the file twice", args[0], p.Name)
					}
					names[p.Name] = true
					if have[p.Name] && !replace {
						return fmt.Errorf("%s: a profile named %q already exists: remove it, or import with --replace", args[0], p.Name)
					}
				}
				sort.Slice(in.Profiles, func(i, j int) bool { return in.Profiles[i].Name < in.Profiles[j].Name })
				for _, p := range in.Profiles {
					sp := p.toStore()
					if sp.Mode == "" {
						sp.Mode = profile.ModeAll
					}
					if have[p.Name] {
						_, err = svc.Update(cmd.Context(), sp)
					} else {
						_, err = svc.Create(cmd.Context(), sp)
					}
					if err != nil {
						return fmt.Errorf("%s: %w", args[0], err)
					}
				}
				fmt.Fprintf(cmd.OutOrStdout(), "imported %d profiles\n", len(in.Profiles))
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&replace, "replace", false, "update profiles that already exist")
	return cmd
}
