package store

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

func TestHooks(t *testing.T) {
	forEachEngine(t, func(t *testing.T, open opener) {
		s := open(t)
		ctx := context.Background()
		r := s.Hooks()

		for _, h := range []Hook{
			{Name: "late", ExecutionOrder: 20, HookType: HookPost, Script: "a", Enabled: true},
			{Name: "b-early", ExecutionOrder: 1, HookType: HookPre, Script: "b"},
			{Name: "a-early", ExecutionOrder: 1, HookType: HookBoth, Script: "c", FailClosed: true},
		} {
			if _, err := r.Create(ctx, h); err != nil {
				t.Fatal(err)
			}
		}
		list, err := r.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var order []string
		for _, h := range list {
			order = append(order, h.Name)
		}
		if len(order) != 3 || order[0] != "a-early" || order[1] != "b-early" || order[2] != "late" {
			t.Errorf("order = %v", order)
		}

		_, err = r.Create(ctx, Hook{Name: "late", HookType: HookPre, Script: "other"})
		if !errors.Is(err, ErrDuplicate) {
			t.Errorf("duplicate: %v", err)
		}
		if h, _ := r.Get(ctx, "late"); h.Script != "a" || h.HookType != HookPost {
			t.Errorf("original changed: %+v", h)
		}

		for _, bad := range []Hook{{Name: "", HookType: HookPre}, {Name: "x", HookType: "around"}} {
			if _, err := r.Create(ctx, bad); !errors.Is(err, ErrInvalid) {
				t.Errorf("Create(%+v) = %v, want ErrInvalid", bad, err)
			}
		}

		orig, _ := r.Get(ctx, "late")
		upd, err := r.Update(ctx, Hook{Name: "late", ExecutionOrder: 0, HookType: HookPre, Script: "new"})
		if err != nil {
			t.Fatal(err)
		}
		got, _ := r.Get(ctx, "late")
		if got.ID != orig.ID || !got.CreatedAt.Equal(orig.CreatedAt) || got.Script != "new" || got.Enabled || got.ExecutionOrder != 0 || upd.ID != orig.ID {
			t.Errorf("after Update: %+v", got)
		}
		if _, err := r.Update(ctx, Hook{Name: "ghost", HookType: HookPre}); !errors.Is(err, ErrNotFound) {
			t.Errorf("Update missing: %v", err)
		}

		if err := r.SetEnabled(ctx, "b-early", true); err != nil {
			t.Fatal(err)
		}
		if h, _ := r.Get(ctx, "b-early"); !h.Enabled {
			t.Error("SetEnabled did not stick")
		}
		if err := r.SetEnabled(ctx, "ghost", true); !errors.Is(err, ErrNotFound) {
			t.Errorf("SetEnabled missing: %v", err)
		}
		if err := r.Delete(ctx, "late"); err != nil {
			t.Fatal(err)
		}
		if err := r.Delete(ctx, "late"); !errors.Is(err, ErrNotFound) {
			t.Errorf("second Delete: %v", err)
		}
	})
}

// A row that cannot be read as a hook is still found by ID (with
// LoadError), saved over (which repairs it) and removed by ID; before,
// ByID and Replace failed on its columns, so the Hooks page could neither
// fix nor remove it.
func TestUnreadableHookRowCanBeRepairedAndRemoved(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	r := s.Hooks()
	for _, q := range []string{
		`INSERT INTO hooks (name, enabled, execution_order, hook_type, script, fail_closed) VALUES ('garbled', 1, 'first', 'around', 'x', 0)`,
		`INSERT INTO hooks (name, enabled, execution_order, hook_type, script, fail_closed) VALUES ('', 'yes', 2, 'pre', 'y', 0)`,
	} {
		if err := s.DB().Exec(q).Error; err != nil {
			t.Fatal(err)
		}
	}
	list, err := r.List(ctx)
	if err != nil || len(list) != 2 {
		t.Fatalf("List = %+v, %v", list, err)
	}
	var garbled, nameless Hook
	for _, h := range list {
		if h.Name == "garbled" {
			garbled = h
		} else {
			nameless = h
		}
	}
	h, err := r.ByID(ctx, garbled.ID)
	if err != nil || h.LoadError != "the stored row cannot be read as a hook: bad execution_order, hook_type" || h.Script != "x" {
		t.Errorf("ByID = %+v, %v", h, err)
	}
	fixed, err := r.Replace(ctx, Hook{ID: garbled.ID, Name: "garbled", HookType: HookPost, Script: "x", ExecutionOrder: 3})
	if err != nil || fixed.CreatedAt.IsZero() {
		t.Fatalf("Replace = %+v, %v", fixed, err)
	}
	if h, err := r.ByID(ctx, garbled.ID); err != nil || h.LoadError != "" || h.HookType != HookPost || h.ExecutionOrder != 3 {
		t.Errorf("after the repair: %+v, %v", h, err)
	}
	if nameless.Name != fmt.Sprintf("#%d", nameless.ID) || nameless.LoadError == "" {
		t.Errorf("nameless = %+v", nameless)
	}
	if err := r.DeleteByID(ctx, nameless.ID); err != nil {
		t.Fatal(err)
	}
	if err := r.DeleteByID(ctx, nameless.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("second delete: %v", err)
	}
	if _, err := r.ByID(ctx, nameless.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("ByID of a removed hook: %v", err)
	}
	if _, err := r.Replace(ctx, Hook{ID: nameless.ID, Name: "back", HookType: HookPre}); !errors.Is(err, ErrNotFound) {
		t.Errorf("Replace of a removed hook: %v", err)
	}
}
