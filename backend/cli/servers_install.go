package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/mcp-router/mcp-router/backend/bundle"
	"github.com/mcp-router/mcp-router/backend/settings"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/store"
)

// `servers install FILE.mcpb` (docs/bundles.md): a bundle becomes a stdio
// server; `servers remove` deletes its files with it.

func (e *env) serversInstall() *cobra.Command {
	var configs []string
	var name string
	cmd := &cobra.Command{
		Use:   "install FILE.mcpb",
		Short: "Install an MCP Bundle (.mcpb) as a stdio server",
		Long: "install unpacks an MCP Bundle into the data dir (bundles/<name>/<version>), checks its manifest and its\n" +
			"signature (a signature that does not verify refuses the bundle), and adds its server. The bundle's\n" +
			"user_config values are given with --config KEY=VALUE (repeat a key for an entry that takes several);\n" +
			"required ones not given are asked for on the terminal (sensitive ones without echo, and kept in the OS\n" +
			"keychain, not the database). `servers remove NAME` removes the bundle's files and values too.",
		Example: "  mcp-router servers install weather.mcpb --config api_key=sk-… --config units=metric",
		Args:    exactArgs(1, "servers install FILE.mcpb"),
		RunE: func(cmd *cobra.Command, args []string) error {
			answers, err := parseAnswers(configs)
			if err != nil {
				return err
			}
			return e.withStore(func(st *store.Store) error {
				dir, err := e.resolveDataDir()
				if err != nil {
					return err
				}
				lim := bundle.Limits{MaxBytes: settings.New(st).BundleMaxBytes(cmd.Context())}
				b, err := bundle.ReadFile(args[0], lim)
				if err != nil {
					return err
				}
				m := b.Manifest
				out := cmd.OutOrStdout()
				fmt.Fprintf(out, "bundle %s %s by %s: %s\n", m.Name, m.Version, m.Author.Name, signatureLine(b.Signature))
				if err := e.askUserConfig(cmd.ErrOrStderr(), m, answers); err != nil {
					return err
				}
				sec, err := e.serverSecrets()
				if err != nil {
					return err
				}
				in := &bundle.Installer{DataDir: dir, Secrets: sec, Limits: lim}
				if name == "" {
					name = bundle.ServerName(m.Name)
				}
				if err := st.Servers().Free(cmd.Context(), name); err != nil {
					return fmt.Errorf("%w (give another with --name)", err)
				}
				var created store.Server
				def, err := in.Install(b, bundle.InstallOptions{Name: name, Answers: answers}, func(d spec.Server) (err error) {
					created, err = st.Servers().Create(cmd.Context(), d)
					return err
				})
				if err != nil {
					return err
				}
				fmt.Fprintf(out, "installed %s as server %s (%s)\n", m.Name, created.Name, bundle.Dir(dir, m.Name, m.Version))
				if n := len(def.SecretEnv); n > 0 {
					fmt.Fprintf(out, "%d sensitive value(s) kept in %s, not in the database\n", n, secretsWhere(sec))
				}
				if len(m.Tools) > 0 {
					names := make([]string, len(m.Tools))
					for i, t := range m.Tools {
						names[i] = t.Name
					}
					fmt.Fprintf(out, "tools: %s\n", strings.Join(names, ", "))
				}
				return nil
			})
		},
	}
	cmd.Flags().StringArrayVar(&configs, "config", nil, "a user_config value KEY=VALUE (repeatable; repeat a key for several values)")
	cmd.Flags().StringVar(&name, "name", "", "the server's name (default: from the bundle's name)")
	return cmd
}

// signatureLine says what a bundle's signature is, for people.
func signatureLine(s bundle.Signature) string {
	switch s.Status {
	case bundle.Signed:
		return fmt.Sprintf("signed by %s (issuer %s)", s.Publisher, s.Issuer)
	case bundle.SelfSigned:
		return fmt.Sprintf("self-signed by %s (certificate SHA-256 %s)", s.Publisher, s.Fingerprint)
	case bundle.Untrusted:
		return fmt.Sprintf("signed by %s with a certificate no system root vouches for (issuer %s, SHA-256 %s)", s.Publisher, s.Issuer, s.Fingerprint)
	}
	return "unsigned"
}

func parseAnswers(pairs []string) (bundle.Answers, error) {
	out := bundle.Answers{}
	for _, p := range pairs {
		k, v, ok := strings.Cut(p, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, usagef("--config %q: want KEY=VALUE", p)
		}
		out[k] = append(out[k], v)
	}
	return out, nil
}

// askUserConfig asks on the terminal for the required user_config values
// not given (sensitive ones without echo) and fills answers; without a
// terminal it names what is missing and how to give it.
func (e *env) askUserConfig(w io.Writer, m bundle.Manifest, answers bundle.Answers) error {
	missing := bundle.Missing(m, answers)
	if len(missing) == 0 {
		return nil
	}
	readSecret, readLine := e.opts.ReadSecret, e.opts.ReadLine
	if readSecret == nil || readLine == nil {
		f, ok := e.opts.Stdin.(*os.File)
		if !ok || !term.IsTerminal(int(f.Fd())) {
			return &bundle.MissingError{Keys: missing}
		}
		if readSecret == nil {
			readSecret = func(prompt string) (string, error) {
				fmt.Fprint(w, prompt)
				b, err := term.ReadPassword(int(f.Fd()))
				fmt.Fprintln(w)
				return string(b), err
			}
		}
		if readLine == nil {
			r := bufio.NewReader(io.LimitReader(f, bundle.MaxConfigValueBytes*int64(len(missing)+1)))
			readLine = func(prompt string) (string, error) {
				fmt.Fprint(w, prompt)
				s, err := r.ReadString('\n')
				if err != nil && !errors.Is(err, io.EOF) {
					return "", err
				}
				return strings.TrimRight(s, "\r\n"), nil
			}
		}
	}
	for _, k := range missing {
		o := m.UserConfig[k]
		prompt := fmt.Sprintf("%s (%s, %s): ", o.Title, k, o.Description)
		read := readLine
		if o.Sensitive {
			prompt = fmt.Sprintf("%s (%s, %s; not shown): ", o.Title, k, o.Description)
			read = readSecret
		}
		v, err := read(prompt)
		if err != nil {
			return fmt.Errorf("read user_config %s: %w", k, err)
		}
		if v == "" {
			return fmt.Errorf("user_config %s: no value given, and the bundle needs one", k)
		}
		answers[k] = []string{v}
	}
	return nil
}

// forgetBundle removes the files of the bundle def was installed from.
func (e *env) forgetBundle(cmd *cobra.Command, def spec.Server) {
	if def.Bundle == nil {
		return
	}
	dir, err := e.resolveDataDir()
	if err == nil {
		err = (&bundle.Installer{DataDir: dir}).Remove(def)
	}
	if err != nil {
		fmt.Fprintf(e.opts.Stderr, "warning: the files of bundle %s were not removed: %v\n", def.Bundle.Name, err)
		return
	}
	fmt.Fprintf(cmd.OutOrStdout(), "removed the files of bundle %s %s\n", def.Bundle.Name, def.Bundle.Version)
}

// bundleLines are `servers show`'s lines about the bundle a server came
// from.
func bundleLines(w io.Writer, b spec.Bundle) {
	sig := b.Signature
	switch {
	case b.SignedBy != "" && b.Fingerprint != "":
		sig = fmt.Sprintf("%s by %s, certificate SHA-256 %s", b.Signature, b.SignedBy, b.Fingerprint)
	case b.SignedBy != "":
		sig = fmt.Sprintf("%s by %s", b.Signature, b.SignedBy)
	}
	fmt.Fprintf(w, "Bundle:\t%s %s by %s (%s)\n", b.Name, b.Version, b.Author, sig)
	for _, t := range b.Tools {
		fmt.Fprintf(w, "Bundle tools:\t%s\t%s\n", t.Name, t.Description)
	}
}
