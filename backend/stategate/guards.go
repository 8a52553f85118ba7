package stategate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common"
	"github.com/google/cel-go/common/operators"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"github.com/google/cel-go/interpreter"
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
	prg       cel.Program
	text      string
	costLimit uint64
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
		// The cost is tracked as the guard runs, with work on dyn values
		// (context, payload) charged by size: see guardCost.
		cel.CostTracking(guardCost{}),
		cel.CostLimit(o.CostLimit),
		// The deadline (guardCtx) is looked at every 100 iterations of a
		// comprehension.
		cel.InterruptCheckFrequency(100),
	)
	if err != nil {
		return nil, []celIssue{{msg: err.Error()}}
	}
	return &guardProgram{prg: prg, text: text, costLimit: o.CostLimit}, nil
}

// guardCost prices the calls cel-go cannot price itself. A call over dyn
// operands (context.s + context.s) is planned with no overload (it is
// chosen at run time), and cel-go's tracker then charges it 1 whatever it
// copies: a guard could build gigabytes within its cost limit. Here such a
// call costs what cel-go charges the overload it resolves to, by the size of
// its operands; calls with a known overload keep cel-go's own price.
type guardCost struct{}

var _ interpreter.ActualCostEstimator = guardCost{}

func (guardCost) CallCost(function, overloadID string, args []ref.Val, result ref.Val) *uint64 {
	if overloadID != "" {
		return nil
	}
	c := dynCallCost(function, args, result)
	return &c
}

// dynCallCost mirrors cel-go's runtime prices (interpreter/runtimecost.go)
// for the overloads a dyn call may resolve to, and charges anything else
// by the size of the text it produced.
func dynCallCost(function string, args []ref.Val, result ref.Val) uint64 {
	traverse := func(n uint64) uint64 { return uint64(math.Ceil(float64(n) * common.StringTraversalCostFactor)) }
	switch function {
	case operators.Add:
		// Concatenation copies both operands (strings, bytes; lists are
		// charged alike, which only errs on the safe side).
		if len(args) == 2 {
			return 1 + traverse(valueSize(args[0])+valueSize(args[1]))
		}
	case operators.Less, operators.LessEquals, operators.Greater, operators.GreaterEquals,
		operators.Equals, operators.NotEquals:
		if len(args) == 2 {
			return 1 + traverse(min(valueSize(args[0]), valueSize(args[1])))
		}
	case operators.In, operators.OldIn:
		if len(args) == 2 {
			if _, isList := args[1].(traits.Lister); isList {
				return 1 + valueSize(args[1])
			}
		}
	case "contains", "matches", "startsWith", "endsWith":
		if len(args) == 2 {
			return 1 + traverse(valueSize(args[0]))*max(1, traverse(valueSize(args[1])))
		}
	}
	return 1 + traverse(textSize(result))
}

// valueSize is cel-go's actualSize: the length of a string, bytes, list or
// map, 1 for anything else.
func valueSize(v ref.Val) uint64 {
	if s, ok := v.(traits.Sizer); ok {
		if n, ok := s.Size().(types.Int); ok && n > 0 {
			return uint64(n)
		}
		return 0
	}
	return 1
}

// textSize is the size of a string or bytes result, 0 for anything else.
func textSize(v ref.Val) uint64 {
	switch x := v.(type) {
	case types.String:
		return uint64(len(x))
	case types.Bytes:
		return uint64(len(x))
	}
	return 0
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
		return false, g.evalError(ctx, err)
	}
	b, ok := out.(types.Bool)
	if !ok {
		return false, fmt.Errorf("the expression gave %s, not a bool", out.Type())
	}
	return bool(b), nil
}

// BudgetError is a guard stopped by one of its budgets (its cost limit,
// the guards' time limit) or not evaluated because what it would see is
// over a size cap. Its message names the budget and what raises it.
type BudgetError struct{ Message string }

func (e *BudgetError) Error() string { return e.Message }

// overBudget reports whether err is a BudgetError.
func overBudget(err error) bool {
	var b *BudgetError
	return errors.As(err, &b)
}

func (g *guardProgram) evalError(ctx context.Context, err error) error {
	var cancelled interpreter.EvalCancelledError
	if errors.As(err, &cancelled) && cancelled.Cause == interpreter.CostLimitExceeded {
		return &BudgetError{Message: fmt.Sprintf("the guard was stopped: it exceeded its cost limit of %d units "+
			"(a fixed limit; work over context and payload is charged by the size of what it copies)", g.costLimit)}
	}
	if errors.Is(err, interpreter.InterruptError{}) || ctx.Err() != nil {
		var b *BudgetError
		if errors.As(context.Cause(ctx), &b) {
			return b
		}
		return fmt.Errorf("the guard was stopped: %w", context.Cause(ctx))
	}
	return err
}

// guardCtx bounds a batch of guard evaluations in time (their cost limit
// bounds each in steps); past it they stop with a BudgetError naming the
// limit and its setting.
func guardCtx(ctx context.Context, l Limits) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(ctx, l.GuardTimeout, &BudgetError{Message: fmt.Sprintf(
		"the guard was stopped: the guards ran out of their time limit of %s (setting %s)", l.GuardTimeout, settingGuardTimeout)})
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
		b.WriteString(truncate(display(out), maxRenderedPart))
	}
	return b.String()
}

// truncate cuts s to at most n bytes (on a rune boundary), marking the cut.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
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
