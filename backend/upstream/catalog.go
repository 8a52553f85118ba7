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
	// TTLs are the ttlMs each list's result gave (its first page's); nil
	// where none was given. The persisted catalog keeps them.
	TTLs ListTTLs `json:"ttls"`
}

// ListTTLs are the ttlMs of a server's lists, in milliseconds.
type ListTTLs struct {
	Tools             *int64 `json:"tools,omitempty"`
	Resources         *int64 `json:"resources,omitempty"`
	ResourceTemplates *int64 `json:"resourceTemplates,omitempty"`
	Prompts           *int64 `json:"prompts,omitempty"`
}

// maxListPages stops a server whose cursors never end from looping forever.
const maxListPages = 1000

// listAll pages through a list method, collecting the raw items under key,
// and the ttlMs of its first page (nil when absent or not a whole number of
// milliseconds from 0).
func listAll(ctx context.Context, c *conn, method, key string) ([]json.RawMessage, *int64, error) {
	var items []json.RawMessage
	var ttl *int64
	cursor := ""
	seen := map[string]bool{}
	for page := 0; page < maxListPages; page++ {
		var params any
		if cursor != "" {
			params = map[string]string{"cursor": cursor}
		}
		raw, err := c.request(ctx, method, params)
		if err != nil {
			return nil, nil, err
		}
		var result map[string]json.RawMessage
		if err := json.Unmarshal(raw, &result); err != nil {
			return nil, nil, fmt.Errorf("%s: malformed result: %w", method, err)
		}
		var pageItems []json.RawMessage
		if r, ok := result[key]; ok && string(r) != "null" {
			if err := json.Unmarshal(r, &pageItems); err != nil {
				return nil, nil, fmt.Errorf("%s: malformed %s: %w", method, key, err)
			}
		}
		if page == 0 {
			var ms int64
			if r, ok := result["ttlMs"]; ok && json.Unmarshal(r, &ms) == nil && ms >= 0 {
				ttl = &ms
			}
		}
		items = append(items, pageItems...)
		cursor = ""
		if r, ok := result["nextCursor"]; ok {
			_ = json.Unmarshal(r, &cursor)
		}
		if cursor == "" {
			return items, ttl, nil
		}
		if seen[cursor] {
			return nil, nil, fmt.Errorf("%s: server repeated cursor %q", method, cursor)
		}
		seen[cursor] = true
	}
	return nil, nil, fmt.Errorf("%s: more than %d pages", method, maxListPages)
}

// catalogItem is implemented by the four item types so one function can
// list and check them all.
type catalogItem[T any] interface {
	*T
	id() string
	setRaw(json.RawMessage)
}

func (t *Tool) id() string                             { return t.Name }
func (t *Tool) setRaw(r json.RawMessage)               { t.Raw = r }
func (r *Resource) id() string                         { return r.URI }
func (r *Resource) setRaw(raw json.RawMessage)         { r.Raw = raw }
func (r *ResourceTemplate) id() string                 { return r.URITemplate }
func (r *ResourceTemplate) setRaw(raw json.RawMessage) { r.Raw = raw }
func (p *Prompt) id() string                           { return p.Name }
func (p *Prompt) setRaw(r json.RawMessage)             { p.Raw = r }

// listItems lists every page of method and decodes the items under key,
// rejecting any without its identifying field (idField, for the message).
func listItems[T any, P catalogItem[T]](ctx context.Context, c *conn, method, key, idField string) ([]T, *int64, error) {
	raws, ttl, err := listAll(ctx, c, method, key)
	if err != nil {
		return nil, nil, err
	}
	out := make([]T, 0, len(raws))
	for _, raw := range raws {
		var v T
		if err := json.Unmarshal(raw, P(&v)); err != nil || P(&v).id() == "" {
			return nil, nil, fmt.Errorf("%s: an entry without a %s: %s", method, idField, truncate(raw, 200))
		}
		P(&v).setRaw(raw)
		out = append(out, v)
	}
	return out, ttl, nil
}

func listTools(ctx context.Context, c *conn) ([]Tool, *int64, error) {
	return listItems[Tool](ctx, c, "tools/list", "tools", "name")
}

func listResources(ctx context.Context, c *conn) ([]Resource, *int64, error) {
	return listItems[Resource](ctx, c, "resources/list", "resources", "uri")
}

func listResourceTemplates(ctx context.Context, c *conn) ([]ResourceTemplate, *int64, error) {
	return listItems[ResourceTemplate](ctx, c, "resources/templates/list", "resourceTemplates", "uriTemplate")
}

func listPrompts(ctx context.Context, c *conn) ([]Prompt, *int64, error) {
	return listItems[Prompt](ctx, c, "prompts/list", "prompts", "name")
}

func truncate(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + "…"
}
