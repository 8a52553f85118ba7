package store

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mcp-router/mcp-router/backend/spec"
	"gorm.io/gorm"
)

// CreateServersAndProfiles adds servers and profiles in one transaction,
// all or none: an import that brings both (backend/electronimport) must
// not leave servers without the profiles that group them, or half of
// either. Servers are checked as Create checks them; profiles are checked
// by the caller (backend/profile.Check) and here only for a name. A name
// already taken fails the whole write.
func (s *Store) CreateServersAndProfiles(ctx context.Context, defs []spec.Server, profiles []Profile) error {
	rows := make([]Server, 0, len(defs))
	var errs []error
	for _, d := range defs {
		d, err := prepare(d)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		rows = append(rows, Server{Server: d})
	}
	for _, p := range profiles {
		if strings.TrimSpace(p.Name) == "" {
			errs = append(errs, fmt.Errorf("%w: a profile needs a name", ErrInvalid))
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		for i := range rows {
			if err := tx.Create(&rows[i]).Error; err != nil {
				return translate(err, "server", rows[i].Name)
			}
		}
		for i := range profiles {
			p := profiles[i]
			p.ID = 0
			if err := tx.Create(&p).Error; err != nil {
				return translate(err, "profile", p.Name)
			}
		}
		return nil
	})
}
