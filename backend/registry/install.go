package registry

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/mcp-router/mcp-router/backend/spec"
)

// Target picks what of an entry to install.
type Target struct {
	// Kind is "package" or "remote"; "" picks the first package the router
	// can run, else the first remote.
	Kind  string `json:"kind"`
	Index int    `json:"index"` // 1-based; 0 with a Kind: the first of that kind
}

func (t Target) String() string { return fmt.Sprintf("%s %d", t.Kind, t.Index) }

// FieldKind says where a value goes.
type FieldKind string

// Field kinds.
const (
	FieldArg    FieldKind = "arg"    // a runtime or package argument, or a variable of a value
	FieldEnv    FieldKind = "env"    // an environment variable of the package
	FieldHeader FieldKind = "header" // a header sent to the remote
)

// Field is a value the install of a target takes from the user.
type Field struct {
	Kind        FieldKind `json:"kind"`
	Key         string    `json:"key"`
	Description string    `json:"description,omitempty"`
	Required    bool      `json:"required"`
	Secret      bool      `json:"secret"`
	Default     string    `json:"default,omitempty"`
	Choices     []string  `json:"choices,omitempty"`
	Format      string    `json:"format,omitempty"`
}

// Answers are the values the user gave, by field kind and key.
type Answers struct {
	Args    map[string]string `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
}

func (a Answers) get(k FieldKind, key string) (string, bool) {
	var m map[string]string
	switch k {
	case FieldArg:
		m = a.Args
	case FieldEnv:
		m = a.Env
	case FieldHeader:
		m = a.Headers
	}
	v, ok := m[key]
	return v, ok
}

// Plan is what an install makes of an entry: the server definition (secret
// values still in Env and Headers, named by SecretEnv and SecretHeaders,
// for secrets.ServerValues.Save to move into the keychain) and the fields
// the target asks for.
type Plan struct {
	Server spec.Server `json:"server"`
	Target Target      `json:"target"`
	Fields []Field     `json:"fields"`
}

// ErrMissing is matched by a *MissingError.
var ErrMissing = errors.New("required values missing")

// MissingError names the required fields without an answer or a default.
type MissingError struct{ Fields []Field }

func (e *MissingError) Error() string {
	parts := make([]string, len(e.Fields))
	for i, f := range e.Fields {
		parts[i] = fmt.Sprintf("--%s %s=…", f.Kind, f.Key)
		if f.Secret {
			parts[i] += " (secret)"
		}
	}
	return "required values missing: " + strings.Join(parts, ", ")
}

// Is makes errors.Is(err, ErrMissing) hold.
func (e *MissingError) Is(target error) bool { return target == ErrMissing }

// ErrUnsupported: the entry (or the target picked) is not one the router
// can install.
var ErrUnsupported = errors.New("not installable")

// Runtimes the router runs packages with, by registry type.
var runtimes = map[string]string{"npm": "npx", "pypi": "uvx", "oci": "docker"}

// Installable reports whether the router can run package p, and why not.
func Installable(p Package) error {
	rt, ok := runtimes[p.RegistryType]
	if !ok {
		return fmt.Errorf("%w: %s packages are not run by the router (npm, pypi and oci are)", ErrUnsupported, clip(p.RegistryType))
	}
	if p.RuntimeHint != "" && p.RuntimeHint != rt {
		return fmt.Errorf("%w: runtime hint %q: %s packages run with %s", ErrUnsupported, clip(p.RuntimeHint), p.RegistryType, rt)
	}
	if p.Transport.Type != "" && p.Transport.Type != "stdio" {
		return fmt.Errorf("%w: the package serves %s itself; install one of the server's remotes, or a stdio package", ErrUnsupported, clip(p.Transport.Type))
	}
	return nil
}

// Resolve picks the target of s: t as given (checked), or the default.
func Resolve(s Server, t Target) (Target, error) {
	switch t.Kind {
	case "":
		for i, p := range s.Packages {
			if Installable(p) == nil {
				return Target{"package", i + 1}, nil
			}
		}
		if len(s.Remotes) > 0 {
			return Target{"remote", 1}, nil
		}
		if len(s.Packages) > 0 {
			return Target{}, fmt.Errorf("%s: %w", s.Name, Installable(s.Packages[0]))
		}
		return Target{}, fmt.Errorf("%w: %s declares no packages and no remotes", ErrUnsupported, s.Name)
	case "package", "remote":
		n := len(s.Packages)
		if t.Kind == "remote" {
			n = len(s.Remotes)
		}
		if t.Index == 0 {
			t.Index = 1
		}
		if t.Index < 1 || t.Index > n {
			return Target{}, fmt.Errorf("%w: %s has %d %ss; there is no %s %d", ErrBadInput, s.Name, n, t.Kind, t.Kind, t.Index)
		}
		if t.Kind == "package" {
			if err := Installable(s.Packages[t.Index-1]); err != nil {
				return Target{}, fmt.Errorf("%s package %d: %w", s.Name, t.Index, err)
			}
		}
		return t, nil
	default:
		return Target{}, fmt.Errorf("%w: target kind %q (want package or remote)", ErrBadInput, t.Kind)
	}
}

// Build makes the server definition that installs target t of s, named
// name ("" derives one from the registry name), from the answers, and
// records registryURL, s.Name and s.Version as its Source. A required
// value without answer or default is a *MissingError naming every one.
func Build(registryURL string, s Server, t Target, name string, ans Answers) (Plan, error) {
	if err := checkEntry(s); err != nil {
		return Plan{}, fmt.Errorf("%w: %v", ErrBadAnswer, err)
	}
	t, err := Resolve(s, t)
	if err != nil {
		return Plan{}, err
	}
	if name == "" {
		name = DefaultName(s.Name)
	}
	b := &builder{ans: ans}
	def := spec.Server{Name: name, Enabled: true,
		Source: spec.Source{Registry: strings.TrimRight(registryURL, "/"), Name: s.Name, Version: s.Version}}
	if t.Kind == "package" {
		err = b.pkg(&def, s.Packages[t.Index-1])
	} else {
		err = b.remote(&def, s.Remotes[t.Index-1])
	}
	if err != nil {
		return Plan{}, fmt.Errorf("%s %s: %w", s.Name, t, err)
	}
	if len(b.missing) > 0 {
		return Plan{Target: t, Fields: b.fields}, &MissingError{Fields: b.missing}
	}
	def.Normalize()
	if err := def.Validate(); err != nil {
		return Plan{}, fmt.Errorf("%s %s: %w", s.Name, t, err)
	}
	return Plan{Server: def, Target: t, Fields: b.fields}, nil
}

// Fields lists what target t of s asks for, without building.
func Fields(s Server, t Target) (Target, []Field, error) {
	p, err := Build("http://x.invalid", s, t, "x", Answers{})
	var miss *MissingError
	if err != nil && !errors.As(err, &miss) {
		return Target{}, nil, err
	}
	return p.Target, p.Fields, nil
}

var nonName = regexp.MustCompile(`[^A-Za-z0-9_-]+`)

// DefaultName is the router name of a registry server: the part after the
// '/', in the letters a server name allows.
func DefaultName(registryName string) string {
	_, n, _ := strings.Cut(registryName, "/")
	n = strings.Trim(nonName.ReplaceAllString(n, "-"), "-_")
	if len(n) > 48 {
		n = strings.TrimRight(n[:48], "-_")
	}
	if n == "" {
		n = "server"
	}
	return n
}

// builder collects the fields a target asks and the required ones missing.
type builder struct {
	ans     Answers
	fields  []Field
	missing []Field
	seen    map[string]bool
}

func (b *builder) field(f Field) {
	if b.seen == nil {
		b.seen = map[string]bool{}
	}
	if k := string(f.Kind) + "\x00" + f.Key; !b.seen[k] {
		b.seen[k] = true
		b.fields = append(b.fields, f)
	}
}

// value resolves one input: its fixed value with {variables} filled, or
// the answer, or its default. ok is false when it has none (and it is not
// required, or it is missing: then b.missing says so).
func (b *builder) value(kind FieldKind, key string, in Input) (v string, secret, ok bool, err error) {
	if len(in.Variables) > MaxVariables {
		return "", false, false, fmt.Errorf("%w: %s %s has %d variables, more than the cap of %d", ErrBadAnswer, kind, key, len(in.Variables), MaxVariables)
	}
	if in.Value != "" {
		v, secret, ok, err := b.fill(in.Value, in.Variables)
		return v, secret || in.IsSecret, ok, err
	}
	f := fieldOf(kind, key, in)
	b.field(f)
	v, given := b.ans.get(kind, key)
	if !given || v == "" {
		v = in.Default
	}
	if v == "" {
		if in.IsRequired {
			b.missing = append(b.missing, f)
		}
		return "", in.IsSecret, false, nil
	}
	if len(in.Choices) > 0 && !slices.Contains(in.Choices, v) {
		return "", false, false, fmt.Errorf("%w: %s %s: %q is not one of %s", ErrBadInput, kind, key, clip(v), strings.Join(in.Choices, ", "))
	}
	if strings.ContainsRune(v, 0) {
		return "", false, false, fmt.Errorf("%w: %s %s: the value has a NUL byte", ErrBadInput, kind, key)
	}
	return v, in.IsSecret, true, nil
}

var varRe = regexp.MustCompile(`\{([A-Za-z0-9_.-]+)\}`)

// fill replaces the {name} of tmpl that vars declares with their values
// (answered as --arg name=…); an undeclared {name} stays as written.
func (b *builder) fill(tmpl string, vars map[string]Input) (string, bool, bool, error) {
	names := make([]string, 0, len(vars))
	for n := range vars {
		names = append(names, n)
	}
	sort.Strings(names)
	vals := map[string]string{}
	secret, complete := false, true
	for _, n := range names {
		if !strings.Contains(tmpl, "{"+n+"}") {
			continue
		}
		v, sec, ok, err := b.value(FieldArg, n, vars[n])
		if err != nil {
			return "", false, false, err
		}
		secret = secret || sec
		if !ok {
			complete = complete && !vars[n].IsRequired
		}
		vals[n] = v
	}
	out := varRe.ReplaceAllStringFunc(tmpl, func(m string) string {
		if v, ok := vals[m[1:len(m)-1]]; ok {
			return v
		}
		return m
	})
	return out, secret, complete, nil
}

func fieldOf(kind FieldKind, key string, in Input) Field {
	return Field{Kind: kind, Key: key, Description: Printable(in.Description), Required: in.IsRequired, Secret: in.IsSecret,
		Default: in.Default, Choices: in.Choices, Format: in.Format}
}

var (
	// npm's package name rules (scope optional), never a flag.
	npmNameRe = regexp.MustCompile(`^(@[a-z0-9][a-z0-9._~-]*/)?[a-z0-9][a-z0-9._~-]*$`)
	// PyPI's normalized-or-not project name (PEP 508 name).
	pypiNameRe = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$`)
	// An OCI image reference: [registry[:port]/]path[:tag][@digest].
	ociRefRe = regexp.MustCompile(`^[a-z0-9]+([._-][a-z0-9]+)*(:[0-9]+)?(/[a-z0-9]+([._-]+[a-z0-9]+)*)*(:[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(@sha256:[a-f0-9]{64})?$`)
	// A named argument's flag.
	flagRe = regexp.MustCompile(`^--?[A-Za-z0-9][A-Za-z0-9._-]*$`)
	// A version put on a command line: no flag, no range.
	pkgVersionRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9.+_-]*$`)
)

func (b *builder) pkg(def *spec.Server, p Package) error {
	id, ver := p.Identifier, p.Version
	if ver != "" && (!pkgVersionRe.MatchString(ver) || len(ver) > spec.MaxRegistryVersionLen) {
		return fmt.Errorf("%w: package version %q is not a plain version", ErrBadAnswer, clip(ver))
	}
	var ref string
	switch p.RegistryType {
	case "npm":
		if len(id) > 214 || !npmNameRe.MatchString(id) {
			return fmt.Errorf("%w: %q is not an npm package name", ErrBadAnswer, clip(id))
		}
		ref = id
		if ver != "" {
			ref += "@" + ver
		}
	case "pypi":
		if len(id) > 200 || !pypiNameRe.MatchString(id) {
			return fmt.Errorf("%w: %q is not a PyPI project name", ErrBadAnswer, clip(id))
		}
		ref = id
		if ver != "" {
			ref += "==" + ver
		}
	case "oci":
		if len(id) > 512 || !ociRefRe.MatchString(id) {
			return fmt.Errorf("%w: %q is not an OCI image reference", ErrBadAnswer, clip(id))
		}
		ref = id
		if ver != "" && !hasTag(id) {
			ref += ":" + ver
		}
	}
	runtimeArgs, err := b.args(p.RuntimeArguments)
	if err != nil {
		return fmt.Errorf("runtime arguments: %w", err)
	}
	pkgArgs, err := b.args(p.PackageArguments)
	if err != nil {
		return fmt.Errorf("package arguments: %w", err)
	}
	env := map[string]string{}
	var envNames []string
	for _, e := range p.EnvironmentVariables {
		if e.Name == "" || strings.ContainsAny(e.Name, "=\x00") || len(e.Name) > 256 {
			return fmt.Errorf("%w: environment variable name %q", ErrBadAnswer, clip(e.Name))
		}
		v, secret, ok, err := b.value(FieldEnv, e.Name, e.Input)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		env[e.Name] = v
		envNames = append(envNames, e.Name)
		if secret {
			def.SecretEnv = append(def.SecretEnv, e.Name)
		}
	}
	def.Transport = spec.Stdio
	def.Command = runtimes[p.RegistryType]
	switch p.RegistryType {
	case "npm":
		args := []string{}
		if !slices.Contains(runtimeArgs, "-y") && !slices.Contains(runtimeArgs, "--yes") {
			args = append(args, "-y")
		}
		def.Args = slices.Concat(args, runtimeArgs, []string{ref}, pkgArgs)
	case "pypi":
		def.Args = slices.Concat(runtimeArgs, []string{ref}, pkgArgs)
	case "oci":
		// The container gets the variables by name (-e NAME): their values
		// stay in docker's environment, never on its command line.
		var pass []string
		for _, n := range envNames {
			pass = append(pass, "-e", n)
		}
		def.Args = slices.Concat([]string{"run", "-i", "--rm"}, runtimeArgs, pass, []string{ref}, pkgArgs)
	}
	if len(env) > 0 {
		def.Env = env
	}
	return nil
}

func hasTag(ref string) bool {
	if strings.Contains(ref, "@") {
		return true
	}
	last := ref[strings.LastIndex(ref, "/")+1:]
	return strings.Contains(last, ":")
}

// args turns arguments into argv items; a secret one is refused: the
// router keeps secrets in the keychain as environment variables and
// headers only, and a command line is stored in the database and visible
// to every process.
func (b *builder) args(in []Argument) ([]string, error) {
	var out []string
	for i, a := range in {
		key := a.ValueHint
		switch a.Type {
		case "named":
			if !flagRe.MatchString(a.Name) {
				return nil, fmt.Errorf("%w: argument %d: %q is not a flag", ErrBadAnswer, i+1, clip(a.Name))
			}
			key = strings.TrimLeft(a.Name, "-")
		case "positional":
			if key == "" {
				key = fmt.Sprintf("arg%d", i+1)
			}
		default:
			return nil, fmt.Errorf("%w: argument %d: type %q (want positional or named)", ErrBadAnswer, i+1, clip(a.Type))
		}
		if strings.ContainsAny(key, "=\x00") || len(key) > 128 {
			return nil, fmt.Errorf("%w: argument %d: name %q", ErrBadAnswer, i+1, clip(key))
		}
		v, secret, ok, err := b.value(FieldArg, key, a.Input)
		if err != nil {
			return nil, err
		}
		if secret {
			return nil, fmt.Errorf("%w: argument %s is secret, and the router keeps secrets only as environment variables or headers (in the keychain); a command line is stored in the database and visible to every process — install another package or a remote of the server",
				ErrUnsupported, key)
		}
		if !ok {
			continue // optional and not given: left out
		}
		if a.Type == "named" {
			out = append(out, a.Name, v)
		} else {
			out = append(out, v)
		}
	}
	return out, nil
}

func (b *builder) remote(def *spec.Server, r Remote) error {
	switch r.Type {
	case "streamable-http":
		def.Transport = spec.HTTP
	case "sse":
		def.Transport = spec.SSE
	default:
		return fmt.Errorf("%w: remote type %q (want streamable-http or sse)", ErrUnsupported, clip(r.Type))
	}
	// A variable fills a part of the URL: it may not add a path, a query,
	// user info or a port, or move the host (a tenant "evil.com/#").
	for n := range r.Variables {
		if v, _ := b.ans.get(FieldArg, n); strings.ContainsAny(v, "/?#@:\\%[] \t\r\n") {
			return fmt.Errorf("%w: URL variable %s: %q may not contain / ? # @ : %% [ ] or spaces", ErrBadInput, n, clip(v))
		}
	}
	u, secret, ok, err := b.fill(r.URL, r.Variables)
	if err != nil {
		return err
	}
	if secret {
		return fmt.Errorf("%w: the remote's URL takes a secret variable, and a URL is stored in the database; give the secret as a header instead", ErrUnsupported)
	}
	if ok {
		if err := spec.ValidateURL(u); err != nil {
			return fmt.Errorf("%w: remote URL: %v", ErrBadAnswer, err)
		}
	}
	def.URL = u
	headers := map[string]string{}
	for _, h := range r.Headers {
		v, secret, ok, err := b.value(FieldHeader, h.Name, h.Input)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		if err := spec.CheckHeader(h.Name, v); err != nil {
			return fmt.Errorf("%w: %v", ErrBadInput, err)
		}
		headers[h.Name] = v
		if secret {
			def.SecretHeaders = append(def.SecretHeaders, h.Name)
		}
	}
	if len(headers) > 0 {
		def.Headers = headers
	}
	return nil
}
