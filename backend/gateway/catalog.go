package gateway

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-router/mcp-router/backend/gate"
	"github.com/mcp-router/mcp-router/backend/pipeline"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/upstream"
)

// snapshot is what the running upstreams offer, read once per rebuild.
// A gated server is in it even while down, with the tools it last had (as
// persisted, else as this process saw them): its clients must still reach
// it, to be told to activate again.
type snapshot struct {
	servers  []string // running or gated, sorted
	defs     map[string]spec.Server
	catalogs map[string]upstream.Catalog
}

// snapshot reads the upstreams; callers hold rebuildMu (it updates
// g.remembered).
func (g *Gateway) snapshot() snapshot {
	s := snapshot{defs: map[string]spec.Server{}, catalogs: map[string]upstream.Catalog{}}
	known := map[string]bool{}
	for _, st := range g.ups.Statuses() {
		known[st.Name] = true
		def, err := g.ups.Definition(st.Name)
		if err != nil {
			continue
		}
		gated := def.Enabled && def.Gate.Enabled
		if !gated {
			delete(g.remembered, st.Name)
		}
		if st.State != upstream.StateRunning {
			switch {
			case gated:
				// Seed 000's [locked, disconnected]: the overview (the
				// activate tool's, the tools a client is told to unlock)
				// comes from the persisted catalog while the server is
				// stopped — at launch this process remembers nothing yet.
				cat := upstream.Catalog{Tools: g.remembered[st.Name]}
				if g.o.Persisted != nil {
					if p, ok := g.o.Persisted(st.Name); ok {
						cat = p
					}
				}
				s.servers = append(s.servers, st.Name)
				s.defs[st.Name], s.catalogs[st.Name] = def, cat
			case def.Enabled && def.IsLazy() && g.o.Persisted != nil:
				// A lazy server is listed from the persisted catalog while
				// stopped; a call starts it (upstream.Service.Request).
				if cat, ok := g.o.Persisted(st.Name); ok {
					s.servers = append(s.servers, st.Name)
					s.defs[st.Name], s.catalogs[st.Name] = def, cat
				}
			}
			continue
		}
		cat, err := g.ups.Catalog(st.Name)
		if err != nil {
			continue
		}
		if gated {
			g.remembered[st.Name] = cat.Tools
		}
		s.servers = append(s.servers, st.Name)
		s.defs[st.Name], s.catalogs[st.Name] = def, cat
	}
	for name := range g.remembered {
		if !known[name] {
			delete(g.remembered, name)
		}
	}
	sort.Strings(s.servers)
	return s
}

// rebuild recomputes names and routes from the upstream catalogs and
// publishes each list that changed (which notifies connected clients).
func (g *Gateway) rebuild() {
	// One rebuild at a time, so an older catalog never overwrites a newer one.
	g.rebuildMu.Lock()
	defer g.rebuildMu.Unlock()
	g.startup.rebuildBegins()
	defer g.startup.rebuildEnds()
	snap := g.snapshot()
	sep := g.o.Separator()
	modes := map[string]spec.PrefixMode{}
	var toolItems, promptItems []upstreamName
	heldItems := map[upstreamName]bool{}
	toolRaw := map[upstreamName]json.RawMessage{}
	promptRaw := map[upstreamName]json.RawMessage{}
	for _, name := range snap.servers {
		def, cat := snap.defs[name], snap.catalogs[name]
		modes[name] = def.PrefixMode
		if def.Gate.Enabled {
			// First among the server's items, so it wins a name clash with
			// an upstream tool of its own called "activate".
			un := upstreamName{name, gate.ActivateItem}
			toolItems = append(toolItems, un)
			toolRaw[un], _ = json.Marshal(def.Gate)
		}
		var held map[string]bool
		if g.o.HeldTools != nil {
			held = g.o.HeldTools(name)
		}
		for _, t := range cat.Tools {
			if !def.ToolEnabled(t.Name) {
				continue
			}
			un := upstreamName{name, t.Name}
			// A held tool is named like the others (so holding it renames
			// no other tool), then left out below.
			toolItems = append(toolItems, un)
			toolRaw[un] = t.Raw
			if held[t.Name] {
				heldItems[un] = true
			}
		}
		for _, p := range cat.Prompts {
			un := upstreamName{name, p.Name}
			promptItems = append(promptItems, un)
			promptRaw[un] = p.Raw
		}
	}
	toolNames, toolCollisions := assignNames("tool", toolItems, modes, sep)
	promptNames, promptCollisions := assignNames("prompt", promptItems, modes, sep)
	withheld := map[string]upstreamName{}
	for final, un := range toolNames {
		if heldItems[un] {
			withheld[final] = un
			delete(toolNames, final)
		}
	}

	gates := map[string]gate.Server{}
	for final, un := range toolNames {
		if un.Item == gate.ActivateItem {
			gates[un.Server] = gate.Server{Gate: snap.defs[un.Server].Gate, Activate: final}
		}
	}
	var tools []server.ServerTool
	var toolList []listed[mcp.Tool]
	taskOnly := map[string]bool{}  // tools mcp-go refuses to call without a task
	taskTools := map[string]bool{} // tools that may run as a task (tasks.go)
	for final, un := range toolNames {
		var t mcp.Tool
		if un.Item == gate.ActivateItem {
			desc := gates[un.Server].Message(un.Server)
			if g := snap.defs[un.Server].Gate; g.HideTools && strings.TrimSpace(g.Message) == "" {
				// Its tools are hidden until activation: the default
				// message says what is behind it (from the persisted
				// catalog while the server is stopped). A message of the
				// server's own is its owner's words, left as written.
				desc += " " + toolOverview(un.Server, snap.defs[un.Server], snap.catalogs[un.Server].Tools) + "."
			}
			t = gate.Tool(final, desc)
		} else {
			var err error
			if t, err = convertTool(toolRaw[un], final); err != nil {
				g.log.WithField("server", un.Server).Warnf("tool %q skipped: %v", un.Item, err)
				delete(toolNames, final)
				continue
			}
		}
		tools = append(tools, server.ServerTool{Tool: t, Handler: g.callTool(un)})
		toolList = append(toolList, listed[mcp.Tool]{pipeline.ListItem{Server: un.Server, Item: un.Item, Name: final}, t})
		if t.Execution != nil && t.Execution.TaskSupport == mcp.TaskSupportRequired {
			taskOnly[final] = true
		}
		if t.Execution != nil && (t.Execution.TaskSupport == mcp.TaskSupportRequired || t.Execution.TaskSupport == mcp.TaskSupportOptional) {
			taskTools[final] = true
		}
	}
	abilities, abilitySig := g.publishAbilities(snap, toolNames, taskOnly, &tools, &toolList)
	// The router's own tools (a search profile's): mcp-go routes them; no
	// list holds them but a search profile's (discovery.go).
	tools = append(tools, g.routerToolHandlers(toolNames)...)
	lockable := g.lockableServers(snap, sep, toolNames, &tools, &toolList)
	var prompts []server.ServerPrompt
	var promptList []listed[mcp.Prompt]
	for final, un := range promptNames {
		var p mcp.Prompt
		if err := json.Unmarshal(promptRaw[un], &p); err != nil {
			g.log.WithField("server", un.Server).Warnf("prompt %q skipped: %v", un.Item, err)
			delete(promptNames, final)
			continue
		}
		p.Name = final
		prompts = append(prompts, server.ServerPrompt{Prompt: p, Handler: g.getPrompt(un)})
		promptList = append(promptList, listed[mcp.Prompt]{pipeline.ListItem{Server: un.Server, Item: un.Item, Name: final}, p})
	}

	// Resource URIs are global names already: they stay as they are, so
	// links inside tool results keep working. The first server (by name)
	// that offers a URI, or a URI template, serves it; the other's is a
	// collision, recorded as one.
	resourceOwners := map[string]string{}
	templateOwners := map[string]string{}
	var resources []server.ServerResource
	var templates []server.ServerResourceTemplate
	var resourceList []listed[mcp.Resource]
	var templateList []listed[mcp.ResourceTemplate]
	var resourceCollisions, templateCollisions []Collision
	var templateRoutes []templateRoute
	for _, name := range snap.servers {
		for _, r := range snap.catalogs[name].Resources {
			if owner, taken := resourceOwners[r.URI]; taken {
				resourceCollisions = append(resourceCollisions, Collision{Kind: "resource", Name: r.URI, Winner: owner, Loser: name, Item: r.URI})
				continue
			}
			var res mcp.Resource
			if err := json.Unmarshal(r.Raw, &res); err != nil {
				continue
			}
			resourceOwners[r.URI] = name
			resources = append(resources, server.ServerResource{Resource: res, Handler: g.readResource(name)})
			resourceList = append(resourceList, listed[mcp.Resource]{pipeline.ListItem{Server: name, Item: r.URI, Name: r.URI}, res})
		}
		for _, t := range snap.catalogs[name].ResourceTemplates {
			if owner, taken := templateOwners[t.URITemplate]; taken {
				templateCollisions = append(templateCollisions, Collision{Kind: "template", Name: t.URITemplate, Winner: owner, Loser: name, Item: t.URITemplate})
				continue
			}
			var tmpl mcp.ResourceTemplate
			if err := json.Unmarshal(t.Raw, &tmpl); err != nil || tmpl.URITemplate == nil {
				continue
			}
			templateOwners[t.URITemplate] = name
			templateRoutes = append(templateRoutes, templateRoute{template: tmpl.URITemplate, server: name})
			templates = append(templates, server.ServerResourceTemplate{Template: tmpl, Handler: server.ResourceTemplateHandlerFunc(g.readResource(name))})
			templateList = append(templateList, listed[mcp.ResourceTemplate]{pipeline.ListItem{Server: name, Item: t.URITemplate, Name: t.URITemplate}, tmpl})
		}
	}

	g.gate.Publish(gates)
	g.gate.PublishLockable(lockable)
	g.mu.Lock()
	oldCatalog := g.catalog
	g.tools, g.prompts, g.taskOnly, g.taskTools, g.abilities = toolNames, promptNames, taskOnly, taskTools, abilities
	g.withheld, g.withheldItems = withheld, heldItems
	g.resources, g.templates, g.templateRoutes = resourceOwners, templateOwners, templateRoutes
	g.catalog = newCatalogLists(toolList, promptList, resourceList, templateList)
	collisions := slices.Concat(toolCollisions, promptCollisions, resourceCollisions, templateCollisions)
	g.collisions = collisions
	changed := map[string]bool{
		"tools":     g.swapSignature("tools", signTools(toolNames, toolRaw, sep)+abilitySig+signWithheld(withheld)),
		"prompts":   g.swapSignature("prompts", signPrompts(promptNames, promptRaw)),
		"resources": g.swapSignature("resources", signResources(snap)),
	}
	g.mu.Unlock()

	for _, c := range collisions {
		if c.Renamed == "" { // a URI or URI template: not renamed, served by the winner alone
			g.log.Warnf("name collision: %s %q of %s kept by %s; %s's is not offered", c.Kind, c.Name, c.Loser, c.Winner, c.Loser)
			continue
		}
		g.log.Warnf("name collision: %s %q of %s kept by %s; %s's is named %q", c.Kind, c.Name, c.Loser, c.Winner, c.Loser, c.Renamed)
	}
	if listeners := g.listChangeStreams(); len(listeners) > 0 {
		// Before publishing: the broadcast must find each stream's due.
		g.oweListChanges(listeners, oldCatalog, g.listsNow(), changed)
	}
	if changed["tools"] {
		g.srv.SetTools(tools...)
	}
	if changed["prompts"] {
		g.srv.SetPrompts(prompts...)
	}
	if changed["resources"] {
		g.srv.SetResourceTemplates(templates...)
		g.srv.SetResources(resources...)
	}
}

// swapSignature records sig for list and reports whether it differs.
// Callers hold g.mu.
func (g *Gateway) swapSignature(list, sig string) bool {
	if g.published[list] == sig {
		return false
	}
	g.published[list] = sig
	return true
}

// convertTool renames an upstream tool, keeping its schemas byte for byte
// (mcp-go's typed schema would drop keywords it does not model).
func convertTool(raw json.RawMessage, name string) (mcp.Tool, error) {
	var t mcp.Tool
	if err := json.Unmarshal(raw, &t); err != nil {
		return t, err
	}
	var schemas struct {
		Input  json.RawMessage `json:"inputSchema"`
		Output json.RawMessage `json:"outputSchema"`
	}
	if err := json.Unmarshal(raw, &schemas); err != nil {
		return t, err
	}
	t.Name = name
	t.InputSchema, t.OutputSchema = mcp.ToolInputSchema{}, mcp.ToolOutputSchema{}
	t.RawInputSchema = schemas.Input
	if len(t.RawInputSchema) == 0 || string(t.RawInputSchema) == "null" {
		t.RawInputSchema = json.RawMessage(`{"type":"object"}`)
	}
	if len(schemas.Output) > 0 && string(schemas.Output) != "null" {
		t.RawOutputSchema = schemas.Output
	}
	// mcp-go panics when publishing a tool with bad x-mcp-header
	// annotations; one odd upstream must not take the router down.
	if err := mcp.ValidateParamHeaderAnnotations(&t); err != nil {
		return t, fmt.Errorf("invalid x-mcp-header annotations: %w", err)
	}
	return t, nil
}

func hashOf(parts ...[]byte) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write(p)
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

func signTools(names map[string]upstreamName, raw map[upstreamName]json.RawMessage, sep string) string {
	keys := sortedKeys(names)
	parts := [][]byte{[]byte(sep)}
	for _, k := range keys {
		parts = append(parts, []byte(k), []byte(names[k].Server), raw[names[k]])
	}
	return hashOf(parts...)
}

func signPrompts(names map[string]upstreamName, raw map[upstreamName]json.RawMessage) string {
	keys := sortedKeys(names)
	var parts [][]byte
	for _, k := range keys {
		parts = append(parts, []byte(k), []byte(names[k].Server), raw[names[k]])
	}
	return hashOf(parts...)
}

func signResources(s snapshot) string {
	var parts [][]byte
	for _, name := range s.servers {
		parts = append(parts, []byte(name))
		for _, r := range s.catalogs[name].Resources {
			parts = append(parts, r.Raw)
		}
		for _, t := range s.catalogs[name].ResourceTemplates {
			parts = append(parts, t.Raw)
		}
	}
	return hashOf(parts...)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// signWithheld: a tool newly held or released changes what a call of it
// answers, even when the listed tools are the same.
func signWithheld(withheld map[string]upstreamName) string {
	if len(withheld) == 0 {
		return ""
	}
	var parts [][]byte
	for _, k := range sortedKeys(withheld) {
		parts = append(parts, []byte(k))
	}
	return hashOf(parts...)
}

// withheldTool returns the tool a client-facing name would reach were it
// not held.
func (g *Gateway) withheldTool(name string) (upstreamName, bool) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	un, ok := g.withheld[name]
	return un, ok
}

// isWithheld reports whether server's tool item is held.
func (g *Gateway) isWithheld(server, item string) bool {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.withheldItems[upstreamName{server, item}]
}
