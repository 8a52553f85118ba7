package gateway

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/mcp-router/mcp-router/backend/gate"
	"github.com/mcp-router/mcp-router/backend/spec"
)

// MaxNameLen is the longest tool or prompt name Claude's and OpenAI's APIs
// accept (^[a-zA-Z0-9_-]{1,64}$).
const MaxNameLen = 64

var (
	validName        = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
	invalidNameChars = regexp.MustCompile(`[^a-zA-Z0-9_-]`)
	// With a separator the user chose to hold a dot, dots are kept: MCP
	// allows them in tool names (the seed's state_gate.get_state), only
	// some model APIs do not.
	validDotted        = regexp.MustCompile(`^[a-zA-Z0-9_.-]{1,64}$`)
	invalidDottedChars = regexp.MustCompile(`[^a-zA-Z0-9_.-]`)
)

// keepsDots reports whether names made with sep keep their dots.
func keepsDots(sep string) bool { return strings.Contains(sep, ".") }

// Collision reports two upstream items that wanted the same client-facing
// name. The first (by server name) keeps it; the other's tool or prompt got
// Renamed, its resource or resource template is not offered (a URI is not
// renamed: links to it would break).
type Collision struct {
	Kind    string `json:"kind"` // "tool", "prompt", "resource" or "template"
	Name    string `json:"name"`
	Winner  string `json:"winner"`  // server that kept Name
	Loser   string `json:"loser"`   // server whose item was renamed
	Item    string `json:"item"`    // the loser's own item name
	Renamed string `json:"renamed"` // the name the loser's item got; "" for a resource or template
}

// upstreamName identifies one item of one server.
type upstreamName struct {
	Server string
	Item   string
}

// PrefixedName is the name a server's item gets when no other item claims
// it: prefixed by the mode, made legal. The UI shows it for a disabled tool.
func PrefixedName(server, item, sep string, mode spec.PrefixMode) string {
	return legalName(prefixed(server, item, sep, mode), keepsDots(sep))
}

// prefixed joins server and item with sep when the mode asks for it.
func prefixed(server, item, sep string, mode spec.PrefixMode) string {
	if mode == spec.PrefixNever {
		return item
	}
	return server + sep + item
}

// legalName makes name valid for ^[a-zA-Z0-9_-]{1,64}$ (with dots also
// allowed when dots is set). A valid name is kept as is. Any other gets its
// illegal characters replaced by '_', is cut to fit, and ends with a hash
// of the original, so the result is stable and two different originals
// never meet ("a.b" and "a:b" both clean to "a_b").
func legalName(name string, dots bool) string {
	valid, invalid := validName, invalidNameChars
	if dots {
		valid, invalid = validDotted, invalidDottedChars
	}
	if valid.MatchString(name) {
		return name
	}
	clean := invalid.ReplaceAllString(name, "_")
	sum := sha256.Sum256([]byte(name))
	tail := "_" + hex.EncodeToString(sum[:])[:8]
	if len(clean)+len(tail) > MaxNameLen {
		clean = clean[:MaxNameLen-len(tail)]
	}
	return clean + tail
}

// assignNames gives every item a unique client-facing name. Items are taken
// in server order (servers sorted by name, items in upstream order), so the
// outcome does not depend on which server connected first. An item whose
// name is taken falls back to the prefixed form, then to a hashed suffix.
func assignNames(kind string, items []upstreamName, modes map[string]spec.PrefixMode, sep string) (map[string]upstreamName, []Collision) {
	sorted := append([]upstreamName(nil), items...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Server < sorted[j].Server })
	names := make(map[string]upstreamName, len(sorted))
	var collisions []Collision
	dots := keepsDots(sep)
	for _, it := range sorted {
		item, mode := it.Item, modes[it.Server]
		if item == gate.ActivateItem { // a gate's activate tool is always prefixed
			item, mode = "activate", spec.PrefixAlways
		}
		want := legalName(prefixed(it.Server, item, sep, mode), dots)
		owner, taken := names[want]
		if !taken {
			names[want] = it
			continue
		}
		alt := legalName(prefixed(it.Server, item, sep, spec.PrefixAlways), dots)
		for n := 2; ; n++ {
			if _, used := names[alt]; !used {
				break
			}
			alt = legalName(fmt.Sprintf("%s%s%s%s%d", it.Server, sep, item, sep, n), dots)
		}
		names[alt] = it
		collisions = append(collisions, Collision{Kind: kind, Name: want, Winner: owner.Server,
			Loser: it.Server, Item: item, Renamed: alt})
	}
	return names, collisions
}
