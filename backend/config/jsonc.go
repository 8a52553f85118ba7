package config

import (
	"bytes"
	"encoding/json"

	"github.com/tailscale/hujson"
)

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// standardJSON turns VS Code's JSON-with-comments into plain JSON with the
// same byte offsets (hujson blanks comments and trailing commas with
// spaces), so error positions still point into the user's file. A UTF-8 BOM
// from Windows editors is blanked the same way. Input hujson cannot parse is
// returned as is, for encoding/json to report with its position.
func standardJSON(data []byte) []byte {
	out := bytes.Clone(data)
	if bytes.HasPrefix(out, utf8BOM) {
		copy(out, "   ")
	}
	if json.Valid(out) {
		return out // plain JSON: no need for hujson's tree of it
	}
	if std, err := hujson.Standardize(out); err == nil {
		return std
	}
	return out
}

// isSpace reports JSON whitespace.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
