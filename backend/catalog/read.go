package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/store"
	"github.com/mcp-router/mcp-router/backend/upstream"
)

// Tool is a persisted tool as its server last listed it.
type Tool struct {
	upstream.Tool
	SeenAt time.Time `json:"seenAt"` // when its list was last fetched
	// Hash is the SHA-256 of its pinned fields as listed (DefinitionOf).
	Hash string `json:"hash"`
	// Changed: the listed definition is not the accepted one; Held: and
	// it is withheld from clients (the server's mode is hold).
	Changed bool `json:"changed"`
	Held    bool `json:"held"`
}

// Lists is what a server last offered, as persisted.
type Lists struct {
	Server            string                      `json:"server"`
	Tools             []Tool                      `json:"tools"`
	Resources         []upstream.Resource         `json:"resources"`
	ResourceTemplates []upstream.ResourceTemplate `json:"resourceTemplates"`
	Prompts           []upstream.Prompt           `json:"prompts"`
	// TTLs and SeenAt are per list (ListTools, …): the upstream's ttlMs,
	// and when the list was fetched; a list never fetched has neither.
	TTLs   map[string]int64     `json:"ttls"`
	SeenAt map[string]time.Time `json:"seenAt"`
	// Stale names the lists whose ttlMs had passed when they were read
	// (stale.go): still served, and fetched anew at the server's next start.
	Stale []string `json:"stale,omitempty"`
	// Problems: what could not be kept or read (a list over a cap, a
	// persisted row that does not decode).
	Problems []string `json:"problems,omitempty"`
}

// Change is a tool an upstream changed after it was pinned, or (Accepted)
// a person's accept of one.
type Change struct {
	Server    string    `json:"server"`
	Tool      string    `json:"tool"`
	OldHash   string    `json:"oldHash"`
	NewHash   string    `json:"newHash"`
	Old       string    `json:"old"`  // the pinned definition (indented JSON)
	New       string    `json:"new"`  // the changed one
	Diff      string    `json:"diff"` // unified diff, old to new
	ChangedAt time.Time `json:"changedAt"`
	Held      bool      `json:"held"` // withheld from clients until accepted
	// Accepted and AcceptedBy are set on the Change of an accept.
	Accepted   bool   `json:"accepted,omitempty"`
	AcceptedBy string `json:"acceptedBy,omitempty"`
}

func (ch *Change) fillDiff() {
	ch.Diff = Diff(ch.Old, ch.New, ch.Tool+" (accepted)", ch.Tool+" (now)")
}

// Tools returns the tools server last listed, with their pin state; empty
// when it never listed any. An undecodable row is in Lists' Problems.
func (c *Catalog) Tools(ctx context.Context, server string) ([]Tool, error) {
	l, err := c.Lists(ctx, server)
	return l.Tools, err
}

// Lists returns everything persisted of server. A row that does not decode
// is left out and named in Problems (and logged), never an error: the
// catalog is a cache of what the upstream says.
func (c *Catalog) Lists(ctx context.Context, server string) (Lists, error) {
	out := Lists{Server: server, Tools: []Tool{}, Resources: []upstream.Resource{},
		ResourceTemplates: []upstream.ResourceTemplate{}, Prompts: []upstream.Prompt{},
		TTLs: map[string]int64{}, SeenAt: map[string]time.Time{}}
	rows, err := c.o.Store.Lists(ctx, server)
	if err != nil {
		return out, fmt.Errorf("catalog of %q: %w", server, err)
	}
	c.mu.Lock()
	out.Problems = append(out.Problems, c.problemsOf(server)...)
	pending := c.pending[server]
	held := len(pending) > 0 && c.o.Mode(server) == spec.ToolChangesHold
	changed := make(map[string]bool, len(pending))
	for t := range pending {
		changed[t] = true
	}
	c.mu.Unlock()
	for _, r := range rows {
		var items []json.RawMessage
		if err := json.Unmarshal([]byte(r.Items), &items); err != nil {
			out.Problems = append(out.Problems, c.undecodable(server, r.List, err))
			continue
		}
		var derr error
		switch r.List {
		case ListTools:
			for _, raw := range items {
				var t upstream.Tool
				if err := json.Unmarshal(raw, &t); err != nil || t.Name == "" {
					derr = errors.Join(derr, fmt.Errorf("an item without a name: %.80s", raw))
					continue
				}
				t.Raw = raw
				def, _ := DefinitionOf(raw) // decoded above: cannot fail
				out.Tools = append(out.Tools, Tool{Tool: t, SeenAt: r.SeenAt, Hash: def.Hash,
					Changed: changed[t.Name], Held: held && changed[t.Name]})
			}
		case ListResources:
			out.Resources, derr = decodeItems(items, func(v *upstream.Resource, raw json.RawMessage) bool { v.Raw = raw; return v.URI != "" })
		case ListResourceTemplates:
			out.ResourceTemplates, derr = decodeItems(items, func(v *upstream.ResourceTemplate, raw json.RawMessage) bool {
				v.Raw = raw
				return v.URITemplate != ""
			})
		case ListPrompts:
			out.Prompts, derr = decodeItems(items, func(v *upstream.Prompt, raw json.RawMessage) bool { v.Raw = raw; return v.Name != "" })
		default:
			continue // a list a newer build keeps
		}
		if derr != nil {
			out.Problems = append(out.Problems, c.undecodable(server, r.List, derr))
		}
		out.SeenAt[r.List] = r.SeenAt
		if r.TTLMs != nil {
			out.TTLs[r.List] = *r.TTLMs
		}
	}
	out.Stale = out.staleLists(c.o.Now())
	return out, nil
}

func (c *Catalog) undecodable(server, list string, err error) string {
	msg := fmt.Sprintf("the persisted %s list does not decode (%v); it is left out until the server lists it again", list, err)
	c.o.Logger.WithField("server", server).Warnf("catalog: %s", msg)
	return msg
}

func decodeItems[T any](raws []json.RawMessage, fill func(*T, json.RawMessage) bool) ([]T, error) {
	out := make([]T, 0, len(raws))
	var errs error
	for _, raw := range raws {
		var v T
		if err := json.Unmarshal(raw, &v); err != nil || !fill(&v, raw) {
			errs = errors.Join(errs, fmt.Errorf("an item without its identifying field: %.80s", raw))
			continue
		}
		out = append(out, v)
	}
	return out, errs
}

// Changes returns every tool change waiting for a person, of every server,
// with its diff.
func (c *Catalog) Changes(ctx context.Context) ([]Change, error) {
	pins, err := c.o.Store.Pending(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Change, 0, len(pins))
	for _, p := range pins {
		ch := Change{Server: p.Server, Tool: p.Tool, OldHash: p.PinnedHash, NewHash: p.PendingHash,
			Old: p.PinnedDef, New: p.PendingDef, Held: c.o.Mode(p.Server) == spec.ToolChangesHold}
		if p.ChangedAt != nil {
			ch.ChangedAt = *p.ChangedAt
		}
		ch.fillDiff()
		out = append(out, ch)
	}
	return out, nil
}

// Accept makes the changed definition of server's tool the accepted one,
// so a held tool is served again. hash, when not empty, must be the change
// the person saw (Change.NewHash); by names who accepted, for the audit.
func (c *Catalog) Accept(ctx context.Context, server, tool, hash, by string) (Change, error) {
	before, err := c.o.Store.Pins(ctx, server)
	if err != nil {
		return Change{}, err
	}
	var old store.ToolPin
	for _, p := range before {
		if p.Tool == tool {
			old = p
		}
	}
	pin, err := c.o.Store.Accept(ctx, server, tool, hash, by, c.o.Now())
	if err != nil {
		return Change{}, err
	}
	ch := Change{Server: server, Tool: tool, OldHash: old.PinnedHash, NewHash: pin.PinnedHash, Old: old.PinnedDef, New: pin.PinnedDef,
		Accepted: true, AcceptedBy: by, Held: c.o.Mode(server) == spec.ToolChangesHold}
	if old.ChangedAt != nil {
		ch.ChangedAt = *old.ChangedAt
	}
	ch.fillDiff()
	c.mu.Lock()
	if c.pending[server][tool] == pin.PinnedHash {
		c.setPendingLocked(server, tool, "")
	}
	delete(c.recorded[server], tool)
	c.mu.Unlock()
	if c.o.OnChange != nil {
		c.o.OnChange(ch)
	}
	if c.o.Held != nil {
		c.o.Held()
	}
	return ch, nil
}

// Reload picks up accepts made by another process (the CLI): a change
// waiting here whose definition the store now has pinned is no longer
// waiting. The router calls it when the configuration revision moved.
func (c *Catalog) Reload(ctx context.Context) {
	c.mu.Lock()
	any := false
	for _, tools := range c.pending {
		any = any || len(tools) > 0
	}
	c.mu.Unlock()
	if !any {
		return
	}
	pins, err := c.o.Store.Pins(ctx, "")
	if err != nil {
		c.o.Logger.Warnf("catalog: cannot read the tool pins: %v", err)
		return
	}
	moved := false
	c.mu.Lock()
	for _, p := range pins {
		if h, ok := c.pending[p.Server][p.Tool]; ok && h == p.PinnedHash {
			c.setPendingLocked(p.Server, p.Tool, "")
			delete(c.recorded[p.Server], p.Tool)
			moved = true
		}
	}
	c.mu.Unlock()
	if moved && c.o.Held != nil {
		c.o.Held()
	}
}
