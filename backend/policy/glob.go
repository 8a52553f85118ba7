package policy

import (
	"errors"
	"strings"
	"unicode/utf8"
)

// A glob is a name pattern of the policy file: `*` matches any run of
// characters (slashes and separators included), `?` one character,
// `[abc]`, `[a-z]` and `[!a-z]` one character of (or not of) a class, and
// `\` makes the next character literal. Every other character matches
// itself, case-sensitively. Patterns are checked when the file loads.
type glob struct {
	src string
	// Fast forms: literal, "*", or a literal prefix/suffix around one
	// star; general patterns use match.
	kind           globKind
	prefix, suffix string
}

type globKind uint8

const (
	globGeneral globKind = iota
	globAny              // "*"
	globLiteral          // no metacharacter
	globPrefix           // "lit*"
	globSuffix           // "*lit"
)

// compileGlob checks and prepares a pattern.
func compileGlob(p string) (glob, error) {
	if p == "" {
		return glob{}, errors.New("an empty pattern matches nothing")
	}
	if err := checkGlob(p); err != nil {
		return glob{}, err
	}
	g := glob{src: p, kind: globGeneral}
	meta := strings.IndexAny(p, `*?[\`)
	switch {
	case p == "*" || strings.Trim(p, "*") == "":
		g.kind = globAny
	case meta < 0:
		g.kind, g.prefix = globLiteral, p
	case meta == len(p)-1 && p[meta] == '*':
		g.kind, g.prefix = globPrefix, p[:meta]
	case meta == 0 && p[0] == '*' && !strings.ContainsAny(p[1:], `*?[\`):
		g.kind, g.suffix = globSuffix, p[1:]
	}
	return g, nil
}

// checkGlob reports a malformed class or a trailing backslash.
func checkGlob(p string) error {
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			if i+1 >= len(p) {
				return errors.New(`the pattern ends with "\"; write "\\" for a backslash`)
			}
			i++
		case '[':
			end, err := classEnd(p, i)
			if err != nil {
				return err
			}
			i = end
		case ']':
			return errors.New(`"]" without "[": write "\]" for a literal bracket`)
		}
	}
	return nil
}

// classEnd returns the index of the "]" closing the class at p[i].
func classEnd(p string, i int) (int, error) {
	j := i + 1
	if j < len(p) && (p[j] == '!' || p[j] == '^') {
		j++
	}
	first := j
	for ; j < len(p); j++ {
		switch p[j] {
		case '\\':
			j++
		case ']':
			if j == first {
				return 0, errors.New(`an empty character class "[]"`)
			}
			return j, nil
		case '-':
			if j == first || j+1 >= len(p) || p[j+1] == ']' {
				return 0, errors.New(`a range in a character class needs both ends, as in "[a-z]"`)
			}
		}
	}
	return 0, errors.New(`"[" without its closing "]"`)
}

// Match reports whether s matches the pattern.
func (g *glob) Match(s string) bool {
	switch g.kind {
	case globAny:
		return true
	case globLiteral:
		return s == g.prefix
	case globPrefix:
		return strings.HasPrefix(s, g.prefix)
	case globSuffix:
		return strings.HasSuffix(s, g.suffix)
	}
	return matchGlob(g.src, s)
}

// matchGlob is the classic wildcard match with backtracking to the last
// star: linear in practice, O(len(p)·len(s)) at worst.
func matchGlob(p, s string) bool {
	pi, si := 0, 0
	starP, starS := -1, 0
	for si < len(s) {
		if pi < len(p) {
			switch p[pi] {
			case '*':
				starP, starS = pi, si
				pi++
				continue
			case '?':
				_, w := utf8.DecodeRuneInString(s[si:])
				pi++
				si += w
				continue
			case '[':
				end, _ := classEnd(p, pi)
				r, w := utf8.DecodeRuneInString(s[si:])
				if inClass(p[pi+1:end], r) {
					pi = end + 1
					si += w
					continue
				}
			default:
				c := p[pi]
				lit := pi
				if c == '\\' {
					lit = pi + 1
				}
				r, w := utf8.DecodeRuneInString(p[lit:])
				if sr, sw := utf8.DecodeRuneInString(s[si:]); sr == r {
					pi = lit + w
					si += sw
					continue
				}
			}
		}
		if starP < 0 {
			return false
		}
		// Let the last star take one more character.
		_, w := utf8.DecodeRuneInString(s[starS:])
		starS += w
		pi, si = starP+1, starS
	}
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	return pi == len(p)
}

// inClass reports whether r is in the class body c (between the brackets).
func inClass(c string, r rune) bool {
	negate := false
	if c != "" && (c[0] == '!' || c[0] == '^') {
		negate, c = true, c[1:]
	}
	in := false
	for i := 0; i < len(c); {
		lo, w := utf8.DecodeRuneInString(c[i:])
		if lo == '\\' {
			i += w
			lo, w = utf8.DecodeRuneInString(c[i:])
		}
		i += w
		hi := lo
		if i < len(c) && c[i] == '-' {
			i++
			hi, w = utf8.DecodeRuneInString(c[i:])
			if hi == '\\' {
				i += w
				hi, w = utf8.DecodeRuneInString(c[i:])
			}
			i += w
		}
		if lo <= r && r <= hi {
			in = true
		}
	}
	return in != negate
}

// globs is a list of patterns; it matches if any does.
type globs []glob

func (gs globs) Match(s string) bool {
	for i := range gs {
		if gs[i].Match(s) {
			return true
		}
	}
	return false
}
