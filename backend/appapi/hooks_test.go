package appapi

import (
	"strings"
	"testing"
)

// A hook row the router cannot read (written around it: an order that is
// not a number, a type that is none) never runs; the Hooks page must show
// why, and let the user repair or remove it. Before loadError was in
// HookView the page listed such a hook as if it were fine.
func TestBrokenHookIsListedWithItsLoadError(t *testing.T) {
	f := newFixture(t)
	if err := f.c.Store.DB().Exec(`INSERT INTO hooks (name, enabled, execution_order, hook_type, script, fail_closed)
		VALUES ('garbled', 1, 'first', 'around', 'return;', 1)`).Error; err != nil {
		t.Fatal(err)
	}
	good, err := f.api.SaveHook(HookInput{Name: "good", Enabled: true, HookType: "pre", Script: "return;"})
	if err != nil {
		t.Fatal(err)
	}
	list, err := f.api.ListHooks()
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]HookView{}
	for _, h := range list {
		byName[h.Name] = h
	}
	broken := byName["garbled"]
	if want := "the stored row cannot be read as a hook: bad execution_order, hook_type"; broken.LoadError != want {
		t.Errorf("garbled: loadError %q, want %q", broken.LoadError, want)
	}
	if byName["good"].LoadError != "" {
		t.Errorf("good: loadError %q", byName["good"].LoadError)
	}
	if js := mustJSON(t, byName["good"]); strings.Contains(js, "loadError") {
		t.Errorf("a readable hook carries loadError: %s", js)
	}

	// Saved again from the editor, the row is written whole and loads.
	fixed, err := f.api.SaveHook(HookInput{ID: broken.ID, Name: "garbled", Enabled: true, HookType: "post", Script: "return;"})
	if err != nil {
		t.Fatalf("repairing the broken hook: %v", err)
	}
	if fixed.LoadError != "" || fixed.HookType != "post" {
		t.Errorf("repaired: %+v", fixed)
	}
	list, _ = f.api.ListHooks()
	for _, h := range list {
		if h.LoadError != "" {
			t.Errorf("after the repair %s still has loadError %q", h.Name, h.LoadError)
		}
	}
	if err := f.api.RemoveHook(good.ID); err != nil {
		t.Fatal(err)
	}
}

// A broken hook can be removed from the page (RemoveHook looks it up by ID).
func TestBrokenHookCanBeRemoved(t *testing.T) {
	f := newFixture(t)
	if err := f.c.Store.DB().Exec(`INSERT INTO hooks (name, enabled, execution_order, hook_type, script, fail_closed)
		VALUES ('garbled', 'yes', 'first', 'pre', 'return;', 0)`).Error; err != nil {
		t.Fatal(err)
	}
	list, err := f.api.ListHooks()
	if err != nil || len(list) != 1 || list[0].LoadError == "" {
		t.Fatalf("ListHooks = %+v, %v", list, err)
	}
	if err := f.api.RemoveHook(list[0].ID); err != nil {
		t.Fatalf("removing the broken hook: %v", err)
	}
	if list, _ := f.api.ListHooks(); len(list) != 0 {
		t.Errorf("after removal: %+v", list)
	}
}

// A broken hook whose name cannot be read is listed as #ID and removed by ID.
func TestNamelessBrokenHookCanBeRemoved(t *testing.T) {
	f := newFixture(t)
	if err := f.c.Store.DB().Exec(`INSERT INTO hooks (name, enabled, execution_order, hook_type, script, fail_closed)
		VALUES ('', 1, 1, 'pre', 'return;', 0)`).Error; err != nil {
		t.Fatal(err)
	}
	list, err := f.api.ListHooks()
	if err != nil || len(list) != 1 || list[0].LoadError != "the stored row cannot be read as a hook: bad name" {
		t.Fatalf("ListHooks = %+v, %v", list, err)
	}
	if err := f.api.RemoveHook(list[0].ID); err != nil {
		t.Fatalf("removing the nameless hook: %v", err)
	}
	if list, _ := f.api.ListHooks(); len(list) != 0 {
		t.Errorf("after removal: %+v", list)
	}
}
