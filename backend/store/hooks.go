package store

import (
	"context"
	"fmt"
	"strings"

	"gorm.io/gorm"
)

// HookRepo stores hooks. It checks only what the database needs (a name and
// a known type); compiling the script is the hook service's job.
type HookRepo struct{ db *gorm.DB }

func checkHook(h Hook) error {
	if strings.TrimSpace(h.Name) == "" {
		return fmt.Errorf("%w: a hook needs a name", ErrInvalid)
	}
	switch h.HookType {
	case HookPre, HookPost, HookBoth:
		return nil
	}
	return fmt.Errorf("%w: hook %q: type %q must be pre, post or both", ErrInvalid, h.Name, h.HookType)
}

// List returns hooks in the order they run: execution order, then name.
func (r HookRepo) List(ctx context.Context) ([]Hook, error) {
	var out []Hook
	if err := r.db.WithContext(ctx).Order("execution_order, name").Find(&out).Error; err != nil {
		return nil, fmt.Errorf("list hooks: %w", err)
	}
	return out, nil
}

// Get returns the named hook.
func (r HookRepo) Get(ctx context.Context, name string) (Hook, error) {
	var h Hook
	err := r.db.WithContext(ctx).Where("name = ?", name).Take(&h).Error
	return h, translate(err, "hook", name)
}

// Create adds a hook; its ID and timestamps are set by the store.
func (r HookRepo) Create(ctx context.Context, h Hook) (Hook, error) {
	h.Name = strings.TrimSpace(h.Name)
	if err := checkHook(h); err != nil {
		return Hook{}, err
	}
	h.ID = 0
	if err := r.db.WithContext(ctx).Create(&h).Error; err != nil {
		return Hook{}, translate(err, "hook", h.Name)
	}
	return h, nil
}

// Update replaces the hook named h.Name, keeping its ID and creation time.
func (r HookRepo) Update(ctx context.Context, h Hook) (Hook, error) {
	h.Name = strings.TrimSpace(h.Name)
	if err := checkHook(h); err != nil {
		return Hook{}, err
	}
	var row Hook
	err := r.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Where("name = ?", h.Name).Take(&row).Error; err != nil {
			return err
		}
		h.ID, h.CreatedAt = row.ID, row.CreatedAt
		row = h
		return tx.Save(&row).Error
	})
	if err != nil {
		return Hook{}, translate(err, "hook", h.Name)
	}
	return row, nil
}

// SetEnabled turns one hook on or off.
func (r HookRepo) SetEnabled(ctx context.Context, name string, enabled bool) error {
	res := r.db.WithContext(ctx).Model(&Hook{}).Where("name = ?", name).Update("enabled", enabled)
	if res.Error != nil {
		return translate(res.Error, "hook", name)
	}
	if res.RowsAffected == 0 {
		return notFound("hook", name)
	}
	return nil
}

// Delete removes the named hook.
func (r HookRepo) Delete(ctx context.Context, name string) error {
	res := r.db.WithContext(ctx).Where("name = ?", name).Delete(&Hook{})
	if res.Error != nil {
		return translate(res.Error, "hook", name)
	}
	if res.RowsAffected == 0 {
		return notFound("hook", name)
	}
	return nil
}

// ByID returns the hook with the given ID.
func (r HookRepo) ByID(ctx context.Context, id uint) (Hook, error) {
	var h Hook
	err := r.db.WithContext(ctx).Where("id = ?", id).Take(&h).Error
	return h, translate(err, "hook", fmt.Sprintf("#%d", id))
}

// Replace overwrites the hook with h.ID (name included, so it may rename),
// keeping its creation time. A name that another hook has gives ErrDuplicate.
func (r HookRepo) Replace(ctx context.Context, h Hook) (Hook, error) {
	h.Name = strings.TrimSpace(h.Name)
	if err := checkHook(h); err != nil {
		return Hook{}, err
	}
	var row Hook
	err := r.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Where("id = ?", h.ID).Take(&row).Error; err != nil {
			return translate(err, "hook", fmt.Sprintf("#%d", h.ID))
		}
		h.CreatedAt = row.CreatedAt
		row = h
		return translate(tx.Save(&row).Error, "hook", h.Name)
	})
	if err != nil {
		return Hook{}, err
	}
	return row, nil
}

// Reorder sets executionOrder 1..n in the order of ids, which must name
// every hook exactly once; otherwise nothing changes.
func (r HookRepo) Reorder(ctx context.Context, ids []uint) error {
	return r.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var all []uint
		if err := tx.Model(&Hook{}).Pluck("id", &all).Error; err != nil {
			return fmt.Errorf("reorder hooks: %w", err)
		}
		known := make(map[uint]bool, len(all))
		for _, id := range all {
			known[id] = true
		}
		seen := make(map[uint]bool, len(ids))
		for _, id := range ids {
			switch {
			case !known[id]:
				return fmt.Errorf("%w: reorder: no hook has id %d", ErrInvalid, id)
			case seen[id]:
				return fmt.Errorf("%w: reorder: hook id %d is listed twice", ErrInvalid, id)
			}
			seen[id] = true
		}
		if len(ids) != len(all) {
			return fmt.Errorf("%w: reorder: %d ids given for %d hooks; list every hook once", ErrInvalid, len(ids), len(all))
		}
		for i, id := range ids {
			if err := tx.Model(&Hook{}).Where("id = ?", id).Update("execution_order", i+1).Error; err != nil {
				return fmt.Errorf("reorder hooks: %w", err)
			}
		}
		return nil
	})
}
