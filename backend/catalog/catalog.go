// Package catalog is the persisted catalog (issue 27, items 3 and 5): each
// server's last tools, resources, resource templates and prompts lists, kept
// in the store so they can be read while the server is stopped, and each
// tool's pinned definition, so a tool an upstream changes after it was first
// seen is noticed, shown as a diff, and — under toolChanges: hold — withheld
// from clients until a person accepts it.
//
// The upstream service hands it every list it fetched (Record, wired as
// upstream.Options.OnCatalog) before the gateway can publish them; the
// gateway asks HeldTools which tools to leave out.
package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/store"
	"github.com/mcp-router/mcp-router/backend/upstream"
)

// Names of the persisted lists.
const (
	ListTools             = "tools"
	ListResources         = "resources"
	ListResourceTemplates = "resourceTemplates"
	ListPrompts           = "prompts"
)

// Limits cap what one server may make the catalog keep.
type Limits struct {
	MaxItems int   // items of one list (setting catalogMaxItems)
	MaxBytes int64 // bytes of one server's lists together (setting catalogMaxKB)
}

// Options configure New.
type Options struct {
	Store  store.CatalogRepo
	Limits func() Limits
	// Mode is the tool change mode of a server: its own, else the setting.
	Mode   func(server string) spec.ToolChangeMode
	Logger logrus.FieldLogger
	// OnChange receives each change of a tool when it is first seen, and
	// each accept (Change.Accepted), for the request log and the audit.
	OnChange func(Change)
	// Held is called when the set of held tools may have changed other
	// than through Record (an accept, here or by the CLI): the gateway
	// re-lists.
	Held func()
	Now  func() time.Time
}

// Catalog is the persisted catalog of one router.
type Catalog struct {
	o Options

	mu      sync.Mutex
	pending map[string]map[string]string // server → tool → hash of the change waiting
	// recorded: server → tools whose change was recorded (OnChange) since
	// they were last accepted. An upstream changing a tool in a loop, or
	// flipping it back and forth, gets one record per accept: the audit
	// trail is append-only and must not grow at an upstream's will.
	recorded map[string]map[string]bool
	// problems: server → what Record could not keep, by the upstream list
	// it is about ("tools", "resources", "prompts") or "bytes" and "store"
	// (replaced at every Record); a refresh of one list keeps the others'.
	problems map[string]map[string][]string
}

// New builds the catalog and loads the changes waiting from the store; a
// store it cannot read is logged, never fatal (the router still starts).
func New(ctx context.Context, o Options) *Catalog {
	if o.Logger == nil {
		o.Logger = logrus.StandardLogger()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Mode == nil {
		o.Mode = func(string) spec.ToolChangeMode { return spec.ToolChangesNotify }
	}
	c := &Catalog{o: o, pending: map[string]map[string]string{}, problems: map[string]map[string][]string{},
		recorded: map[string]map[string]bool{}}
	pins, err := o.Store.Pending(ctx)
	if err != nil {
		o.Logger.Warnf("catalog: cannot read the tool changes waiting: %v", err)
	}
	for _, p := range pins {
		c.setPendingLocked(p.Server, p.Tool, p.PendingHash)
	}
	return c
}

func (c *Catalog) setPendingLocked(server, tool, hash string) {
	if hash == "" {
		delete(c.pending[server], tool)
		return
	}
	if c.pending[server] == nil {
		c.pending[server] = map[string]string{}
	}
	c.pending[server][tool] = hash
}

// HeldTools returns the tools of server withheld from clients (nil when
// none): those with a change waiting, when the server's mode is hold.
func (c *Catalog) HeldTools(server string) map[string]bool {
	c.mu.Lock()
	n := len(c.pending[server])
	c.mu.Unlock()
	if n == 0 || c.o.Mode(server) != spec.ToolChangesHold {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	held := make(map[string]bool, len(c.pending[server]))
	for t := range c.pending[server] {
		held[t] = true
	}
	return held
}

// Record keeps a server's lists (those named in lists: upstream's "tools",
// "resources" — with the templates — and "prompts") and checks its tools
// against their pins. It never fails: what it cannot keep is logged and
// reported by Lists.
func (c *Catalog) Record(server string, cat upstream.Catalog, lists []string) {
	ctx := context.Background()
	now := c.o.Now()
	lim := c.o.Limits()
	problems := map[string][]string{}
	encoded, sizes := encodeLists(cat)
	var total int64
	for _, n := range sizes {
		total += n
	}
	overBytes := total > lim.MaxBytes
	if overBytes {
		problems["bytes"] = append(problems["bytes"], fmt.Sprintf("its lists are %d bytes together, over the catalog's cap of %d (setting catalogMaxKB): not persisted, not pinned",
			total, lim.MaxBytes))
	}
	counts := map[string]int{ListTools: len(cat.Tools), ListResources: len(cat.Resources),
		ListResourceTemplates: len(cat.ResourceTemplates), ListPrompts: len(cat.Prompts)}
	ttls := map[string]*int64{ListTools: cat.TTLs.Tools, ListResources: cat.TTLs.Resources,
		ListResourceTemplates: cat.TTLs.ResourceTemplates, ListPrompts: cat.TTLs.Prompts}
	w := store.CatalogWrite{Server: server}
	toolsFit := !overBytes
	for _, up := range lists {
		names := []string{up}
		if up == ListResources {
			names = append(names, ListResourceTemplates)
		}
		for _, list := range names {
			if counts[list] > lim.MaxItems {
				problems[up] = append(problems[up], fmt.Sprintf("its %s list has %d items, over the catalog's cap of %d (setting catalogMaxItems): not persisted",
					list, counts[list], lim.MaxItems))
				if list == ListTools {
					toolsFit = false
				}
				continue
			}
			if overBytes {
				continue
			}
			w.Lists = append(w.Lists, store.CatalogList{List: list, Items: encoded[list], TTLMs: ttls[list], SeenAt: now})
		}
	}
	var changes []Change
	pendingNow := map[string]string{}
	toolsListed := contains(lists, ListTools)
	if toolsListed {
		var err error
		changes, pendingNow, err = c.checkPins(ctx, server, cat.Tools, now, lim, toolsFit, &w)
		if err != nil {
			problems[ListTools] = append(problems[ListTools], err.Error())
		}
	}
	if len(w.Lists) > 0 || len(w.Pins) > 0 || len(w.DeletePins) > 0 {
		if err := c.o.Store.Save(ctx, w); err != nil {
			problems["store"] = append(problems["store"], err.Error())
		}
	}
	c.mu.Lock()
	if toolsListed {
		c.pending[server] = pendingNow
	}
	fresh := changes[:0]
	for _, ch := range changes {
		if c.recorded[server][ch.Tool] {
			continue
		}
		if c.recorded[server] == nil {
			c.recorded[server] = map[string]bool{}
		}
		c.recorded[server][ch.Tool] = true
		fresh = append(fresh, ch)
	}
	changes = fresh
	kept := c.problems[server]
	if kept == nil {
		kept = map[string][]string{}
		c.problems[server] = kept
	}
	for _, key := range append([]string{"bytes", "store"}, lists...) {
		kept[key] = problems[key]
	}
	c.mu.Unlock()
	for _, key := range sortedKeys(problems) {
		for _, p := range problems[key] {
			c.o.Logger.WithField("server", server).Warnf("catalog: %s", p)
		}
	}
	for _, ch := range changes {
		ch.Held = c.o.Mode(server) == spec.ToolChangesHold
		ch.fillDiff()
		if c.o.OnChange != nil {
			c.o.OnChange(ch)
		}
	}
}

// checkPins compares tools with their pins, adding the writes to w: a new
// tool is pinned as it is (when the list fits the caps), a tool whose
// definition differs from its pin gets (or keeps) a change waiting, a tool
// back to its pinned definition loses it. It returns the changes first
// seen now and the tools with a change waiting.
func (c *Catalog) checkPins(ctx context.Context, server string, tools []upstream.Tool, now time.Time, lim Limits, fits bool,
	w *store.CatalogWrite) ([]Change, map[string]string, error) {
	pins, err := c.o.Store.Pins(ctx, server)
	if err != nil {
		// Without the pins nothing can be compared: keep the changes known.
		c.mu.Lock()
		kept := c.pending[server]
		c.mu.Unlock()
		return nil, kept, fmt.Errorf("cannot read its tool pins, changes are not checked: %w", err)
	}
	byName := make(map[string]store.ToolPin, len(pins))
	for _, p := range pins {
		byName[p.Tool] = p
	}
	pending := map[string]string{}
	var changes []Change
	var errs []error
	listed := make(map[string]bool, len(tools))
	for _, t := range tools {
		listed[t.Name] = true
		def, err := DefinitionOf(t.Raw)
		if err != nil {
			errs = append(errs, fmt.Errorf("tool %q: %w", t.Name, err))
			continue
		}
		pin, known := byName[t.Name]
		switch {
		case !known:
			if fits {
				w.Pins = append(w.Pins, store.ToolPin{Tool: t.Name, PinnedHash: def.Hash, PinnedDef: def.JSON,
					FirstSeenAt: now, Present: true, LastSeenAt: now})
			}
		case pin.PinnedHash == def.Hash:
			if (pin.PendingHash != "" || !pin.Present) && fits {
				pin.PendingHash, pin.PendingDef, pin.ChangedAt = "", "", nil
				pin.Present, pin.LastSeenAt = true, now
				w.Pins = append(w.Pins, pin)
			}
		default:
			pending[t.Name] = def.Hash
			if pin.PendingHash != def.Hash {
				changes = append(changes, Change{Server: server, Tool: t.Name, OldHash: pin.PinnedHash, NewHash: def.Hash,
					Old: pin.PinnedDef, New: def.JSON, ChangedAt: now})
			}
			if fits {
				if pin.PendingHash != def.Hash {
					pin.PendingHash, pin.PendingDef, pin.ChangedAt = def.Hash, def.JSON, &now
				}
				pin.Present, pin.LastSeenAt = true, now
				w.Pins = append(w.Pins, pin)
			}
		}
	}
	// Pins of tools no longer listed stay (a tool removed and brought back
	// changed is still a change), up to catalogMaxItems of them: past that
	// the longest unseen go.
	var gone []store.ToolPin
	for _, p := range pins {
		if listed[p.Tool] {
			continue
		}
		if p.Present && fits {
			p.Present, p.LastSeenAt = false, now // gone since now
			w.Pins = append(w.Pins, p)
		}
		gone = append(gone, p)
	}
	if len(gone) > lim.MaxItems {
		sort.Slice(gone, func(i, j int) bool { return gone[i].LastSeenAt.Before(gone[j].LastSeenAt) })
		for _, p := range gone[:len(gone)-lim.MaxItems] {
			w.DeletePins = append(w.DeletePins, p.Tool)
		}
	}
	return changes, pending, errors.Join(errs...)
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// encodeLists writes each list as a JSON array of the items' raw JSON.
func encodeLists(cat upstream.Catalog) (map[string]string, map[string]int64) {
	raws := map[string][]json.RawMessage{}
	for _, t := range cat.Tools {
		raws[ListTools] = append(raws[ListTools], t.Raw)
	}
	for _, r := range cat.Resources {
		raws[ListResources] = append(raws[ListResources], r.Raw)
	}
	for _, r := range cat.ResourceTemplates {
		raws[ListResourceTemplates] = append(raws[ListResourceTemplates], r.Raw)
	}
	for _, p := range cat.Prompts {
		raws[ListPrompts] = append(raws[ListPrompts], p.Raw)
	}
	out, sizes := map[string]string{}, map[string]int64{}
	for _, list := range []string{ListTools, ListResources, ListResourceTemplates, ListPrompts} {
		items := raws[list]
		if items == nil {
			items = []json.RawMessage{}
		}
		b, err := json.Marshal(items)
		if err != nil { // raw items came from a JSON array: cannot happen
			b = []byte("[]")
		}
		out[list], sizes[list] = string(b), int64(len(b))
	}
	return out, sizes
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// problemsOf flattens a server's problems; callers hold c.mu.
func (c *Catalog) problemsOf(server string) []string {
	var out []string
	for _, key := range sortedKeys(c.problems[server]) {
		out = append(out, c.problems[server][key]...)
	}
	return out
}
