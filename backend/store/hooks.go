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
