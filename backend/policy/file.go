package policy

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"

	"github.com/mcp-router/mcp-router/backend/filelimit"
)

// FileName is the policy file's name in the data dir.
const FileName = "policy.yaml"

// MaxFileBytes bounds the policy file.
const MaxFileBytes = 1 << 20

// FileLimits are the caps of a policy file (docs/limits.md): its size,
// nesting, YAML tokens, keys and alias expansion, and a parse deadline.
func FileLimits() filelimit.Limits {
	return filelimit.Limits{What: "policy file", MaxBytes: MaxFileBytes}.WithDefaults()
}

// File is policy.yaml as written (docs/policy.md; docs/policy.schema.json).
type File struct {
	Policies []Rule `yaml:"policies" json:"policies"`
	// Abilities are virtual tools routed to an upstream tool (abilities.go).
	Abilities []AbilitySpec `yaml:"abilities,omitempty" json:"abilities,omitempty"`
}

// Rule is one entry of policies.
type Rule struct {
	Name    string   `yaml:"name" json:"name"`
	Match   *Match   `yaml:"match,omitempty" json:"match,omitempty"`
	Require *Require `yaml:"require,omitempty" json:"require,omitempty"`
	Limit   *Limit   `yaml:"limit,omitempty" json:"limit,omitempty"`
	Servers *Servers `yaml:"servers,omitempty" json:"servers,omitempty"`
	Tools   *Tools   `yaml:"tools,omitempty" json:"tools,omitempty"`
}

// Match says which requests a rule applies to; every list given must
// match (a list matches if any of its globs does). No match: every request.
type Match struct {
	Tools   []string `yaml:"tools,omitempty" json:"tools,omitempty"`
	Servers []string `yaml:"servers,omitempty" json:"servers,omitempty"`
	Clients []string `yaml:"clients,omitempty" json:"clients,omitempty"`
	// Profiles matches the profile a request came through
	// (docs/profiles.md); plain /mcp is the profile "default".
	Profiles []string `yaml:"profiles,omitempty" json:"profiles,omitempty"`
	// Permissions matches abilities by their permission (read, write);
	// a rule with it applies to ability calls only.
	Permissions []string `yaml:"permissions,omitempty" json:"permissions,omitempty"`
}

// Require is what a matching tool call needs.
type Require struct {
	HumanApproval bool   `yaml:"human_approval,omitempty" json:"human_approval,omitempty"`
	LogLevel      string `yaml:"log_level,omitempty" json:"log_level,omitempty"`
	// ApprovalTimeoutSeconds bounds the wait for a person (0: the
	// approvalTimeoutSeconds setting, default 60).
	ApprovalTimeoutSeconds int `yaml:"approval_timeout_seconds,omitempty" json:"approval_timeout_seconds,omitempty"`
}

// DefaultApprovalTimeout is how long a call waits for a person's answer
// when its rule does not say.
const DefaultApprovalTimeout = 60 * time.Second

// Limit is a rate limit on matching tool calls.
type Limit struct {
	RequestsPerMinute int    `yaml:"requests_per_minute" json:"requests_per_minute"`
	Per               string `yaml:"per,omitempty" json:"per,omitempty"`
}

// Servers allows and denies servers by name.
type Servers struct {
	Allow []string `yaml:"allow,omitempty" json:"allow,omitempty"`
	Deny  []string `yaml:"deny,omitempty" json:"deny,omitempty"`
}

// Tools removes tools from lists (and refuses calls to them).
type Tools struct {
	Hide []string `yaml:"hide,omitempty" json:"hide,omitempty"`
}

// Log levels of require.log_level.
const LogAudit = "audit"

// The keys of limit.per.
const (
	PerClient     = "client"
	PerTool       = "tool"
	PerServer     = "server"
	PerClientTool = "client×tool" // the default, when per is omitted
)

// Problem is one error in a policy file, at a line and column (1-based;
// 0 when the problem is not at one place).
type Problem struct {
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	Message string `json:"message"`
}

func (p Problem) String() string {
	if p.Line == 0 {
		return p.Message
	}
	return fmt.Sprintf("%d:%d: %s", p.Line, p.Column, p.Message)
}

// FileError is a policy file that does not load: every problem found.
type FileError struct {
	Path     string    `json:"path,omitempty"`
	Problems []Problem `json:"problems"`
}

func (e *FileError) Error() string {
	var b strings.Builder
	for i, p := range e.Problems {
		if i > 0 {
			b.WriteString("\n")
		}
		if e.Path != "" {
			b.WriteString(e.Path)
			b.WriteString(":")
		}
		b.WriteString(p.String())
	}
	return b.String()
}

// Parse reads and checks a policy file's text within FileLimits. The
// error, if any, is a *FileError with the line and column of each problem.
func Parse(src []byte) (*Policy, error) {
	return ParseContext(context.Background(), src, FileLimits())
}

// ParseContext is Parse within lim, returning as soon as ctx ends (the
// CLI's check on a signal) or lim's parse deadline passes.
func ParseContext(ctx context.Context, src []byte, lim filelimit.Limits) (*Policy, error) {
	lim = lim.WithDefaults()
	p, err := filelimit.Within(ctx, lim, func(ctx context.Context) (*Policy, error) { return parse(ctx, src, lim) })
	if err != nil {
		var fe *FileError
		if !errors.As(err, &fe) {
			fe = &FileError{Problems: []Problem{limitProblem(err)}}
		}
		return nil, fe
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

func parse(ctx context.Context, src []byte, lim filelimit.Limits) (p *Policy, err error) {
	// go-yaml v1.19.2 panics on some malformed input (a tag on a value
	// decoded into a list: testdata/fuzz/FuzzParse); a bad file must be an
	// error, never a crash of the router.
	defer func() {
		if r := recover(); r != nil {
			p, err = nil, &FileError{Problems: []Problem{{Message: fmt.Sprintf("the YAML parser failed on this file (%v); check its tags (!…) and structure", r)}}}
		}
	}()
	sum := sha256.Sum256(src)
	hash := hex.EncodeToString(sum[:])
	// Size, nesting, tokens and alias expansion are checked before the
	// parser and the decoder can spend more than the file is worth.
	file, err := lim.ParseYAML(ctx, src)
	if err != nil {
		return nil, &FileError{Problems: []Problem{limitProblem(err)}}
	}
	var f File
	var body ast.Node
	for _, d := range file.Docs {
		if d.Body == nil {
			continue
		}
		if body != nil {
			return nil, &FileError{Problems: []Problem{nodeProblem(d.Body, "the policy file holds one YAML document; this is a second")}}
		}
		body = d.Body
	}
	if body == nil {
		// An empty file: no rules.
		return compile(f, hash, nil)
	}
	if _, ok := body.(*ast.MappingNode); !ok {
		if _, ok := body.(*ast.MappingValueNode); !ok {
			return nil, &FileError{Problems: []Problem{nodeProblem(body, "the policy file is a mapping with a policies: list")}}
		}
	}
	if err := yaml.NodeToValue(body, &f, yaml.Strict(), yaml.DisallowUnknownField()); err != nil {
		return nil, &FileError{Problems: []Problem{yamlProblem(err)}}
	}
	c := &checker{file: file}
	p, err = compile(f, hash, c)
	if len(c.problems) > 0 {
		sort.SliceStable(c.problems, func(i, j int) bool {
			a, b := c.problems[i], c.problems[j]
			if a.Line != b.Line {
				return a.Line < b.Line
			}
			return a.Column < b.Column
		})
		return nil, &FileError{Problems: c.problems}
	}
	return p, err
}

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

func nodeProblem(n ast.Node, msg string) Problem {
	p := Problem{Message: msg}
	// A mapping is where its first key is (go-yaml's token is the colon).
	switch m := n.(type) {
	case *ast.MappingNode:
		if len(m.Values) > 0 {
			n = m.Values[0].Key
		}
	case *ast.MappingValueNode:
		n = m.Key
	}
	if tk := n.GetToken(); tk != nil && tk.Position != nil {
		p.Line, p.Column = tk.Position.Line, tk.Position.Column
	}
	return p
}

// checker records semantic problems at the node a YAML path names.
type checker struct {
	file     *ast.File
	problems []Problem
}

func (c *checker) fail(path string, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	// The nearest node that exists: the path, or a parent of it.
	for p := path; p != ""; p = parentPath(p) {
		if n := c.at(p); n != nil {
			c.problems = append(c.problems, nodeProblem(n, msg))
			return
		}
	}
	c.problems = append(c.problems, Problem{Message: msg})
}

func (c *checker) at(p string) ast.Node {
	if c.file == nil {
		return nil
	}
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

// parentPath drops the last element of a YAML path ("$.a.b[2]" → "$.a.b").
func parentPath(p string) string {
	if p == "$" {
		return ""
	}
	if strings.HasSuffix(p, "]") {
		if i := strings.LastIndex(p, "["); i > 0 {
			return p[:i]
		}
	}
	if i := strings.LastIndex(p, "."); i > 0 {
		return p[:i]
	}
	return "$"
}
