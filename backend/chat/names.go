package chat

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"
)

// wireNameRe is what both OpenAI's function names and Anthropic's tool
// names accept.
var wireNameRe = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// Names maps the router's tool names to names a provider accepts and back.
// A name the providers accept is kept as it is; another one (a '.'
// separator, other characters, more than 64 characters) gets its bad
// characters replaced and, so that two names never meet, a short hash of
// the original. The mapping is deterministic: the same tool gets the same
// wire name in every request of a conversation.
type Names struct {
	toWire   map[string]string
	fromWire map[string]string
}

// NewNames builds the mapping for a tool list.
func NewNames(names []string) *Names {
	n := &Names{toWire: map[string]string{}, fromWire: map[string]string{}}
	// Names that need no change first, so a mapped name never takes theirs.
	for _, name := range names {
		if wireNameRe.MatchString(name) {
			n.toWire[name], n.fromWire[name] = name, name
		}
	}
	for _, name := range names {
		if _, ok := n.toWire[name]; ok {
			continue
		}
		w := mangle(name)
		for i := 0; n.fromWire[w] != ""; i++ { // a hash collision: practically never
			w = mangle(name + strings.Repeat("#", i+1))
		}
		n.toWire[name], n.fromWire[w] = w, name
	}
	return n
}

func mangle(name string) string {
	var b strings.Builder
	for _, r := range name {
		if r < 128 && (r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	sum := sha256.Sum256([]byte(name))
	suffix := "_" + hex.EncodeToString(sum[:])[:8]
	s := b.String()
	if len(s) > 64-len(suffix) {
		s = s[:64-len(suffix)]
	}
	return s + suffix
}

// Wire is the name sent to the provider.
func (n *Names) Wire(name string) string {
	if n == nil {
		return name
	}
	if w, ok := n.toWire[name]; ok {
		return w
	}
	return name
}

// Router is the router's name of a name the model used; ok is false for a
// name that was never offered.
func (n *Names) Router(wire string) (string, bool) {
	if n == nil {
		return "", false
	}
	name, ok := n.fromWire[wire]
	return name, ok
}
