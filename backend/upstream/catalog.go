package upstream

import (
	"context"
	"encoding/json"
	"fmt"
)

// The catalog keeps each item's raw JSON next to the few fields the router
// reads, because mcp-go's typed structs drop schema keywords a proxy must
// forward verbatim.

// Tool is one upstream tool.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Raw         json.RawMessage `json:"raw"`
}

// Resource is one upstream resource.
type Resource struct {
	URI  string          `json:"uri"`
	Name string          `json:"name,omitempty"`
	Raw  json.RawMessage `json:"raw"`
}

// ResourceTemplate is one upstream resource template.
type ResourceTemplate struct {
	URITemplate string          `json:"uriTemplate"`
	Name        string          `json:"name,omitempty"`
	Raw         json.RawMessage `json:"raw"`
}

// Prompt is one upstream prompt.
type Prompt struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Raw         json.RawMessage `json:"raw"`
}

// Catalog is what a server offers.
type Catalog struct {
	Tools             []Tool             `json:"tools"`
	Resources         []Resource         `json:"resources"`
	ResourceTemplates []ResourceTemplate `json:"resourceTemplates"`
	Prompts           []Prompt           `json:"prompts"`
}

// maxListPages stops a server whose cursors never end from looping forever.
const maxListPages = 1000

// listAll pages through a list method, collecting the raw items under key.
func listAll(ctx context.Context, c *conn, method, key string) ([]json.RawMessage, error) {
	var items []json.RawMessage
	cursor := ""
	seen := map[string]bool{}
	for page := 0; page < maxListPages; page++ {
		var params any
		if cursor != "" {
			params = map[string]string{"cursor": cursor}
		}
		raw, err := c.request(ctx, method, params)
		if err != nil {
			return nil, err
		}
		var result map[string]json.RawMessage
		if err := json.Unmarshal(raw, &result); err != nil {
			return nil, fmt.Errorf("%s: malformed result: %w", method, err)
		}
		var pageItems []json.RawMessage
		if r, ok := result[key]; ok && string(r) != "null" {
			if err := json.Unmarshal(r, &pageItems); err != nil {
				return nil, fmt.Errorf("%s: malformed %s: %w", method, key, err)
			}
		}
		items = append(items, pageItems...)
		cursor = ""
		if r, ok := result["nextCursor"]; ok {
			_ = json.Unmarshal(r, &cursor)
		}
		if cursor == "" {
			return items, nil
		}
		if seen[cursor] {
			return nil, fmt.Errorf("%s: server repeated cursor %q", method, cursor)
		}
		seen[cursor] = true
	}
	return nil, fmt.Errorf("%s: more than %d pages", method, maxListPages)
}

func listTools(ctx context.Context, c *conn) ([]Tool, error) {
	raws, err := listAll(ctx, c, "tools/list", "tools")
	if err != nil {
		return nil, err
	}
	out := make([]Tool, 0, len(raws))
	for _, raw := range raws {
		var t Tool
		if err := json.Unmarshal(raw, &t); err != nil || t.Name == "" {
			return nil, fmt.Errorf("tools/list: tool without a name: %s", truncate(raw, 200))
		}
		t.Raw = raw
		out = append(out, t)
	}
	return out, nil
}

func listResources(ctx context.Context, c *conn) ([]Resource, error) {
	raws, err := listAll(ctx, c, "resources/list", "resources")
	if err != nil {
		return nil, err
	}
	out := make([]Resource, 0, len(raws))
	for _, raw := range raws {
		var r Resource
		if err := json.Unmarshal(raw, &r); err != nil || r.URI == "" {
			return nil, fmt.Errorf("resources/list: resource without a uri: %s", truncate(raw, 200))
		}
		r.Raw = raw
		out = append(out, r)
	}
	return out, nil
}

func listResourceTemplates(ctx context.Context, c *conn) ([]ResourceTemplate, error) {
	raws, err := listAll(ctx, c, "resources/templates/list", "resourceTemplates")
	if err != nil {
		return nil, err
	}
	out := make([]ResourceTemplate, 0, len(raws))
	for _, raw := range raws {
		var r ResourceTemplate
		if err := json.Unmarshal(raw, &r); err != nil || r.URITemplate == "" {
			return nil, fmt.Errorf("resources/templates/list: template without a uriTemplate: %s", truncate(raw, 200))
		}
		r.Raw = raw
		out = append(out, r)
	}
	return out, nil
}

func listPrompts(ctx context.Context, c *conn) ([]Prompt, error) {
	raws, err := listAll(ctx, c, "prompts/list", "prompts")
	if err != nil {
		return nil, err
	}
	out := make([]Prompt, 0, len(raws))
	for _, raw := range raws {
		var p Prompt
		if err := json.Unmarshal(raw, &p); err != nil || p.Name == "" {
			return nil, fmt.Errorf("prompts/list: prompt without a name: %s", truncate(raw, 200))
		}
		p.Raw = raw
		out = append(out, p)
	}
	return out, nil
}

func truncate(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + "…"
}
