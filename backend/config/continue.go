package config

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/goccy/go-yaml"

	"github.com/mcp-router/mcp-router/backend/spec"
)

// ParseContinueConfig reads the servers of a Continue config.yaml or of a
// block file (.continue/mcpServers/*.yaml): the list under "mcpServers",
// each item named by its "name". Like ParseClientConfig it is all or
// nothing and reports every bad item; the YAML is parsed within the caps of
// ClientConfigLimits (size, nesting, alias expansion).
func ParseContinueConfig(data []byte) ([]spec.Server, error) {
	top, err := decodeContinue(data)
	if err != nil {
		return nil, err
	}
	raw, ok := top["mcpServers"]
	if !ok {
		return nil, fmt.Errorf("no %q list at the top level", "mcpServers")
	}
	items, ok := raw.([]any)
	if !ok {
		return nil, fmt.Errorf("%q must be a list of servers", "mcpServers")
	}
	var servers []spec.Server
	var errs []error
	seen := map[string]bool{}
	for i, it := range items {
		obj, ok := it.(map[string]any)
		name, _ := obj["name"].(string)
		if !ok || name == "" {
			errs = append(errs, fmt.Errorf("mcpServers item %d: %w: want a mapping with a name", i+1, spec.ErrInvalid))
			continue
		}
		b, err := json.Marshal(obj)
		if err != nil {
			errs = append(errs, fmt.Errorf("mcpServers item %d (%s): %w", i+1, name, err))
			continue
		}
		s, err := parseEntry(ClientContinue, member{key: name, raw: b})
		if err == nil && seen[s.Name] {
			err = fmt.Errorf("%w: server %q is defined more than once", spec.ErrInvalid, s.Name)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("mcpServers item %d: %w", i+1, err))
			continue
		}
		seen[s.Name] = true
		servers = append(servers, s)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	sort.Slice(servers, func(i, j int) bool { return servers[i].Name < servers[j].Name })
	return servers, nil
}

// decodeContinue parses a Continue YAML file to its top-level mapping, the
// caps checked before go-yaml's parser and decoder run.
func decodeContinue(data []byte) (top map[string]any, err error) {
	defer func() {
		if r := recover(); r != nil {
			top, err = nil, fmt.Errorf("the YAML parser failed on this file (%v)", r)
		}
	}()
	file, err := ClientConfigLimits().ParseYAML(context.Background(), data)
	if err != nil {
		return nil, err
	}
	if len(file.Docs) != 1 || file.Docs[0].Body == nil {
		return nil, errors.New("want one YAML document with a mapping at the top")
	}
	if err := yaml.NodeToValue(file.Docs[0].Body, &top); err != nil {
		return nil, fmt.Errorf("want a mapping at the top: %w", err)
	}
	return top, nil
}
