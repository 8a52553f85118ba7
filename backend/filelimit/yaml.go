package filelimit

import (
	"context"
	"io"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/scanner"
	"github.com/goccy/go-yaml/token"
)

// ParseYAML parses YAML within the caps, in three steps, each refusing
// before the next one can cost more than the file is worth:
//
//  1. the size, and the words and indicators, counted over the bytes
//     (MaxNodes): go-yaml's scanner makes every token of a document before
//     any can be looked at;
//  2. the tokens, with their
//     nesting measured from their columns and brackets (MaxDepth), the keys
//     of each block mapping counted (MaxKeys), and a node given at most one
//     anchor and one tag — go-yaml's parser takes memory and time
//     superlinear in nesting and in the keys of one mapping, so this runs
//     before it;
//  3. the tree, walked with every alias counted as the nodes it stands for
//     (memoized per anchor, so a "billion laughs" ladder costs its written
//     size to measure): more than AliasFactor × the nodes written (at least
//     AliasFloor), or MaxNodes, or MaxDepth once expanded, is refused at
//     the alias that passes the cap, before any decoder expands it.
//
// The tree returned has its aliases unexpanded; decoding it (yaml.NodeToValue)
// costs at most the caps.
func (l Limits) ParseYAML(ctx context.Context, src []byte) (*ast.File, error) {
	l = l.WithDefaults()
	if err := l.CheckSize(len(src)); err != nil {
		return nil, err
	}
	if err := l.countWords(src); err != nil {
		return nil, err
	}
	tokens, err := l.scanYAML(ctx, src)
	if err != nil {
		return nil, err
	}
	file, err := parser.Parse(tokens, 0)
	if err != nil {
		return nil, err
	}
	if err := l.checkExpansion(ctx, file); err != nil {
		return nil, err
	}
	return file, nil
}

// yamlIndicator marks the bytes that are a YAML token by themselves (or
// start one).
var yamlIndicator = func() (t [256]bool) {
	for _, c := range []byte("-?:,[]{}#&*!|>'\"%@`") {
		t[c] = true
	}
	return t
}()

// countWords refuses src when its words and indicators — every indicator
// byte, and every run of other bytes between spaces — pass MaxNodes. Every
// token go-yaml's scanner makes starts one of them, so the scanner, which
// makes all of a document's tokens before any can be counted (about 270
// bytes each), never makes more than MaxNodes; the count itself is one
// pass that allocates nothing.
func (l Limits) countWords(src []byte) error {
	if n, at := yamlWords(src, l.MaxNodes); n > l.MaxNodes {
		line, col := lineCol(src, at)
		return refuse(ErrTooManyNodes, line, col, "more than %d YAML words and indicators, the node cap of a %s", l.MaxNodes, l.What)
	}
	return nil
}

// yamlWords counts the words and indicators of src, stopping at the one
// after limit; at is where that one starts.
func yamlWords(src []byte, limit int) (n, at int) {
	inWord := false
	for i, c := range src {
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			inWord = false
			continue
		case yamlIndicator[c]:
			inWord = false
		case inWord:
			continue
		default:
			inWord = true
		}
		if n++; n > limit {
			return n, i
		}
	}
	return n, len(src)
}

// blockLevel is one open block collection of the token scan.
type blockLevel struct {
	col  int
	seq  bool // a block sequence; else a block mapping
	keys int  // a mapping's keys so far
}

// scanYAML makes the tokens and checks each as it comes (with the one
// after it, which says whether it is a key), so a bomb is refused after
// the first tokens past the cap, not after the whole file is scanned.
func (l Limits) scanYAML(ctx context.Context, src []byte) (token.Tokens, error) {
	var s scanner.Scanner
	s.Init(string(src))
	var tokens token.Tokens
	st := structure{l: l}
	checked := 0
	for n := 0; ; n++ {
		if n%checkEvery == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		sub, err := s.Scan()
		eof := err == io.EOF
		tokens.Add(sub...)
		if len(tokens) > l.MaxNodes {
			tk := tokens[l.MaxNodes]
			return nil, refuse(ErrTooManyNodes, line(tk), column(tk), "more than %d YAML tokens, the node cap of a %s", l.MaxNodes, l.What)
		}
		ready := len(tokens) - 1 // the last waits for the token after it
		if eof {
			ready = len(tokens)
		}
		for ; checked < ready; checked++ {
			if err := st.check(tokens, checked); err != nil {
				return nil, err
			}
		}
		if eof {
			return tokens, nil
		}
	}
}

// structure follows the nesting of a token stream.
type structure struct {
	l     Limits
	stack []blockLevel
	flow  int
	// properties of the node to come
	anchors, tags int
}

func (st *structure) check(tokens token.Tokens, i int) error {
	l, tk := st.l, tokens[i]
	switch tk.Type {
	case token.AnchorType:
		st.anchors++
	case token.TagType:
		st.tags++
	case token.CommentType:
	default:
		if tk.Type != token.StringType || i == 0 || tokens[i-1].Type != token.AnchorType {
			st.anchors, st.tags = 0, 0 // not an anchor's name: the node the properties were for
		}
	}
	if st.anchors > 1 || st.tags > 1 {
		// YAML's own rule, checked here because go-yaml's parser takes
		// time superlinear in a run of them.
		return &Error{Line: line(tk), Column: column(tk), Message: "a node has at most one anchor and one tag; this is a second"}
	}
	switch tk.Type {
	case token.DocumentHeaderType, token.DocumentEndType:
		st.stack, st.flow = st.stack[:0], 0
		return nil
	case token.SequenceStartType, token.MappingStartType:
		st.flow++
		if len(st.stack)+st.flow > l.MaxDepth {
			return l.tooDeep(tk)
		}
		return nil
	case token.SequenceEndType, token.MappingEndType:
		if st.flow > 0 {
			st.flow--
		}
		return nil
	}
	if st.flow > 0 {
		return nil // inside [ ] or { }: counted by the brackets
	}
	seq := tk.Type == token.SequenceEntryType
	key := tk.Type == token.MappingKeyType ||
		(tk.Type != token.MappingValueType && tk.Type != token.CommentType && nextType(tokens, i) == token.MappingValueType)
	if !seq && !key {
		return nil
	}
	col := column(tk)
	// Close the collections this one is not inside: those further right,
	// and a sequence at its column when a key comes (a block sequence may
	// sit at its parent key's column).
	for len(st.stack) > 0 {
		top := st.stack[len(st.stack)-1]
		if top.col > col || (top.col == col && top.seq && key) {
			st.stack = st.stack[:len(st.stack)-1]
			continue
		}
		break
	}
	if n := len(st.stack); n > 0 && st.stack[n-1].col == col && st.stack[n-1].seq == seq {
		if top := &st.stack[n-1]; key {
			top.keys++
			if top.keys > l.MaxKeys {
				return refuse(ErrTooManyKeys, line(tk), column(tk), "more than %d keys in one mapping, the key cap of a %s", l.MaxKeys, l.What)
			}
		}
		return nil
	}
	st.stack = append(st.stack, blockLevel{col: col, seq: seq, keys: 1})
	if len(st.stack)+st.flow > l.MaxDepth {
		return l.tooDeep(tk)
	}
	return nil
}

// nextType is the type of the first token after tokens[i] that is not a
// comment.
func nextType(tokens token.Tokens, i int) token.Type {
	for j := i + 1; j < len(tokens); j++ {
		if tokens[j].Type != token.CommentType {
			return tokens[j].Type
		}
	}
	return token.UnknownType
}

func (l Limits) tooDeep(tk *token.Token) *Error {
	return refuse(ErrTooDeep, line(tk), column(tk), "nested more than %d levels deep, the depth cap of a %s", l.MaxDepth, l.What)
}

func line(tk *token.Token) int {
	if tk == nil || tk.Position == nil {
		return 0
	}
	return tk.Position.Line
}

func column(tk *token.Token) int {
	if tk == nil || tk.Position == nil {
		return 0
	}
	return tk.Position.Column
}

// expansion is the size of a node with its aliases expanded.
type expansion struct {
	nodes int
	depth int // collections below and including the node
}

// expander walks a tree counting what its aliases expand to.
type expander struct {
	ctx     context.Context
	l       Limits
	anchors map[string]*expansion // the latest anchor of each name, as YAML resolves an alias
	open    map[string]bool       // anchors being measured: an alias inside its own anchor
	cap     int                   // most nodes the whole document may expand to
	written int
	aliases int
	total   int // nodes so far, expanded
	steps   int
}

func (l Limits) checkExpansion(ctx context.Context, f *ast.File) error {
	written := 0
	for _, d := range f.Docs {
		ast.Walk(visitFunc(func(ast.Node) { written++ }), d)
	}
	limit := max(l.AliasFactor*written, AliasFloor)
	limit = min(limit, l.MaxNodes)
	e := &expander{ctx: ctx, l: l, anchors: map[string]*expansion{}, open: map[string]bool{}, cap: limit, written: written}
	for _, d := range f.Docs {
		if _, err := e.measure(d, 0); err != nil {
			return err
		}
		clear(e.anchors) // anchors do not reach past their document
	}
	return nil
}

type visitFunc func(ast.Node)

func (v visitFunc) Visit(n ast.Node) ast.Visitor {
	v(n)
	return v
}

// measure returns n's expanded size; at is how many collections enclose n.
func (e *expander) measure(n ast.Node, at int) (expansion, error) {
	if n == nil {
		return expansion{}, nil
	}
	e.steps++
	if e.steps%checkEvery == 0 && e.ctx.Err() != nil {
		return expansion{}, e.ctx.Err()
	}
	var out expansion
	add := func(child ast.Node, inside int) error {
		x, err := e.measure(child, inside)
		out.nodes += x.nodes
		out.depth = max(out.depth, x.depth)
		return err
	}
	collection := 0
	switch x := n.(type) {
	case *ast.AliasNode:
		e.aliases++
		name := ""
		if x.Value != nil {
			name = x.Value.GetToken().Value
		}
		a := e.anchors[name]
		if a == nil || e.open[name] {
			// Unknown (the decoder reports it) or inside its own anchor
			// (the decoder leaves it empty): the alias itself.
			return e.count(x, expansion{nodes: 1})
		}
		if at+a.depth > e.l.MaxDepth {
			tk := x.GetToken()
			return expansion{}, refuse(ErrTooDeep, line(tk), column(tk), "this alias nests the document more than %d levels deep once expanded, the depth cap of a %s", e.l.MaxDepth, e.l.What)
		}
		return e.count(x, expansion{nodes: 1 + a.nodes, depth: a.depth})
	case *ast.AnchorNode:
		name := ""
		if x.Name != nil {
			name = x.Name.GetToken().Value
		}
		e.open[name] = true
		v, err := e.measure(x.Value, at)
		delete(e.open, name)
		if err != nil {
			return expansion{}, err
		}
		e.anchors[name] = &v
		e.total++
		return expansion{nodes: 1 + v.nodes, depth: v.depth}, nil
	case *ast.SequenceNode:
		collection = 1
		for _, v := range x.Values {
			if err := add(v, at+1); err != nil {
				return expansion{}, err
			}
		}
	case *ast.MappingValueNode:
		collection = 1
		if err := add(x.Key, at+1); err != nil {
			return expansion{}, err
		}
		if err := add(x.Value, at+1); err != nil {
			return expansion{}, err
		}
	case *ast.MappingNode:
		for _, v := range x.Values {
			if err := add(v, at); err != nil {
				return expansion{}, err
			}
		}
	case *ast.DocumentNode:
		if err := add(x.Body, at); err != nil {
			return expansion{}, err
		}
	case *ast.TagNode:
		if err := add(x.Value, at); err != nil {
			return expansion{}, err
		}
	case *ast.MappingKeyNode:
		if err := add(x.Value, at); err != nil {
			return expansion{}, err
		}
	case *ast.LiteralNode:
		if x.Value != nil {
			if err := add(x.Value, at); err != nil {
				return expansion{}, err
			}
		}
	}
	out.nodes++
	out.depth += collection
	if at+collection > e.l.MaxDepth {
		tk := n.GetToken()
		return expansion{}, refuse(ErrTooDeep, line(tk), column(tk), "nested more than %d levels deep, the depth cap of a %s", e.l.MaxDepth, e.l.What)
	}
	e.total++
	return out, e.over(n)
}

// count adds an alias's expansion to the document's total.
func (e *expander) count(n ast.Node, x expansion) (expansion, error) {
	e.total += x.nodes
	return x, e.over(n)
}

func (e *expander) over(n ast.Node) error {
	if e.total <= e.cap {
		return nil
	}
	tk := n.GetToken()
	if e.aliases == 0 {
		return refuse(ErrTooManyNodes, line(tk), column(tk), "more than %d nodes, the node cap of a %s", e.cap, e.l.What)
	}
	return refuse(ErrAliasExpansion, line(tk), column(tk),
		"aliases expand the document past %d nodes (it has %d as written; the cap of a %s is %d times that, at least %d and at most %d); refused before decoding",
		e.cap, e.written, e.l.What, e.l.AliasFactor, AliasFloor, e.l.MaxNodes)
}
