package clients

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/tailscale/hujson"
)

// setJSONEntry returns data with section[name] = value: the first member of
// that name replaced, any later one removed, or a new member appended
// after the others with their indentation; the section is added to the top
// object if missing. Everything else (other keys, comments, trailing
// commas, spacing) is kept byte for byte. data is JSON or JSONC; it must
// parse, and its top value and section must be objects.
func setJSONEntry(data []byte, section, name string, value any) ([]byte, error) {
	root, err := hujson.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("not valid JSON (comments and trailing commas allowed): %w", err)
	}
	top, ok := root.Value.(*hujson.Object)
	if !ok {
		return nil, errors.New("the top value is not a JSON object")
	}
	topIndent, step := memberIndent(top, "", "")
	sec, err := findObject(top, section)
	if err != nil {
		return nil, err
	}
	secIndent := topIndent
	if sec == nil {
		empty, _ := hujson.Parse([]byte("{}"))
		appendMember(top, section, empty, topIndent, "")
		sec = top.Members[len(top.Members)-1].Value.Value.(*hujson.Object)
	}
	indent, _ := memberIndent(sec, secIndent, step)
	raw, err := json.MarshalIndent(value, indent, step)
	if err != nil {
		return nil, err
	}
	v, err := hujson.Parse(raw)
	if err != nil {
		return nil, err
	}
	replaced := false
	keep := sec.Members[:0]
	hadTrailingComma := len(sec.Members) > 0 && sec.Members[len(sec.Members)-1].Value.AfterExtra != nil
	for _, m := range sec.Members {
		if memberName(m) != name {
			keep = append(keep, m)
			continue
		}
		if replaced {
			continue // a duplicate: the client would read one of them
		}
		m.Value.Value = v.Value
		keep = append(keep, m)
		replaced = true
	}
	sec.Members = keep
	if n := len(sec.Members); n > 0 && !replaced {
		// Removing the last of the duplicates must not add or drop a
		// trailing comma, which plain JSON forbids.
		last := &sec.Members[n-1].Value
		if hadTrailingComma && last.AfterExtra == nil {
			last.AfterExtra = hujson.Extra{}
		}
	}
	if !replaced {
		appendMember(sec, name, v, indent, secIndent)
	}
	root.UpdateOffsets()
	out := root.Pack()
	if json.Valid(data) && !json.Valid(out) {
		return nil, errors.New("internal error: the edit would turn plain JSON into JSONC")
	}
	return out, nil
}

func memberName(m hujson.ObjectMember) string {
	lit, ok := m.Name.Value.(hujson.Literal)
	if !ok {
		return ""
	}
	return lit.String()
}

// findObject returns the object under key in obj, nil if there is none.
func findObject(obj *hujson.Object, key string) (*hujson.Object, error) {
	var found *hujson.Object
	for _, m := range obj.Members {
		if memberName(m) != key {
			continue
		}
		o, ok := m.Value.Value.(*hujson.Object)
		if !ok {
			return nil, fmt.Errorf("%q is not an object", key)
		}
		if found != nil {
			return nil, fmt.Errorf("%q appears twice at the top level; keep one", key)
		}
		found = o
	}
	return found, nil
}

// memberIndent is the indentation of obj's members, read from the last
// member (after its last newline), and the indent step; an empty object's
// members get outer+step. A file indented with tabs gets a tab step.
func memberIndent(obj *hujson.Object, outer, step string) (string, string) {
	if n := len(obj.Members); n > 0 {
		before := obj.Members[n-1].Name.BeforeExtra
		if i := bytes.LastIndexByte(before, '\n'); i >= 0 {
			ind := string(before[i+1:])
			if step == "" {
				step = "  "
				if bytes.HasPrefix(before[i+1:], []byte("\t")) {
					step = "\t"
				} else if len(ind) > len(outer) && bytes.Count([]byte(ind), []byte(" ")) == len(ind) {
					step = ind[len(outer):]
				}
			}
			return ind, step
		}
	}
	if step == "" {
		step = "  "
	}
	return outer + step, step
}

// appendMember adds name: v as obj's last member on its own line at indent;
// the comments after the last member's comma stay with it, the closing
// brace goes on its own line at outer.
func appendMember(obj *hujson.Object, name string, v hujson.Value, indent, outer string) {
	trailing := false
	if n := len(obj.Members); n > 0 {
		last := &obj.Members[n-1].Value
		trailing = last.AfterExtra != nil
		if !trailing {
			// What follows the last value (a comment on its line) is
			// kept before the new member, after the comma this adds.
			obj.AfterExtra = append(last.AfterExtra, obj.AfterExtra...)
			last.AfterExtra = nil
		}
	}
	// The comments on the last member's line stay on it.
	carried := bytes.TrimRight(obj.AfterExtra, " \t\r\n")
	if bytes.IndexByte(carried, '\n') < 0 && !bytes.Contains(carried, []byte("//")) && !bytes.Contains(carried, []byte("/*")) {
		carried = nil
	}
	lineEnd := "\n"
	if bytes.Contains(obj.AfterExtra, []byte("\r\n")) {
		lineEnd = "\r\n"
	}
	v.BeforeExtra = hujson.Extra(" ")
	v.AfterExtra = nil
	if trailing {
		v.AfterExtra = hujson.Extra{}
	}
	obj.Members = append(obj.Members, hujson.ObjectMember{
		Name:  hujson.Value{BeforeExtra: hujson.Extra(string(carried) + lineEnd + indent), Value: hujson.String(name)},
		Value: v,
	})
	obj.AfterExtra = hujson.Extra(lineEnd + outer)
}
