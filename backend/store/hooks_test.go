package store

import (
	"context"
	"errors"
	"testing"
)

func TestHooks(t *testing.T) {
	s, _ := openTest(t)
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
}
