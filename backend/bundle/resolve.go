package bundle

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/mcp-router/mcp-router/backend/spec"
)

// Caps on what a user gives for a bundle's user_config (docs/limits.md,
// "Bundles"): the values reach a command line and an environment.
const (
	MaxConfigValueBytes = 64 << 10 // one value
	MaxConfigValues     = 256      // values of one `multiple` entry
)

// Answers are the user's values for a bundle's user_config, by key; an
// entry with `multiple` may have several.
type Answers map[string][]string

// MissingError lists the required user_config entries with no value given
// and no default.
type MissingError struct{ Keys []string }

func (e *MissingError) Error() string {
	return fmt.Sprintf("%v: user_config needs a value for %s (give --config KEY=VALUE)", ErrInvalid, strings.Join(e.Keys, ", "))
}

func (e *MissingError) Unwrap() error { return ErrInvalid }

// SystemDirs are the values of ${HOME}, ${DESKTOP}, ${DOCUMENTS} and
// ${DOWNLOADS} in a manifest.
type SystemDirs map[string]string

// UserDirs are SystemDirs for the current user.
func UserDirs() SystemDirs {
	home, _ := os.UserHomeDir()
	return SystemDirs{
		"HOME": home, "DESKTOP": filepath.Join(home, "Desktop"),
		"DOCUMENTS": filepath.Join(home, "Documents"), "DOWNLOADS": filepath.Join(home, "Downloads"),
	}
}

var varRe = regexp.MustCompile(`\$\{([^}]+)\}`)

// Values are a bundle's user_config values after defaults, by key.
type Values map[string][]string

// Missing are the required user_config keys of m that answers and the
// defaults leave empty.
func Missing(m Manifest, answers Answers) []string {
	var out []string
	for _, k := range m.UserConfigKeys() {
		o := m.UserConfig[k]
		if !o.Required {
			continue
		}
		if vals := answers[k]; len(vals) > 0 && !slices.Contains(vals, "") {
			continue
		}
		if len(Defaults(o, nil)) > 0 {
			continue
		}
		out = append(out, k)
	}
	return out
}

// Defaults are o's default values as strings, ${HOME} and the like filled
// in from dirs (nil: left as written).
func Defaults(o UserOption, dirs SystemDirs) []string {
	var raw []any
	switch d := o.Default.(type) {
	case nil:
		return nil
	case []any:
		raw = d
	default:
		raw = []any{d}
	}
	out := make([]string, 0, len(raw))
	for _, v := range raw {
		var s string
		switch x := v.(type) {
		case string:
			s = x
		case bool:
			s = strconv.FormatBool(x)
		case float64:
			s = strconv.FormatFloat(x, 'f', -1, 64)
		default:
			s = fmt.Sprint(x)
		}
		if dirs != nil {
			s = varRe.ReplaceAllStringFunc(s, func(t string) string {
				if v, ok := dirs[t[2:len(t)-1]]; ok {
					return v
				}
				return t
			})
		}
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// CheckAnswers fills defaults into answers and checks every value against
// its user_config entry's type: the values the server gets.
func CheckAnswers(m Manifest, answers Answers, dirs SystemDirs) (Values, error) {
	for k := range answers {
		if _, ok := m.UserConfig[k]; !ok {
			return nil, invalid("user_config has no entry %q (it has: %s)", k, strings.Join(m.UserConfigKeys(), ", "))
		}
	}
	if miss := Missing(m, answers); len(miss) > 0 {
		return nil, &MissingError{Keys: miss}
	}
	vals := Values{}
	for _, k := range m.UserConfigKeys() {
		o := m.UserConfig[k]
		v := answers[k]
		if len(v) == 0 {
			v = Defaults(o, dirs)
		}
		if len(v) > 1 && !o.Multiple {
			return nil, invalid("user_config %s takes one value, got %d", k, len(v))
		}
		if len(v) > MaxConfigValues {
			return nil, invalid("user_config %s: %d values, over the cap of %d (MaxConfigValues)", k, len(v), MaxConfigValues)
		}
		for _, s := range v {
			if err := checkValue(k, o, s); err != nil {
				return nil, err
			}
		}
		vals[k] = v
	}
	return vals, nil
}

func checkValue(key string, o UserOption, s string) error {
	bad := func(format string, args ...any) error {
		return invalid("user_config %s: %s", key, fmt.Sprintf(format, args...))
	}
	if len(s) > MaxConfigValueBytes {
		return bad("the value is %d bytes, over the cap of %d (MaxConfigValueBytes)", len(s), MaxConfigValueBytes)
	}
	if strings.ContainsRune(s, 0) {
		return bad("the value has a NUL byte")
	}
	switch o.Type {
	case "number":
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return bad("%q is not a number", s)
		}
		if o.Min != nil && f < *o.Min {
			return bad("%v is below the minimum %v", f, *o.Min)
		}
		if o.Max != nil && f > *o.Max {
			return bad("%v is above the maximum %v", f, *o.Max)
		}
	case "boolean":
		if s != "true" && s != "false" {
			return bad("%q: want true or false", s)
		}
	case "directory", "file":
		if !filepath.IsAbs(s) {
			return bad("%q: want an absolute path", s)
		}
		st, err := os.Stat(s)
		if err != nil {
			return bad("%v", err)
		}
		if o.Type == "directory" && !st.IsDir() {
			return bad("%s is not a directory", s)
		}
		if o.Type == "file" && !st.Mode().IsRegular() {
			return bad("%s is not a regular file", s)
		}
	}
	return nil
}

// Resolve turns m's mcp_config into a stdio server named name, run from
// dir (the unpacked bundle) with vals: ${__dirname}, ${user_config.KEY},
// ${HOME} and the like substituted, this OS's platform_overrides applied.
// An env entry that takes a sensitive value is a secret entry (its value
// goes to the keychain when the server is saved); a sensitive value in the
// args is refused, since args are stored in the database.
func Resolve(m Manifest, name, dir string, vals Values, dirs SystemDirs) (spec.Server, error) {
	if c := m.Compatibility; c != nil && len(c.Platforms) > 0 && !slices.Contains(c.Platforms, runtime.GOOS) {
		return spec.Server{}, invalid("the bundle runs on %s, not on %s (compatibility.platforms)", strings.Join(c.Platforms, ", "), runtime.GOOS)
	}
	cfg := m.Server.MCPConfig
	if o, ok := cfg.PlatformOverrides[runtime.GOOS]; ok {
		if o.Command != "" {
			cfg.Command = o.Command
		}
		if o.Args != nil {
			cfg.Args = o.Args
		}
		if o.Env != nil {
			cfg.Env = o.Env
		}
	}
	vars := map[string]string{"__dirname": dir, "pathSeparator": string(os.PathSeparator), "/": string(os.PathSeparator)}
	for k, v := range dirs {
		vars[k] = v
	}
	sensitive := map[string]bool{}
	for k, v := range vals {
		vars["user_config."+k] = strings.Join(v, string(os.PathListSeparator))
		if m.UserConfig[k].Sensitive && len(v) > 0 {
			sensitive[k] = true
		}
	}
	usesSensitive := func(s string) bool {
		for _, mt := range varRe.FindAllStringSubmatch(s, -1) {
			if k, ok := strings.CutPrefix(mt[1], "user_config."); ok && sensitive[k] {
				return true
			}
		}
		return false
	}
	subst := func(s string) string {
		return varRe.ReplaceAllStringFunc(s, func(t string) string {
			if v, ok := vars[t[2:len(t)-1]]; ok {
				return v
			}
			return t
		})
	}
	def := spec.Server{Name: name, Transport: spec.Stdio, Cwd: dir, Enabled: true}
	def.Command = subst(cfg.Command)
	if usesSensitive(cfg.Command) {
		return spec.Server{}, invalid("server.mcp_config.command uses a sensitive user_config value; it would be stored in the database")
	}
	for _, a := range cfg.Args {
		if usesSensitive(a) {
			return spec.Server{}, invalid("server.mcp_config.args %q uses a sensitive user_config value; the router keeps secrets only in env entries (args are stored in the database)", a)
		}
		// An arg that is exactly one user_config variable takes one arg
		// per value (none when the entry is empty), as Claude Desktop does.
		if mt := varRe.FindStringSubmatch(a); mt != nil && mt[0] == a && strings.HasPrefix(mt[1], "user_config.") {
			if v, ok := vals[strings.TrimPrefix(mt[1], "user_config.")]; ok {
				def.Args = append(def.Args, v...)
				continue
			}
		}
		def.Args = append(def.Args, subst(a))
	}
	for k, v := range cfg.Env {
		if def.Env == nil {
			def.Env = map[string]string{}
		}
		def.Env[k] = subst(v)
		if usesSensitive(v) {
			def.SecretEnv = append(def.SecretEnv, k)
		}
	}
	slices.Sort(def.SecretEnv)
	def.Bundle = &spec.Bundle{Name: m.Name, Version: m.Version, Author: m.Author.Name}
	for _, t := range m.Tools {
		def.Bundle.Tools = append(def.Bundle.Tools, spec.BundleTool{Name: t.Name, Description: t.Description})
	}
	def.Normalize()
	if err := def.Validate(); err != nil {
		return spec.Server{}, err
	}
	return def, nil
}
