package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/sirupsen/logrus"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/mcp-router/mcp-router/backend/secrets"
	"github.com/mcp-router/mcp-router/backend/spec"
)

// Secret env and header values (docs/cli.md, "Secret values"): the flags
// put them in the OS keychain (else the 0600 secrets file), the database
// gets their placeholders.

// serverSecrets is where the data dir's secret values are kept.
func (e *env) serverSecrets() (*secrets.ServerValues, error) {
	dir, err := e.resolveDataDir()
	if err != nil {
		return nil, err
	}
	return secrets.NewServerValues(dir, logrus.StandardLogger()), nil
}

// addSecrets puts the `--secret-env K=V` (or `--secret-header`) pairs of
// `servers add` into m and names their keys secret; a key also given as a
// plain pair is refused.
func addSecrets(flag string, m map[string]string, names []string, pairs []string) (map[string]string, []string, error) {
	add, err := parsePairs("--secret-"+flag, pairs)
	if err != nil {
		return nil, nil, err
	}
	for k, v := range add {
		if _, ok := m[k]; ok {
			return nil, nil, usagef("--%s and --secret-%s both name %q: give it once", flag, flag, k)
		}
		if v == "" {
			return nil, nil, usagef("--secret-%s %s=: the value is empty", flag, k)
		}
		if m == nil {
			m = map[string]string{}
		}
		m[k] = v
		names = append(names, k)
	}
	return m, names, nil
}

// hintSecrets suggests --secret-env (--secret-header) for plain entries
// whose names look like secrets (API_KEY, GITHUB_TOKEN, Authorization).
func hintSecrets(w io.Writer, def spec.Server) {
	for _, kind := range []spec.SecretKind{spec.KindEnv, spec.KindHeader} {
		var keys []string
		for k, v := range def.Entries(kind) {
			if spec.LooksSecret(k) && !slices.Contains(secretList(def, kind), k) && !spec.LooksLikePlaceholder(v) {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(w, "note: %s %s looks like a secret and is stored in the database as given; keep it in the keychain instead with `mcp-router servers update %s --secret-%s %s`\n",
				kind, k, def.Name, kind, k)
		}
	}
}

func secretList(def spec.Server, kind spec.SecretKind) []string {
	if kind == spec.KindHeader {
		return def.SecretHeaders
	}
	return def.SecretEnv
}

func setSecretList(def *spec.Server, kind spec.SecretKind, names []string) {
	if kind == spec.KindHeader {
		def.SecretHeaders = names
	} else {
		def.SecretEnv = names
	}
}

// secretEdits are the secret flags of `servers update` for one kind.
type secretEdits struct {
	set   []string // --secret-KIND K=V (a new value) or K (make the plain entry secret)
	plain []string // --plain-KIND K (make the secret entry plain, with its value)
}

// checkPlainEdits refuses --KIND K=V on a secret entry unless --plain-KIND
// K says so too: a plain value for an entry that is secret is a mistake
// more often than a wish (it would put the value in the database).
func checkPlainEdits(def spec.Server, kind spec.SecretKind, set []string, e secretEdits) error {
	for _, p := range set {
		k, _, _ := strings.Cut(p, "=")
		if slices.Contains(secretList(def, kind), k) && !slices.Contains(e.plain, k) {
			return usagef("%s %s of %s is secret: set its value with --secret-%s %s=…, or make it plain first with --plain-%s %s",
				kind, k, def.Name, kind, k, kind, k)
		}
	}
	return nil
}

// applySecretEdits applies e to def (after the plain --KIND and
// --unset-KIND edits): the values stay in def for
// secrets.ServerValues.Save to move into the keychain.
func applySecretEdits(def *spec.Server, kind spec.SecretKind, e secretEdits, plainSet, unset []string) error {
	names := slices.Clone(secretList(*def, kind))
	// An unset secret entry is no longer secret either.
	names = slices.DeleteFunc(names, func(k string) bool { _, ok := def.Entries(kind)[k]; return !ok })
	touched := map[string]string{}
	for _, p := range plainSet {
		k, _, _ := strings.Cut(p, "=")
		touched[k] = "--" + string(kind)
	}
	for _, k := range unset {
		touched[k] = "--unset-" + string(kind)
	}
	for _, k := range e.plain {
		if other, ok := touched[k]; ok && other != "--"+string(kind) {
			return usagef("--plain-%s and %s both name %q", kind, other, k)
		}
		if !slices.Contains(names, k) {
			return usagef("--plain-%s %s: %s is not a secret %s of %s", kind, k, k, kind, def.Name)
		}
		names = slices.DeleteFunc(names, func(n string) bool { return n == k })
		touched[k] = "--plain-" + string(kind)
	}
	for _, p := range e.set {
		k, v, hasValue := strings.Cut(p, "=")
		if strings.TrimSpace(k) == "" {
			return usagef("--secret-%s %q: want KEY=VALUE, or KEY to make a plain %s secret", kind, p, kind)
		}
		if other, ok := touched[k]; ok {
			return usagef("--secret-%s and %s both name %q", kind, other, k)
		}
		touched[k] = "--secret-" + string(kind)
		if hasValue {
			if v == "" {
				return usagef("--secret-%s %s=: the value is empty", kind, k)
			}
			def.SetEntry(kind, k, v)
		} else if _, ok := def.Entries(kind)[k]; !ok {
			return usagef("--secret-%s %s: %s has no %s %s to make secret; give its value: --secret-%s %s=…", kind, k, def.Name, kind, k, kind, k)
		} else if slices.Contains(names, k) {
			return usagef("--secret-%s %s: it is secret already; give a new value with --secret-%s %s=…", kind, k, kind, k)
		}
		if !slices.Contains(names, k) {
			names = append(names, k)
		}
	}
	setSecretList(def, kind, names)
	return nil
}

// importSecretValues puts `servers import --secret-env SERVER:KEY=VALUE`
// (and --secret-header) values into the parsed definitions, making the
// entries secret.
func importSecretValues(defs []spec.Server, kind spec.SecretKind, flags []string) error {
	for _, f := range flags {
		server, pair, ok := strings.Cut(f, ":")
		k, v, hasValue := strings.Cut(pair, "=")
		if !ok || !hasValue || server == "" || k == "" || v == "" {
			return usagef("--secret-%s %q: want SERVER:KEY=VALUE", kind, f)
		}
		i := slices.IndexFunc(defs, func(d spec.Server) bool { return d.Name == server })
		if i < 0 {
			return usagef("--secret-%s %s: the file has no server %q", kind, f[:len(server)+1+len(k)], server)
		}
		defs[i].SetEntry(kind, k, v)
		if !slices.Contains(secretList(defs[i], kind), k) {
			setSecretList(&defs[i], kind, append(secretList(defs[i], kind), k))
		}
	}
	return nil
}

// askSecrets asks for each value on the terminal, without echo; false when
// there is no terminal to ask on.
func (e *env) askSecrets(w io.Writer, defs []spec.Server, refs []spec.SecretRef) (bool, error) {
	read := e.opts.ReadSecret
	if read == nil {
		f, ok := e.opts.Stdin.(*os.File)
		if !ok || !term.IsTerminal(int(f.Fd())) {
			return false, nil
		}
		read = func(prompt string) (string, error) {
			fmt.Fprint(w, prompt)
			b, err := term.ReadPassword(int(f.Fd()))
			fmt.Fprintln(w)
			return string(b), err
		}
	}
	for _, r := range refs {
		v, err := read(fmt.Sprintf("value of %s (not shown): ", r))
		if err != nil {
			return true, fmt.Errorf("read the value of %s: %w", r, err)
		}
		if v == "" {
			return true, fmt.Errorf("%s: no value given", r)
		}
		i := slices.IndexFunc(defs, func(d spec.Server) bool { return d.Name == r.Server })
		if i < 0 {
			return true, fmt.Errorf("%s: no such server in the file", r)
		}
		defs[i].SetEntry(r.Kind, r.Name, v)
	}
	return true, nil
}

// neededSecretsError says which values an import needs and how to give
// them, when there is no terminal to ask on.
func neededSecretsError(nv *secrets.NoValueError) error {
	var flags []string
	for _, r := range nv.Refs {
		flags = append(flags, fmt.Sprintf("--secret-%s %s:%s=…", r.Kind, r.Server, r.Name))
	}
	return fmt.Errorf("the file's secret entries need their values (%d; nothing was imported): give them with %s, or run the import in a terminal to be asked",
		len(nv.Refs), strings.Join(flags, " "))
}

// asNoValue unwraps a *secrets.NoValueError.
func asNoValue(err error) (*secrets.NoValueError, bool) {
	var nv *secrets.NoValueError
	return nv, errors.As(err, &nv)
}

// secretsWhere names where sec keeps values, for messages.
func secretsWhere(sec *secrets.ServerValues) string {
	if sec.Backend() == secrets.InKeychain {
		return "the OS keychain"
	}
	return "the secrets file " + sec.File()
}

// forgetSecrets removes the secret values of a removed server: they must
// not outlive it nor serve a new server of the same name.
func (e *env) forgetSecrets(cmd *cobra.Command, def spec.Server) {
	if len(def.SecretEnv)+len(def.SecretHeaders) == 0 {
		return
	}
	sec, err := e.serverSecrets()
	if err != nil {
		fmt.Fprintf(e.opts.Stderr, "warning: the secret values of %s were not removed: %v\n", def.Name, err)
		return
	}
	if err := sec.Forget(def); err != nil {
		fmt.Fprintf(e.opts.Stderr, "warning: the secret values of %s were not all removed: %v (remove them from %s by hand)\n", def.Name, err, secretsWhere(sec))
		return
	}
	fmt.Fprintf(cmd.OutOrStdout(), "removed its secret values\n")
}
