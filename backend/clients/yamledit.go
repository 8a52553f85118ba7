package clients

import (
	"context"
	"errors"
	"fmt"

	"github.com/goccy/go-yaml"

	"github.com/mcp-router/mcp-router/backend/config"
)

// setContinueEntry returns Continue's YAML with the item named name in its
// mcpServers list set to item: the first of that name replaced, later ones
// removed, or appended. Other keys and items are kept, in order; YAML
// comments are not (go-yaml's encoder does not carry them through an
// edit), which is why Add writes the router's own block file. An empty
// data makes a new block file.
func setContinueEntry(data []byte, name string, item any) (out []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("the YAML parser failed on this file (%v)", r)
		}
	}()
	var top yaml.MapSlice
	if len(data) > 0 {
		file, err := config.ClientConfigLimits().ParseYAML(context.Background(), data)
		if err != nil {
			return nil, err
		}
		if len(file.Docs) != 1 || file.Docs[0].Body == nil {
			return nil, errors.New("want one YAML document with a mapping at the top")
		}
		if err := yaml.NodeToValue(file.Docs[0].Body, &top, yaml.UseOrderedMap()); err != nil {
			return nil, fmt.Errorf("want a mapping at the top: %w", err)
		}
	} else {
		top = yaml.MapSlice{{Key: "name", Value: name}, {Key: "version", Value: "0.0.1"}, {Key: "schema", Value: "v1"}}
	}
	at := -1
	for i, kv := range top {
		if kv.Key == "mcpServers" {
			if at >= 0 {
				return nil, errors.New(`"mcpServers" appears twice`)
			}
			at = i
		}
	}
	var list []any
	if at >= 0 {
		var ok bool
		if list, ok = top[at].Value.([]any); !ok && top[at].Value != nil {
			return nil, errors.New(`"mcpServers" is not a list`)
		}
	} else {
		top = append(top, yaml.MapItem{Key: "mcpServers"})
		at = len(top) - 1
	}
	replaced := false
	var kept []any
	for _, it := range list {
		if itemName(it) != name {
			kept = append(kept, it)
			continue
		}
		if !replaced {
			kept = append(kept, item)
			replaced = true
		}
	}
	if !replaced {
		kept = append(kept, item)
	}
	top[at].Value = kept
	return yaml.MarshalWithOptions(top, yaml.IndentSequence(true))
}

func itemName(it any) string {
	switch m := it.(type) {
	case yaml.MapSlice:
		for _, kv := range m {
			if kv.Key == "name" {
				s, _ := kv.Value.(string)
				return s
			}
		}
	case map[string]any:
		s, _ := m["name"].(string)
		return s
	}
	return ""
}
