package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcp-router/mcp-router/backend/spec"
	"gorm.io/gorm"
)

// ServerRepo stores upstream server definitions. Every write validates first
// so that nothing invalid ever reaches the file the supervisor reads.
type ServerRepo struct{ db *gorm.DB }

// List returns all servers ordered by name.
func (r ServerRepo) List(ctx context.Context) ([]Server, error) {
	var out []Server
	if err := r.db.WithContext(ctx).Order("name").Find(&out).Error; err != nil {
		return nil, fmt.Errorf("list servers: %w", err)
	}
	return out, nil
}

// Get returns the named server or an error wrapping ErrNotFound.
func (r ServerRepo) Get(ctx context.Context, name string) (Server, error) {
	var s Server
	err := r.db.WithContext(ctx).Where("name = ?", name).Take(&s).Error
	return s, translate(err, "server", name)
}

// prepare normalizes, validates and seals def: a secret entry is written
// as its placeholder, and a definition still carrying a secret's value is
// refused (the value belongs in the keychain: secrets.ServerValues).
func prepare(def spec.Server) (spec.Server, error) {
	def.Normalize()
	if err := def.Validate(); err != nil {
		return def, err
	}
	if err := def.Seal(); err != nil {
		return def, err
	}
	return def, nil
}

// Create adds a new server; an existing name gives ErrDuplicate.
func (r ServerRepo) Create(ctx context.Context, def spec.Server) (Server, error) {
	def, err := prepare(def)
	if err != nil {
		return Server{}, err
	}
	row := Server{Server: def}
	if err := r.db.WithContext(ctx).Create(&row).Error; err != nil {
		return Server{}, translate(err, "server", def.Name)
	}
	return row, nil
}

// CreateMany adds all servers or, on any invalid or duplicate entry, none:
// an import must not leave half a file behind.
func (r ServerRepo) CreateMany(ctx context.Context, defs []spec.Server) error {
	rows := make([]Server, 0, len(defs))
	seen := make(map[string]bool, len(defs))
	var errs []error
	for _, d := range defs {
		d, err := prepare(d)
		switch {
		case err != nil:
			errs = append(errs, err)
		case seen[d.Name]:
			errs = append(errs, duplicate("server", d.Name))
		default:
			seen[d.Name] = true
			rows = append(rows, Server{Server: d})
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	return r.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		for i := range rows {
			if err := tx.Create(&rows[i]).Error; err != nil {
				return translate(err, "server", rows[i].Name)
			}
		}
		return nil
	})
}

// Update replaces the definition of the server with def.Name, keeping its ID
// and creation time. Zero values (Enabled=false, no args) are written too.
func (r ServerRepo) Update(ctx context.Context, def spec.Server) (Server, error) {
	def, err := prepare(def)
	if err != nil {
		return Server{}, err
	}
	var row Server
	err = r.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Where("name = ?", def.Name).Take(&row).Error; err != nil {
			return err
		}
		row.Server = def
		return tx.Save(&row).Error
	})
	if err != nil {
		return Server{}, translate(err, "server", def.Name)
	}
	return row, nil
}

// Delete removes the named server.
func (r ServerRepo) Delete(ctx context.Context, name string) error {
	res := r.db.WithContext(ctx).Where("name = ?", name).Delete(&Server{})
	if res.Error != nil {
		return translate(res.Error, "server", name)
	}
	if res.RowsAffected == 0 {
		return notFound("server", name)
	}
	return nil
}

// SetEnabled flips one server on or off without touching the rest.
func (r ServerRepo) SetEnabled(ctx context.Context, name string, enabled bool) error {
	res := r.db.WithContext(ctx).Model(&Server{}).Where("name = ?", name).Update("enabled", enabled)
	if res.Error != nil {
		return translate(res.Error, "server", name)
	}
	if res.RowsAffected == 0 {
		return notFound("server", name)
	}
	return nil
}

// Replace swaps the definition of the server named oldName for def, which
// may carry a new name (a rename); ID and creation time are kept. A new name
// that is taken gives ErrDuplicate and changes nothing.
func (r ServerRepo) Replace(ctx context.Context, oldName string, def spec.Server) (Server, error) {
	def, err := prepare(def)
	if err != nil {
		return Server{}, err
	}
	var row Server
	err = r.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Where("name = ?", oldName).Take(&row).Error; err != nil {
			return translate(err, "server", oldName)
		}
		row.Server = def
		return translate(tx.Save(&row).Error, "server", def.Name)
	})
	if err != nil {
		return Server{}, err
	}
	return row, nil
}

// Free returns an error wrapping ErrDuplicate when a server is named name:
// a check before work that must not touch another server's state (its
// secret values are written before its row). The write itself still
// refuses a duplicate.
func (r ServerRepo) Free(ctx context.Context, name string) error {
	var n int64
	if err := r.db.WithContext(ctx).Model(&Server{}).Where("name = ?", name).Count(&n).Error; err != nil {
		return fmt.Errorf("look up server %q: %w", name, err)
	}
	if n > 0 {
		return duplicate("server", name)
	}
	return nil
}
