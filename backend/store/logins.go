package store

import (
	"context"
	"fmt"

	"gorm.io/gorm"
)

// LoginRepo counts the changes of each server's OAuth login (migration
// 0500): never the tokens, only a generation that moves when a login is
// made or removed, so that every router process on the data dir notices.
type LoginRepo struct{ db *gorm.DB }

// Logins is the login generations.
func (s *Store) Logins() LoginRepo { return LoginRepo{db: s.db} }

// Changed moves server's generation (inserting it at 1).
func (r LoginRepo) Changed(ctx context.Context, server string) error {
	err := r.db.WithContext(ctx).Exec(`INSERT INTO upstream_logins (server, generation) VALUES (?, 1)
		ON CONFLICT(server) DO UPDATE SET generation = upstream_logins.generation + 1`, server).Error
	if err != nil {
		return fmt.Errorf("login of %q: %w", server, err)
	}
	return nil
}

// Generations returns every server's generation.
func (r LoginRepo) Generations(ctx context.Context) (map[string]int64, error) {
	var rows []struct {
		Server     string
		Generation int64
	}
	if err := r.db.WithContext(ctx).Raw(`SELECT server, generation FROM upstream_logins`).Scan(&rows).Error; err != nil {
		return nil, fmt.Errorf("logins: %w", err)
	}
	out := make(map[string]int64, len(rows))
	for _, row := range rows {
		out[row.Server] = row.Generation
	}
	return out, nil
}
