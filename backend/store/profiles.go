package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"gorm.io/gorm"
)

// Profile is a named set of servers, with per-tool selections and a
// discovery mode, served at its own endpoint (backend/profile checks and
// applies it; migration 1200_profiles).
type Profile struct {
	ID          uint     `gorm:"primaryKey" json:"-"`
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Mode        string   `json:"mode"`
	Servers     []string `gorm:"serializer:json" json:"servers"`
	// Tools: server → the upstream's own names of the tools selected; a
	// server of Servers that is absent, or lists none, contributes all.
	Tools     map[string][]string `gorm:"serializer:json" json:"tools,omitempty"`
	CreatedAt time.Time           `json:"createdAt"`
	UpdatedAt time.Time           `json:"updatedAt"`
}

// ProfileRepo stores profiles. It checks only what the database needs (a
// name); backend/profile checks the rest before it writes.
type ProfileRepo struct{ db *gorm.DB }

// List returns every profile, ordered by name.
func (r ProfileRepo) List(ctx context.Context) ([]Profile, error) {
	var out []Profile
	if err := r.db.WithContext(ctx).Order("name").Find(&out).Error; err != nil {
		return nil, fmt.Errorf("list profiles: %w", err)
	}
	return out, nil
}

// Get returns the named profile.
func (r ProfileRepo) Get(ctx context.Context, name string) (Profile, error) {
	var p Profile
	err := r.db.WithContext(ctx).Where("name = ?", name).Take(&p).Error
	return p, translate(err, "profile", name)
}

// Create stores a new profile; its name must be unique.
func (r ProfileRepo) Create(ctx context.Context, p Profile) (Profile, error) {
	p.Name = strings.TrimSpace(p.Name)
	if p.Name == "" {
		return Profile{}, fmt.Errorf("%w: a profile needs a name", ErrInvalid)
	}
	p.ID = 0
	if err := r.db.WithContext(ctx).Create(&p).Error; err != nil {
		return Profile{}, translate(err, "profile", p.Name)
	}
	return p, nil
}

// Update replaces the stored profile of p.Name with p.
func (r ProfileRepo) Update(ctx context.Context, p Profile) (Profile, error) {
	err := r.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var old Profile
		if err := tx.Where("name = ?", p.Name).Take(&old).Error; err != nil {
			return translate(err, "profile", p.Name)
		}
		p.ID, p.CreatedAt = old.ID, old.CreatedAt
		// Select("*"): empty servers and tools are written, not skipped.
		return tx.Model(&old).Select("*").Updates(&p).Error
	})
	if err != nil {
		return Profile{}, err
	}
	return p, nil
}

// Delete removes the named profile. Tokens bound to it keep the binding,
// and reach nothing until a profile of that name exists again
// (backend/profile refuses them): deleting a profile never widens a token.
func (r ProfileRepo) Delete(ctx context.Context, name string) error {
	res := r.db.WithContext(ctx).Where("name = ?", name).Delete(&Profile{})
	if res.Error != nil {
		return translate(res.Error, "profile", name)
	}
	if res.RowsAffected == 0 {
		return notFound("profile", name)
	}
	return nil
}

// SetProfile binds the named token to profile ("" — none).
func (r TokenRepo) SetProfile(ctx context.Context, name, profile string) error {
	res := r.db.WithContext(ctx).Model(&Token{}).Where("name = ?", name).Update("profile", profile)
	if res.Error != nil {
		return translate(res.Error, "token", name)
	}
	if res.RowsAffected == 0 {
		return notFound("token", name)
	}
	return nil
}
