package catalog

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/pmezard/go-difflib/difflib"
)

// pinnedFields are the parts of a tool's definition that are pinned: what a
// model reads and what it sends. A change to any of them is a change a
// person may want to see before the tool is used again.
var pinnedFields = []string{"name", "description", "inputSchema", "outputSchema", "annotations"}

// Definition is a tool's pinned definition: its pinned fields as indented
// JSON with sorted keys (the form diffs are made of), and the SHA-256 of
// that text.
type Definition struct {
	JSON string
	Hash string
}

// DefinitionOf canonicalizes a tool's raw JSON. Numbers keep their text
// (json.Number), object keys are sorted (encoding/json sorts map keys), so
// the same definition sent twice, in any key order, hashes alike.
func DefinitionOf(raw json.RawMessage) (Definition, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var all map[string]any
	if err := dec.Decode(&all); err != nil {
		return Definition{}, fmt.Errorf("tool definition: %w", err)
	}
	picked := make(map[string]any, len(pinnedFields))
	for _, f := range pinnedFields {
		if v, ok := all[f]; ok && v != nil {
			picked[f] = v
		}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(picked); err != nil {
		return Definition{}, fmt.Errorf("tool definition: %w", err)
	}
	sum := sha256.Sum256(b.Bytes())
	return Definition{JSON: b.String(), Hash: hex.EncodeToString(sum[:])}, nil
}

// Diff is a unified diff of two definitions' JSON, old first.
func Diff(oldJSON, newJSON, oldName, newName string) string {
	d, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: difflib.SplitLines(ensureNewline(oldJSON)), B: difflib.SplitLines(ensureNewline(newJSON)),
		FromFile: oldName, ToFile: newName, Context: 3,
	})
	if err != nil { // only a writer's error, and this one is a strings.Builder
		return ""
	}
	return d
}

func ensureNewline(s string) string {
	if strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}
