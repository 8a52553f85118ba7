package store

import (
	"context"
	"errors"
	"fmt"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// SettingRepo stores string preferences; parsing them is the caller's job so
// that an unknown key from a newer version survives untouched.
type SettingRepo struct{ db *gorm.DB }

// Get returns the value and whether the key is set.
func (r SettingRepo) Get(ctx context.Context, key string) (string, bool, error) {
	var s Setting
	err := r.db.WithContext(ctx).Where("key = ?", key).Take(&s).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("setting %q: %w", key, err)
	}
	return s.Value, true, nil
}

// Set inserts or replaces the value of key.
func (r SettingRepo) Set(ctx context.Context, key, value string) error {
	if key == "" {
		return fmt.Errorf("%w: empty setting key", ErrInvalid)
	}
	err := r.db.WithContext(ctx).Clauses(clause.OnConflict{
		Columns:   []clause.Column{{Name: "key"}},
		DoUpdates: clause.AssignmentColumns([]string{"value", "updated_at"}),
	}).Create(&Setting{Key: key, Value: value}).Error
	if err != nil {
		return fmt.Errorf("setting %q: %w", key, err)
	}
	return nil
}

// SetMany inserts or replaces several values in one transaction: either
// all are stored or none is.
func (r SettingRepo) SetMany(ctx context.Context, values map[string]string) error {
	return r.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		for k, v := range values {
			if err := (SettingRepo{db: tx}).Set(ctx, k, v); err != nil {
				return err
			}
		}
		return nil
	})
}

// All returns every stored setting.
func (r SettingRepo) All(ctx context.Context) (map[string]string, error) {
	var rows []Setting
	if err := r.db.WithContext(ctx).Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("list settings: %w", err)
	}
	out := make(map[string]string, len(rows))
	for _, s := range rows {
		out[s.Key] = s.Value
	}
	return out, nil
}

// Delete removes key; deleting an unset key is not an error.
func (r SettingRepo) Delete(ctx context.Context, key string) error {
	if err := r.db.WithContext(ctx).Where("key = ?", key).Delete(&Setting{}).Error; err != nil {
		return fmt.Errorf("setting %q: %w", key, err)
	}
	return nil
}
