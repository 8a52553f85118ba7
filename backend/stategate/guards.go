package stategate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// CompileOptions bound what a guard may cost.
type CompileOptions struct {
	// CostLimit is the most a guard (or one part of its message) may cost
	// when evaluated, in CEL's cost units; default 100,000.
	CostLimit uint64
}

// DefaultCostLimit bounds one guard evaluation.
const DefaultCostLimit = 100_000

func (o *CompileOptions) defaults() {
	if o.CostLimit == 0 {
		o.CostLimit = DefaultCostLimit
	}
}

// Guards are CEL expressions over these variables:
//
//	context    map(string, dyn)              the run's context, given at create_run
//	payload    map(string, dyn)              the payload of the event being emitted
//	artifacts  map(string, list(map))        artifact type → [{path, size, sha256}], every declared type present
//	events     map(string, int)              accepted events by name, every declared event present
//	event      string                        the event being emitted
//	state      string                        the run's current state
//	revision   int                           the run's revision
//
// At emit time payload, artifacts and events include the event being
// emitted (the world as it would be after it); in get_state and list_events
// they are the run as it is, with an empty payload.
func guardEnv(p *Process) (*cel.Env, error) {
	return cel.NewEnv(
		cel.Variable("context", cel.MapType(cel.StringType, cel.DynType)),
		cel.Variable("payload", cel.MapType(cel.StringType, cel.DynType)),
		cel.Variable("artifacts", cel.MapType(cel.StringType, cel.ListType(cel.MapType(cel.StringType, cel.DynType)))),
		cel.Variable("events", cel.MapType(cel.StringType, cel.IntType)),
		cel.Variable("event", cel.StringType),
		cel.Variable("state", cel.StringType),
		cel.Variable("revision", cel.IntType),
		cel.CrossTypeNumericComparisons(true),
	)
}

type guardProgram struct {
	prg  cel.Program
	text string
}

type celIssue struct {
	line, col int
	msg       string
}

func compileExpr(env *cel.Env, text string, o CompileOptions, want *cel.Type) (*guardProgram, []celIssue) {
	ast, iss := env.Compile(text)
	if iss != nil && iss.Err() != nil {
		var out []celIssue
		for _, e := range iss.Errors() {
			out = append(out, celIssue{line: e.Location.Line(), col: e.Location.Column() + 1, msg: e.Message})
		}
		return nil, out
	}
	if want != nil && !ast.OutputType().IsExactType(want) && ast.OutputType() != cel.DynType {
		return nil, []celIssue{{msg: fmt.Sprintf("must be a %s expression, not %s", want, ast.OutputType())}}
	}
	prg, err := env.Program(ast,
		cel.CostLimit(o.CostLimit),
		cel.InterruptCheckFrequency(100),
	)
	if err != nil {
		return nil, []celIssue{{msg: err.Error()}}
	}
	return &guardProgram{prg: prg, text: text}, nil
}

func compileGuard(env *cel.Env, text string, o CompileOptions) (*guardProgram, []celIssue) {
	return compileExpr(env, text, o, cel.BoolType)
}

// template is a guard's message: text with {{ CEL }} parts.
type template struct {
	parts []templatePart
}

type templatePart struct {
	text string
	expr *guardProgram
}

func compileTemplate(env *cel.Env, text string, o CompileOptions) (*template, []celIssue) {
	t := &template{}
	var issues []celIssue
	rest := text
	offset := 0 // bytes of text before rest, for columns on the first line
	for {
		i := strings.Index(rest, "{{")
		if i < 0 {
			if rest != "" {
				t.parts = append(t.parts, templatePart{text: rest})
			}
			break
		}
		j := strings.Index(rest[i+2:], "}}")
		if j < 0 {
			issues = append(issues, celIssue{line: 1, col: offset + i + 1, msg: "'{{' without a closing '}}'"})
			break
		}
		if i > 0 {
			t.parts = append(t.parts, templatePart{text: rest[:i]})
		}
		expr := rest[i+2 : i+2+j]
		prog, iss := compileExpr(env, expr, o, nil)
		for _, is := range iss {
			if is.line <= 1 {
				is.line, is.col = 1, offset+i+2+is.col
			}
			issues = append(issues, is)
		}
		t.parts = append(t.parts, templatePart{expr: prog})
		adv := i + 2 + j + 2
		offset += adv
		rest = rest[adv:]
	}
	return t, issues
}

// guardVars are the values a guard sees.
type guardVars struct {
	Context   map[string]any
	Payload   map[string]any // empty in a preview: no event is being emitted
	Artifacts map[string][]map[string]any
	Events    map[string]int64
	Event     string
	State     string
	Revision  int64
}

func (v guardVars) activation() map[string]any {
	payload := v.Payload
	if payload == nil {
		payload = map[string]any{}
	}
	return map[string]any{
		"context":   v.Context,
		"payload":   payload,
		"artifacts": v.Artifacts,
		"events":    v.Events,
		"event":     v.Event,
		"state":     v.State,
		"revision":  v.Revision,
	}
}

// eval runs a guard: whether it holds, with an error when it could not be
// evaluated (which counts as not holding).
func (g *guardProgram) eval(ctx context.Context, v guardVars) (bool, error) {
	out, _, err := g.prg.ContextEval(ctx, v.activation())
	if err != nil {
		return false, evalError(err)
	}
	b, ok := out.(types.Bool)
	if !ok {
		return false, fmt.Errorf("the expression gave %s, not a bool", out.Type())
	}
	return bool(b), nil
}

func evalError(err error) error {
	msg := err.Error()
	if strings.Contains(msg, "cost limit") {
		return errors.New("the guard was stopped: it exceeded its cost limit")
	}
	return err
}

// render fills a message template; a part that cannot be evaluated shows
// as "?" (the message must still be shown).
func (t *template) render(ctx context.Context, v guardVars) string {
	if t == nil {
		return ""
	}
	act := v.activation()
	var b strings.Builder
	for _, p := range t.parts {
		if p.expr == nil {
			b.WriteString(p.text)
			continue
		}
		out, _, eerr := p.expr.prg.ContextEval(ctx, act)
		if eerr != nil {
			b.WriteString("?")
			continue
		}
		b.WriteString(display(out))
	}
	return b.String()
}

// display renders a CEL value the way a person reads it.
func display(v ref.Val) string {
	switch x := v.(type) {
	case types.String:
		return string(x)
	case types.Int:
		return strconv.FormatInt(int64(x), 10)
	case types.Uint:
		return strconv.FormatUint(uint64(x), 10)
	case types.Double:
		return strconv.FormatFloat(float64(x), 'g', -1, 64)
	case types.Bool:
		return strconv.FormatBool(bool(x))
	}
	if b, err := json.Marshal(v.Value()); err == nil {
		return string(b)
	}
	return fmt.Sprint(v.Value())
}

// normalizeJSON turns whole-number float64s from encoding/json into int64s,
// so a guard can compare payload.count with an int or add 1 to it.
func normalizeJSON(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = normalizeJSON(e)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = normalizeJSON(e)
		}
		return x
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return int64(x)
		}
	}
	return v
}
