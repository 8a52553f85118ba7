package stategate

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/token"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/mcp-router/mcp-router/backend/filelimit"
)

// A process definition, as the user writes it in YAML (processes/*.yaml in
// the data directory). Lists rather than maps keep the author's order, which
// the state diagram, progress and transition choice follow.
type rawProcess struct {
	ID             string          `yaml:"id"`
	Version        scalar          `yaml:"version"`
	Name           string          `yaml:"name"`
	Description    string          `yaml:"description"`
	Language       string          `yaml:"language"`
	WorkspaceRoots []string        `yaml:"workspace_roots"`
	States         []rawState      `yaml:"states"`
	Artifacts      []rawArtifact   `yaml:"artifacts"`
	Events         []rawEvent      `yaml:"events"`
	Guards         []rawGuard      `yaml:"guards"`
	Transitions    []rawTransition `yaml:"transitions"`
}

type rawState struct {
	Name              string   `yaml:"name"`
	Description       string   `yaml:"description"`
	Initial           bool     `yaml:"initial"`
	Final             bool     `yaml:"final"`
	RequiredArtifacts []string `yaml:"required_artifacts"`
}

type rawArtifact struct {
	Type        string   `yaml:"type"`
	Description string   `yaml:"description"`
	Patterns    []string `yaml:"patterns"`
}

type rawEvent struct {
	Name          string   `yaml:"name"`
	Description   string   `yaml:"description"`
	Roles         []string `yaml:"roles"`
	PayloadSchema any      `yaml:"payload_schema"`
}

type rawGuard struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	Expression  string `yaml:"expression"`
	Message     string `yaml:"message"`
}

type rawTransition struct {
	From  stringList `yaml:"from"`
	Event string     `yaml:"event"`
	To    string     `yaml:"to"`
	Guard string     `yaml:"guard"`
}

// scalar takes any YAML scalar as text, so `version: 1.0` is "1.0", not a
// type error.
type scalar string

func (s *scalar) UnmarshalYAML(b []byte) error {
	var v any
	if err := yaml.Unmarshal(b, &v); err != nil {
		return err
	}
	switch x := v.(type) {
	case nil:
		*s = ""
	case string:
		*s = scalar(x)
	case map[string]any, []any, yaml.MapSlice:
		return errors.New("must be a plain value such as 1.0.0")
	default:
		*s = scalar(strings.TrimSpace(string(b)))
	}
	return nil
}

// stringList takes one string or a list of strings.
type stringList []string

func (l *stringList) UnmarshalYAML(b []byte) error {
	var one string
	if err := yaml.Unmarshal(b, &one); err == nil {
		*l = stringList{one}
		return nil
	}
	var many []string
	if err := yaml.Unmarshal(b, &many); err != nil {
		return errors.New("must be a state name or a list of state names")
	}
	*l = many
	return nil
}

// Process is a loaded, checked and compiled process definition.
type Process struct {
	ID             string
	Version        string
	Name           string
	Description    string
	Language       string // "en" (default) or "ja": the language of the engine's own words
	WorkspaceRoots []string
	States         []*State
	Artifacts      []*ArtifactType
	Events         []*Event
	Guards         []*Guard
	Transitions    []*Transition

	Source []byte // the YAML as written
	Hash   string // SHA-256 of Source, hex

	states    map[string]*State
	events    map[string]*Event
	guards    map[string]*Guard
	artifacts map[string]*ArtifactType
	initial   *State
}

// State is one state of a process.
type State struct {
	Name              string
	Description       string
	Initial, Final    bool
	RequiredArtifacts []string
}

// ArtifactType names a kind of file an agent submits, recognised by its path
// (relative to the run's workspace) matching one of Patterns.
type ArtifactType struct {
	Type        string
	Description string
	Patterns    []string
}

// Event is something an agent may emit.
type Event struct {
	Name          string
	Description   string
	Roles         []string
	PayloadSchema json.RawMessage // nil: any payload object
	schema        *jsonschema.Schema
}

// Guard is a named CEL condition on a transition.
type Guard struct {
	Name        string
	Description string
	Expression  string
	Message     string
	program     *guardProgram
	message     *template
}

// Transition moves a run from one of From to To on Event, when Guard (if
// any) holds. The first transition (in the author's order) that applies is
// taken.
type Transition struct {
	From  []string
	Event string
	To    string
	Guard string // "" for none
}

// Problem is one thing wrong with a definition, at a line and column of
// the YAML (1-based; 0 when unknown).
type Problem struct {
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	Path    string `json:"path,omitempty"`
	Message string `json:"message"`
}

func (p Problem) String() string {
	if p.Line > 0 {
		return fmt.Sprintf("%d:%d: %s", p.Line, p.Column, p.Message)
	}
	return p.Message
}

// DefinitionError lists every problem found in a definition.
type DefinitionError struct {
	File     string    `json:"file,omitempty"`
	Problems []Problem `json:"problems"`
}

// ErrDefinition is wrapped by every *DefinitionError (errors.Is).
var ErrDefinition = errors.New("invalid process definition")

func (e *DefinitionError) Error() string {
	where := e.File
	if where == "" {
		where = "process definition"
	}
	if len(e.Problems) == 0 {
		return where + ": invalid"
	}
	msg := where + ":" + e.Problems[0].String()
	if n := len(e.Problems) - 1; n > 0 {
		msg += fmt.Sprintf(" (and %d more problem%s)", n, plural(n))
	}
	return msg
}

func (e *DefinitionError) Unwrap() error { return ErrDefinition }

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

var (
	idRe   = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)
	nameRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,63}$`)
)

// MaxDefinitionBytes bounds a definition file.
const MaxDefinitionBytes = 1 << 20

// DefinitionLimits are the caps of a process definition (docs/limits.md):
// its size, nesting, YAML tokens, keys and alias expansion, checked before
// go-yaml's parser and decoder, and a parse deadline.
func DefinitionLimits() filelimit.Limits {
	return filelimit.Limits{What: "process definition", MaxBytes: MaxDefinitionBytes}.WithDefaults()
}

// Parse reads, checks and compiles a definition within DefinitionLimits.
// Every problem it finds is reported with its line and column in a
// *DefinitionError.
func Parse(src []byte, o CompileOptions) (*Process, error) {
	return ParseContext(context.Background(), src, o)
}

// ParseContext is Parse returning as soon as ctx ends (the CLI's check on
// a signal) or the parse deadline passes.
func ParseContext(ctx context.Context, src []byte, o CompileOptions) (*Process, error) {
	lim := DefinitionLimits()
	p, err := filelimit.Within(ctx, lim, func(ctx context.Context) (*Process, error) { return parseRecovered(ctx, src, o, lim) })
	if err != nil {
		var de *DefinitionError
		if !errors.As(err, &de) {
			de = &DefinitionError{Problems: []Problem{limitProblem(err)}}
		}
		return nil, de
	}
	return p, nil
}

// limitProblem places an error of a cap (or of the parser) where it was
// found.
func limitProblem(err error) Problem {
	var le *filelimit.Error
	if errors.As(err, &le) {
		return Problem{Line: le.Line, Column: le.Column, Message: le.Message}
	}
	return yamlProblem(err)
}

func parseRecovered(ctx context.Context, src []byte, o CompileOptions, lim filelimit.Limits) (p *Process, err error) {
	o.defaults()
	// go-yaml v1.19.2 panics on some malformed input (FuzzParse found one,
	// testdata/fuzz/FuzzParse): such a file is a definition error, not a
	// crash of the router.
	defer func() {
		if r := recover(); r != nil {
			p, err = nil, &DefinitionError{Problems: []Problem{{Line: 1, Column: 1, Message: fmt.Sprintf("the YAML could not be read (%v)", r)}}}
		}
	}()
	return parse(ctx, src, o, lim)
}

func parse(ctx context.Context, src []byte, o CompileOptions, lim filelimit.Limits) (*Process, error) {
	// Size, nesting, tokens and alias expansion are checked before the
	// parser and the decoder can spend more than the file is worth.
	file, err := lim.ParseYAML(ctx, src)
	if err != nil {
		return nil, &DefinitionError{Problems: []Problem{limitProblem(err)}}
	}
	if len(file.Docs) != 1 || file.Docs[0].Body == nil {
		return nil, &DefinitionError{Problems: []Problem{{Line: 1, Column: 1, Message: "want exactly one YAML document holding the process"}}}
	}
	var raw rawProcess
	if err := yaml.NodeToValue(file.Docs[0].Body, &raw, yaml.Strict(), yaml.UseOrderedMap()); err != nil {
		return nil, &DefinitionError{Problems: []Problem{yamlProblem(err)}}
	}
	c := &checker{file: file, o: o}
	p := c.build(raw)
	if len(c.problems) > 0 {
		sort.SliceStable(c.problems, func(i, j int) bool {
			a, b := c.problems[i], c.problems[j]
			if a.Line != b.Line {
				return a.Line < b.Line
			}
			return a.Column < b.Column
		})
		return nil, &DefinitionError{Problems: c.problems}
	}
	p.Source = append([]byte(nil), src...)
	sum := sha256.Sum256(src)
	p.Hash = hex.EncodeToString(sum[:])
	return p, nil
}

// yamlProblem turns a go-yaml error into a Problem at its token.
func yamlProblem(err error) Problem {
	var ye yaml.Error
	if errors.As(err, &ye) {
		p := Problem{Message: ye.GetMessage()}
		if tk := ye.GetToken(); tk != nil && tk.Position != nil {
			p.Line, p.Column = tk.Position.Line, tk.Position.Column
		}
		return p
	}
	return Problem{Message: err.Error()}
}

type checker struct {
	file     *ast.File
	o        CompileOptions
	problems []Problem
}

// at finds the node a YAML path names; nil if it is not there.
func (c *checker) at(p string) ast.Node {
	yp, err := yaml.PathString(p)
	if err != nil {
		return nil
	}
	n, err := yp.FilterFile(c.file)
	if err != nil {
		return nil
	}
	return n
}

// fail records a problem at the node of YAML path p (or its nearest
// parent that exists).
func (c *checker) fail(p string, format string, args ...any) {
	c.failAt(p, 0, 0, fmt.Sprintf(format, args...))
}

// failAt records a problem at an offset inside the node's text (a CEL
// error's own line and column, both 1-based; 0 for none).
func (c *checker) failAt(p string, line, col int, msg string) {
	prob := Problem{Path: p, Message: msg}
	for q := p; q != ""; q = parentPath(q) {
		n := c.at(q)
		if n == nil || n.GetToken() == nil || n.GetToken().Position == nil {
			continue
		}
		pos := startOf(n)
		prob.Line, prob.Column = pos.Line, pos.Column
		if q == p && line > 0 {
			prob.Line, prob.Column = offsetIn(n, line, col)
		}
		break
	}
	c.problems = append(c.problems, prob)
}

// startOf is where a node begins: a block sequence or mapping at its first
// entry (go-yaml's token for them is elsewhere).
func startOf(n ast.Node) *token.Position {
	switch x := n.(type) {
	case *ast.SequenceNode:
		if x.Start != nil && x.Start.Position != nil {
			return x.Start.Position
		}
	case *ast.MappingNode:
		if x.Start != nil && x.Start.Position != nil {
			return x.Start.Position
		}
		if len(x.Values) > 0 && x.Values[0].Key != nil && x.Values[0].Key.GetToken() != nil {
			return x.Values[0].Key.GetToken().Position
		}
	}
	return n.GetToken().Position
}

// offsetIn maps a 1-based line and column inside a scalar's value to the
// file: a value on one line starts at its token (after a quote); a block
// scalar (| or >) starts on the line after its indicator.
func offsetIn(n ast.Node, line, col int) (int, int) {
	tk := n.GetToken()
	pos := tk.Position
	switch n.(type) {
	case *ast.LiteralNode:
		// The token sits on the indicator; its value starts below, indented.
		indent := pos.IndentNum
		if indent == 0 {
			indent = pos.Column - 1
		}
		return pos.Line + line, indent + 2 + col - 1
	}
	start := pos.Column
	if s := tk.Origin; s != "" {
		if t := strings.TrimLeft(s, " \t\r\n"); len(t) > 0 && (t[0] == '"' || t[0] == '\'') {
			start++
		}
	}
	if line == 1 {
		return pos.Line, start + col - 1
	}
	return pos.Line + line - 1, col
}

func parentPath(p string) string {
	if i := strings.LastIndexAny(p, ".["); i > 0 {
		return p[:i]
	}
	return ""
}

func (c *checker) build(r rawProcess) *Process {
	p := &Process{ID: strings.TrimSpace(r.ID), Version: strings.TrimSpace(string(r.Version)), Name: strings.TrimSpace(r.Name),
		Description: r.Description, Language: r.Language, WorkspaceRoots: r.WorkspaceRoots,
		states: map[string]*State{}, events: map[string]*Event{}, guards: map[string]*Guard{}, artifacts: map[string]*ArtifactType{}}
	switch {
	case p.ID == "":
		c.fail("$.id", "id is required (for example id: code-review)")
	case !idRe.MatchString(p.ID):
		c.fail("$.id", "id %q must be 1-64 letters, digits, '.', '-' or '_', starting with a letter or digit", p.ID)
	}
	if p.Version == "" {
		c.fail("$.version", "version is required (for example version: 1.0.0)")
	} else if len(p.Version) > 64 || strings.ContainsAny(p.Version, "\n\r\t") {
		c.fail("$.version", "version %q must be one short line", p.Version)
	}
	if p.Name == "" {
		p.Name = p.ID
	}
	switch p.Language {
	case "":
		p.Language = "en"
	case "en", "ja":
	default:
		c.fail("$.language", "language %q must be en or ja", p.Language)
	}
	for i, root := range p.WorkspaceRoots {
		if strings.TrimSpace(root) == "" {
			c.fail(fmt.Sprintf("$.workspace_roots[%d]", i), "a workspace root must be a directory path")
		}
	}

	// Artifacts first: states and guards refer to them.
	for i, a := range r.Artifacts {
		at := fmt.Sprintf("$.artifacts[%d]", i)
		t := &ArtifactType{Type: a.Type, Description: a.Description, Patterns: a.Patterns}
		if !nameRe.MatchString(a.Type) {
			c.fail(at+".type", "artifact type %q must be a name of letters, digits and '_' (it is a key in guards)", a.Type)
			continue
		}
		if _, dup := p.artifacts[a.Type]; dup {
			c.fail(at+".type", "artifact type %q is defined twice", a.Type)
			continue
		}
		if len(a.Patterns) == 0 {
			c.fail(at, "artifact type %q needs patterns: the workspace paths that are this artifact (for example evidence/*.md)", a.Type)
		}
		for j, pat := range a.Patterns {
			if err := checkPattern(pat); err != nil {
				c.fail(fmt.Sprintf("%s.patterns[%d]", at, j), "%v", err)
			}
		}
		p.artifacts[a.Type] = t
		p.Artifacts = append(p.Artifacts, t)
	}

	for i, s := range r.States {
		at := fmt.Sprintf("$.states[%d]", i)
		if !nameRe.MatchString(s.Name) {
			c.fail(at+".name", "state name %q must be letters, digits and '_', starting with a letter or '_'", s.Name)
			continue
		}
		if _, dup := p.states[s.Name]; dup {
			c.fail(at+".name", "state %q is defined twice", s.Name)
			continue
		}
		st := &State{Name: s.Name, Description: s.Description, Initial: s.Initial, Final: s.Final, RequiredArtifacts: s.RequiredArtifacts}
		for j, a := range s.RequiredArtifacts {
			if _, ok := p.artifacts[a]; !ok {
				c.fail(fmt.Sprintf("%s.required_artifacts[%d]", at, j), "unknown artifact type %q (define it under artifacts)", a)
			}
		}
		if st.Initial {
			if p.initial != nil {
				c.fail(at+".initial", "state %q is initial, but so is %q: a process has one initial state", s.Name, p.initial.Name)
			} else {
				p.initial = st
			}
		}
		p.states[s.Name] = st
		p.States = append(p.States, st)
	}
	if len(r.States) == 0 {
		c.fail("$.states", "a process needs states")
	} else if p.initial == nil && len(p.States) > 0 {
		c.fail("$.states", "no state is marked initial: true")
	}

	for i, e := range r.Events {
		at := fmt.Sprintf("$.events[%d]", i)
		if !nameRe.MatchString(e.Name) {
			c.fail(at+".name", "event name %q must be letters, digits and '_', starting with a letter or '_'", e.Name)
			continue
		}
		if _, dup := p.events[e.Name]; dup {
			c.fail(at+".name", "event %q is defined twice", e.Name)
			continue
		}
		ev := &Event{Name: e.Name, Description: e.Description, Roles: e.Roles}
		for j, role := range e.Roles {
			if strings.TrimSpace(role) == "" {
				c.fail(fmt.Sprintf("%s.roles[%d]", at, j), "a role must not be empty")
			}
		}
		if e.PayloadSchema != nil {
			raw, err := orderedJSON(e.PayloadSchema)
			if err == nil {
				ev.PayloadSchema = raw
				ev.schema, err = compileSchema(raw)
			}
			if err != nil {
				c.fail(at+".payload_schema", "payload_schema is not a valid JSON Schema: %s", schemaProblem(err))
			}
		}
		p.events[e.Name] = ev
		p.Events = append(p.Events, ev)
	}

	env, err := guardEnv(p)
	if err != nil {
		c.fail("$", "guards: %v", err)
	}
	for i, g := range r.Guards {
		at := fmt.Sprintf("$.guards[%d]", i)
		if !nameRe.MatchString(g.Name) {
			c.fail(at+".name", "guard name %q must be letters, digits and '_', starting with a letter or '_'", g.Name)
			continue
		}
		if _, dup := p.guards[g.Name]; dup {
			c.fail(at+".name", "guard %q is defined twice", g.Name)
			continue
		}
		gd := &Guard{Name: g.Name, Description: g.Description, Expression: g.Expression, Message: g.Message}
		if strings.TrimSpace(g.Expression) == "" {
			c.fail(at, "guard %q needs an expression (CEL, for example size(artifacts.plan) > 0)", g.Name)
		} else if env != nil {
			prog, issues := compileGuard(env, g.Expression, c.o)
			for _, is := range issues {
				c.failAt(at+".expression", is.line, is.col, "guard "+g.Name+": "+is.msg)
			}
			gd.program = prog
		}
		if env != nil {
			tmpl, issues := compileTemplate(env, g.Message, c.o)
			for _, is := range issues {
				c.failAt(at+".message", is.line, is.col, "guard "+g.Name+" message: "+is.msg)
			}
			gd.message = tmpl
		}
		p.guards[g.Name] = gd
		p.Guards = append(p.Guards, gd)
	}

	for i, t := range r.Transitions {
		at := fmt.Sprintf("$.transitions[%d]", i)
		tr := &Transition{From: t.From, Event: t.Event, To: t.To, Guard: t.Guard}
		if len(t.From) == 0 {
			c.fail(at, "a transition needs from: the state (or states) it leaves")
		}
		for j, f := range t.From {
			if _, ok := p.states[f]; !ok {
				fp := at + ".from"
				if len(t.From) > 1 {
					fp = fmt.Sprintf("%s.from[%d]", at, j)
				}
				c.fail(fp, "unknown state %q", f)
			} else if p.states[f].Final {
				c.fail(at+".from", "state %q is final: no transition leaves it", f)
			}
		}
		if t.Event == "" {
			c.fail(at, "a transition needs event: the event that takes it")
		} else if _, ok := p.events[t.Event]; !ok {
			c.fail(at+".event", "unknown event %q (define it under events)", t.Event)
		}
		if t.To == "" {
			c.fail(at, "a transition needs to: the state it enters")
		} else if _, ok := p.states[t.To]; !ok {
			c.fail(at+".to", "unknown state %q", t.To)
		}
		if t.Guard != "" {
			if _, ok := p.guards[t.Guard]; !ok {
				c.fail(at+".guard", "unknown guard %q (define it under guards)", t.Guard)
			}
		}
		p.Transitions = append(p.Transitions, tr)
	}
	for _, ev := range p.Events {
		if len(p.transitionsOn(ev.Name)) == 0 {
			for i, e := range r.Events {
				if e.Name == ev.Name {
					c.fail(fmt.Sprintf("$.events[%d].name", i), "event %q is used by no transition", ev.Name)
				}
			}
		}
	}
	return p
}

func checkPattern(pat string) error {
	if strings.TrimSpace(pat) == "" {
		return errors.New("a pattern must not be empty")
	}
	if strings.HasPrefix(pat, "/") || strings.Contains(pat, `\`) {
		return fmt.Errorf("pattern %q must be a relative path with '/' separators", pat)
	}
	for _, part := range strings.Split(pat, "/") {
		if part == ".." {
			return fmt.Errorf("pattern %q must stay inside the workspace (no '..')", pat)
		}
	}
	if _, err := path.Match(pat, ""); err != nil {
		return fmt.Errorf("pattern %q: %v", pat, err)
	}
	return nil
}

// oneLine keeps the first line of a multi-line library error.
func oneLine(err error) string {
	s := strings.TrimSpace(err.Error())
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		rest := strings.Join(strings.Fields(s[i+1:]), " ")
		s = s[:i] + " " + rest
	}
	return s
}

// orderedJSON renders a YAML value decoded with UseOrderedMap as JSON,
// keeping the author's key order (a schema reads as it was written).
func orderedJSON(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	if err := writeOrdered(&b, v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func writeOrdered(b *bytes.Buffer, v any) error {
	switch x := v.(type) {
	case yaml.MapSlice:
		b.WriteByte('{')
		for i, it := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			k, ok := it.Key.(string)
			if !ok {
				k = fmt.Sprint(it.Key)
			}
			kb, _ := json.Marshal(k)
			b.Write(kb)
			b.WriteByte(':')
			if err := writeOrdered(b, it.Value); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, it := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeOrdered(b, it); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case uint64:
		b.WriteString(strconv.FormatUint(x, 10))
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	default:
		enc, err := json.Marshal(x)
		if err != nil {
			return err
		}
		b.Write(enc)
	}
	return nil
}

// compileSchema compiles a payload schema (draft 2020-12 unless it says
// otherwise). It may not load anything: a definition is self-contained.
func compileSchema(raw json.RawMessage) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(noLoader{})
	if err := c.AddResource("payload.json", doc); err != nil {
		return nil, err
	}
	return c.Compile("payload.json")
}

// schemaProblem words a schema's compile error by its leaves ("at /type:
// …") rather than the library's nested report.
func schemaProblem(err error) string {
	var sve *jsonschema.SchemaValidationError
	var ve *jsonschema.ValidationError
	if errors.As(err, &sve) && errors.As(sve.Err, &ve) {
		var parts []string
		for _, l := range leaves(ve) {
			parts = append(parts, "at "+l.Path+": "+l.Message)
		}
		if len(parts) > 0 {
			return strings.Join(parts, "; ")
		}
	}
	return oneLine(err)
}

var printer = message.NewPrinter(language.English)

// leaves are the innermost failures of a validation, each at its instance
// location (a JSON pointer, "/" for the root).
func leaves(ve *jsonschema.ValidationError) []ValidationError {
	var out []ValidationError
	seen := map[string]bool{}
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		loc := "/" + strings.Join(escapePointer(e.InstanceLocation), "/")
		v := ValidationError{Path: loc, Message: e.ErrorKind.LocalizedString(printer)}
		if k := v.Path + "\x00" + v.Message; !seen[k] {
			seen[k] = true
			out = append(out, v)
		}
	}
	walk(ve)
	return out
}

func escapePointer(tokens []string) []string {
	out := make([]string, len(tokens))
	for i, t := range tokens {
		out[i] = strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1")
	}
	return out
}

type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("cannot load %s: a payload schema must be self-contained", url)
}

// State returns the named state.
func (p *Process) State(name string) (*State, bool) { s, ok := p.states[name]; return s, ok }

// Event returns the named event.
func (p *Process) Event(name string) (*Event, bool) { e, ok := p.events[name]; return e, ok }

// Guard returns the named guard.
func (p *Process) Guard(name string) (*Guard, bool) { g, ok := p.guards[name]; return g, ok }

// Initial is the state a run starts in.
func (p *Process) Initial() *State { return p.initial }

// transitionsOn lists the transitions an event takes, in order.
func (p *Process) transitionsOn(event string) []*Transition {
	var out []*Transition
	for _, t := range p.Transitions {
		if t.Event == event {
			out = append(out, t)
		}
	}
	return out
}

// transitionsFrom lists the transitions an event takes out of state.
func (p *Process) transitionsFrom(state, event string) []*Transition {
	var out []*Transition
	for _, t := range p.Transitions {
		if t.Event == event && contains(t.From, state) {
			out = append(out, t)
		}
	}
	return out
}

// sourcesOf lists the states an event can be emitted in, in state order.
func (p *Process) sourcesOf(event string) []string {
	seen := map[string]bool{}
	for _, t := range p.transitionsOn(event) {
		for _, f := range t.From {
			seen[f] = true
		}
	}
	var out []string
	for _, s := range p.States {
		if seen[s.Name] {
			out = append(out, s.Name)
		}
	}
	return out
}

// artifactType finds the type whose pattern matches a workspace-relative
// slash path; "" if none.
func (p *Process) artifactType(rel string) string {
	for _, a := range p.Artifacts {
		for _, pat := range a.Patterns {
			if ok, _ := path.Match(pat, rel); ok {
				return a.Type
			}
			if ok, _ := path.Match(strings.TrimPrefix(pat, "./"), rel); ok {
				return a.Type
			}
		}
	}
	return ""
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
