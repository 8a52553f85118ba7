package stategate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// node is JSON decoded with its object keys in order, so a test can hold an
// answer to the seed's key order as well as to its keys and types.
type node struct {
	kind   string // object, array, string, number, bool, null
	keys   []string
	fields map[string]*node
	elems  []*node
	value  any
}

func decodeOrdered(t testing.TB, b []byte) *node {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	n, err := readNode(dec)
	if err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	return n
}

func readNode(dec *json.Decoder) (*node, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch v := tok.(type) {
	case json.Delim:
		switch v {
		case '{':
			n := &node{kind: "object", fields: map[string]*node{}}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k := kt.(string)
				child, err := readNode(dec)
				if err != nil {
					return nil, err
				}
				n.keys = append(n.keys, k)
				n.fields[k] = child
			}
			_, err := dec.Token()
			return n, err
		case '[':
			n := &node{kind: "array"}
			for dec.More() {
				child, err := readNode(dec)
				if err != nil {
					return nil, err
				}
				n.elems = append(n.elems, child)
			}
			_, err := dec.Token()
			return n, err
		}
	case string:
		return &node{kind: "string", value: v}, nil
	case json.Number:
		return &node{kind: "number", value: v}, nil
	case bool:
		return &node{kind: "bool", value: v}, nil
	case nil:
		return &node{kind: "null"}, nil
	}
	return nil, io.ErrUnexpectedEOF
}

// freeForm are members whose content is the user's (a run's context, an
// event's schema): their keys are not the seed's to fix.
var freeForm = map[string]bool{"context": true, "payload_schema": true, "payload": true}

// identity keys match an answer's array element to the seed's.
var identity = []string{"event_name", "guard_name", "type", "to_state"}

// sameShape holds got to want's shape: the same kind everywhere, objects
// with exactly want's keys in want's order, and each of want's array
// elements matched (by an identity key, else by position) in got's array.
func sameShape(t *testing.T, path string, want, got *node) {
	t.Helper()
	if got == nil {
		t.Errorf("%s: missing", path)
		return
	}
	if want.kind != got.kind {
		t.Errorf("%s: %s, want %s", path, got.kind, want.kind)
		return
	}
	switch want.kind {
	case "object":
		if fmt.Sprint(want.keys) != fmt.Sprint(got.keys) {
			t.Errorf("%s: keys %v, want %v (in that order)", path, got.keys, want.keys)
		}
		for _, k := range want.keys {
			if freeForm[k] {
				if got.fields[k] == nil || got.fields[k].kind != want.fields[k].kind {
					t.Errorf("%s.%s: want an %s", path, k, want.fields[k].kind)
				}
				continue
			}
			sameShape(t, path+"."+k, want.fields[k], got.fields[k])
		}
	case "array":
		if len(want.elems) > 0 && want.elems[0].kind != "object" && want.elems[0].kind != "array" {
			for i, ge := range got.elems {
				if ge.kind != want.elems[0].kind {
					t.Errorf("%s[%d]: %s, want %s", path, i, ge.kind, want.elems[0].kind)
				}
			}
			return
		}
		for i, we := range want.elems {
			ge := matchElem(we, got.elems, i)
			sameShape(t, fmt.Sprintf("%s[%d]", path, i), we, ge)
		}
	}
}

func matchElem(want *node, got []*node, i int) *node {
	if want.kind == "object" {
		for _, k := range identity {
			if id, ok := want.fields[k]; ok {
				for _, g := range got {
					if g.kind == "object" && g.fields[k] != nil && g.fields[k].value == id.value {
						return g
					}
				}
				return nil
			}
		}
	}
	if i < len(got) {
		return got[i]
	}
	return nil
}

func seedExample(t *testing.T, name string) *node {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "seed", name))
	if err != nil {
		t.Fatal(err)
	}
	return decodeOrdered(t, b)
}
