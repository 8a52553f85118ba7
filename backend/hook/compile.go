package hook

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/dop251/goja"
	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/parser"

	"github.com/mcp-router/mcp-router/backend/filelimit"
	"github.com/mcp-router/mcp-router/backend/store"
)

// MaxScriptBytes is the largest script a hook may have.
const MaxScriptBytes = 1 << 20

// Caps of goja's parser on a script (docs/limits.md): it takes stack
// linear in nesting (100,000 nested brackets: 470 MB) and time quadratic in
// a chain of arrow functions (20,000: 4 s). A bracket closed later does
// not make up for one opened, since telling code from strings and regular
// expressions would need the parser itself: every ( [ { counts.
const (
	MaxScriptBrackets = 10_000
	MaxScriptArrows   = 5_000
)

// ScriptLimits are the caps of a hook script as a file (its size) and of
// its compile (a deadline).
func ScriptLimits() filelimit.Limits {
	return filelimit.Limits{What: "hook script", MaxBytes: MaxScriptBytes}.WithDefaults()
}

// checkShape refuses a script past the brackets or arrows caps, at the
// one that passes it, before goja's parser sees it.
func checkShape(script string) error {
	brackets, arrows := 0, 0
	for i := 0; i < len(script); i++ {
		switch script[i] {
		case '(', '[', '{':
			if brackets++; brackets > MaxScriptBrackets {
				return shapeError(script, i, fmt.Sprintf("more than %d opening brackets, the cap of a hook script (a fixed cap, docs/limits.md)", MaxScriptBrackets))
			}
		case '=':
			if i+1 < len(script) && script[i+1] == '>' {
				if arrows++; arrows > MaxScriptArrows {
					return shapeError(script, i, fmt.Sprintf("more than %d arrow functions (=>), the cap of a hook script (a fixed cap, docs/limits.md)", MaxScriptArrows))
				}
			}
		}
	}
	return nil
}

func shapeError(script string, off int, msg string) *ScriptError {
	line := 1 + strings.Count(script[:off], "\n")
	col := off - strings.LastIndexByte(script[:off], '\n')
	return &ScriptError{Line: line, Column: col, Message: msg, Cap: true}
}

// The script is a function body: it is wrapped in a function whose only
// parameter is context, so `return` works at top level. The prefix shares the
// script's first line, so line numbers need no correction; columns on line 1
// are shifted by len(wrapPrefix).
const (
	wrapPrefix = "(function (context) {"
	wrapSuffix = "\n})"
)

// ScriptError is a script that does not compile. Line and Column are 1-based
// and refer to the user's script.
type ScriptError struct {
	Line, Column int
	Message      string
	// Cap: the script passes a cap of docs/limits.md, not a syntax rule.
	Cap bool
}

func (e *ScriptError) Error() string {
	if e.Cap {
		if e.Line == 0 {
			return "refused: " + e.Message
		}
		return fmt.Sprintf("refused at line %d, column %d: %s", e.Line, e.Column, e.Message)
	}
	if e.Line == 0 {
		return "syntax error: " + e.Message
	}
	return fmt.Sprintf("syntax error at line %d, column %d: %s", e.Line, e.Column, e.Message)
}

// Unwrap makes a ScriptError an invalid-input error for callers that test
// with errors.Is(err, store.ErrInvalid).
func (e *ScriptError) Unwrap() error { return store.ErrInvalid }

func scriptPos(line, col int) (int, int) {
	if line == 1 {
		col -= len(wrapPrefix)
		if col < 1 {
			col = 1
		}
	}
	return line, col
}

// posError places an error found in the wrapped source in the user's
// script; an error in the closing wrapper means the script ended too early.
func posError(script string, line, col int, msg string) *ScriptError {
	lines := strings.Split(script, "\n")
	if line > len(lines) {
		last := lines[len(lines)-1]
		return &ScriptError{Line: len(lines), Column: len(last) + 1, Message: "unexpected end of script (unclosed bracket?)"}
	}
	l, c := scriptPos(line, col)
	return &ScriptError{Line: l, Column: c, Message: msg}
}

// Validate checks a script's size and syntax without running it.
func Validate(script string) error {
	_, err := compile("hook", script)
	return err
}

// compile parses the script as a function body and compiles it once; the
// resulting Program is shared by every runtime of the hook.
func compile(name, script string) (p *goja.Program, err error) {
	// A stored script that makes goja panic must be a broken hook, not a
	// router that crashes at every start.
	defer func() {
		if r := recover(); r != nil {
			p, err = nil, &ScriptError{Message: fmt.Sprintf("the script could not be compiled (%v)", r)}
		}
	}()
	if len(script) > MaxScriptBytes {
		return nil, fmt.Errorf("%w: script is %d bytes; the limit is %d (1 MB)", store.ErrInvalid, len(script), MaxScriptBytes)
	}
	if err := checkShape(script); err != nil {
		return nil, err
	}
	src := wrapPrefix + script + wrapSuffix
	// Within the compile deadline: a script that still costs the parser
	// too much is an error, and the router's start goes on.
	prog, err := filelimit.Within(context.Background(), ScriptLimits(), func(context.Context) (*ast.Program, error) {
		return parser.ParseFile(nil, name, src, 0)
	})
	var le *filelimit.Error
	if errors.As(err, &le) {
		return nil, &ScriptError{Message: le.Message, Cap: true}
	}
	if err != nil {
		var list parser.ErrorList
		var one *parser.Error
		switch {
		case errors.As(err, &list) && len(list) > 0:
			one = list[0]
		case errors.As(err, &one):
		default:
			return nil, &ScriptError{Message: err.Error()}
		}
		return nil, posError(script, one.Position.Line, one.Position.Column, one.Message)
	}
	// A body like `}); evil(); (function(){` parses as several statements:
	// the script must be exactly one function body.
	if len(prog.Body) != 1 {
		return nil, &ScriptError{Message: "unbalanced braces: the script must be one function body"}
	}
	es, ok := prog.Body[0].(*ast.ExpressionStatement)
	if !ok {
		return nil, &ScriptError{Message: "unbalanced braces: the script must be one function body"}
	}
	if _, ok := es.Expression.(*ast.FunctionLiteral); !ok {
		return nil, &ScriptError{Message: "unbalanced braces: the script must be one function body"}
	}
	p, err = goja.CompileAST(prog, false)
	if err != nil {
		var ce *goja.CompilerSyntaxError
		if errors.As(err, &ce) && ce.File != nil {
			pos := ce.File.Position(ce.Offset)
			return nil, posError(script, pos.Line, pos.Column, ce.Message)
		}
		return nil, &ScriptError{Message: strings.TrimSpace(err.Error())}
	}
	return p, nil
}
