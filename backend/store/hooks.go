package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

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

// hookColumns are the columns readHook scans, in its order.
const hookColumns = "id, name, enabled, execution_order, hook_type, script, fail_closed, created_at, updated_at"

// List returns hooks in the order they run: execution order, then name.
// A row whose columns cannot be read as a hook (written around the router:
// an order that is not a number, an empty name) is listed with LoadError
// saying which, never an error for the whole list: one bad row must not
// keep the other hooks, or the router, from loading.
func (r HookRepo) List(ctx context.Context) ([]Hook, error) {
	rows, err := r.db.WithContext(ctx).Model(&Hook{}).Select(hookColumns).Order("execution_order, name").Rows()
	if err != nil {
		return nil, fmt.Errorf("list hooks: %w", err)
	}
	defer rows.Close()
	var out []Hook
	for rows.Next() {
		h, err := readHook(rows.Scan)
		if err != nil {
			return nil, fmt.Errorf("list hooks: %w", err)
		}
		out = append(out, h)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list hooks: %w", err)
	}
	return out, nil
}

// readHook reads one row of hookColumns as List does: columns that cannot
// be read leave LoadError set instead of failing.
func readHook(scan func(dest ...any) error) (Hook, error) {
	var id int64
	var name, enabled, order, typ, script, failClosed, created, updated any
	if err := scan(&id, &name, &enabled, &order, &typ, &script, &failClosed, &created, &updated); err != nil {
		return Hook{}, err
	}
	h := Hook{ID: uint(id)}
	var bad []string
	read := func(col string, ok bool) {
		if !ok {
			bad = append(bad, col)
		}
	}
	h.Name, _ = columnText(name)
	read("name", strings.TrimSpace(h.Name) != "")
	var ok bool
	h.Enabled, ok = columnBool(enabled)
	read("enabled", ok)
	h.ExecutionOrder, ok = columnInt(order)
	read("execution_order", ok)
	h.HookType, _ = columnText(typ)
	read("hook_type", checkHook(Hook{Name: "x", HookType: h.HookType}) == nil)
	h.Script, ok = columnText(script)
	read("script", ok)
	h.FailClosed, ok = columnBool(failClosed)
	read("fail_closed", ok)
	h.CreatedAt, _ = columnTime(created)
	h.UpdatedAt, _ = columnTime(updated)
	if len(bad) > 0 {
		if h.Name == "" {
			h.Name = fmt.Sprintf("#%d", h.ID)
		}
		h.LoadError = "the stored row cannot be read as a hook: bad " + strings.Join(bad, ", ")
	}
	return h, nil
}

// The column readers take what either SQLite driver returns for a value
// SQLite stored with whatever type it was given.

func columnText(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case []byte:
		return string(x), true
	case nil:
		return "", false
	}
	return fmt.Sprint(v), true
}

func columnInt(v any) (int, bool) {
	switch x := v.(type) {
	case int64:
		return int(x), true
	case float64:
		return int(x), x == float64(int(x))
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	}
	s, ok := columnText(v)
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimSpace(s))
	return n, err == nil
}

func columnBool(v any) (bool, bool) {
	if b, ok := v.(bool); ok {
		return b, true
	}
	if n, ok := columnInt(v); ok && (n == 0 || n == 1) {
		return n == 1, true
	}
	s, _ := columnText(v)
	b, err := strconv.ParseBool(strings.TrimSpace(s))
	return b, err == nil
}

func columnTime(v any) (time.Time, bool) {
	if t, ok := v.(time.Time); ok {
		return t, true
	}
	s, ok := columnText(v)
	if !ok {
		return time.Time{}, false
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05.999999999-07:00", "2006-01-02 15:04:05.999999999", "2006-01-02 15:04:05"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
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

// DeleteByID removes the hook with the given ID, whatever its row holds
// (a row whose name cannot be read has no name to delete it by).
func (r HookRepo) DeleteByID(ctx context.Context, id uint) error {
	res := r.db.WithContext(ctx).Where("id = ?", id).Delete(&Hook{})
	if res.Error != nil {
		return translate(res.Error, "hook", fmt.Sprintf("#%d", id))
	}
	if res.RowsAffected == 0 {
		return notFound("hook", fmt.Sprintf("#%d", id))
	}
	return nil
}

// ByID returns the hook with the given ID.
// A row that cannot be read as a hook is returned with LoadError (as List
// does), so that it can still be saved over or removed.
func (r HookRepo) ByID(ctx context.Context, id uint) (Hook, error) {
	h, err := readHook(r.db.WithContext(ctx).Model(&Hook{}).Select(hookColumns).Where("id = ?", id).Row().Scan)
	if errors.Is(err, sql.ErrNoRows) {
		return Hook{}, notFound("hook", fmt.Sprintf("#%d", id))
	}
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
		// Read leniently: saving over a row that cannot be read as a
		// hook (LoadError) is how it is repaired.
		old, err := readHook(tx.Model(&Hook{}).Select(hookColumns).Where("id = ?", h.ID).Row().Scan)
		if errors.Is(err, sql.ErrNoRows) {
			return notFound("hook", fmt.Sprintf("#%d", h.ID))
		}
		if err != nil {
			return translate(err, "hook", fmt.Sprintf("#%d", h.ID))
		}
		h.CreatedAt = old.CreatedAt
		if h.CreatedAt.IsZero() {
			h.CreatedAt = time.Now() // the stored one cannot be read
		}
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
