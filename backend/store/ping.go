package store

import (
	"context"
	"fmt"
)

// Ping checks that the database answers a query within ctx: a readiness
// probe's question (backend/health). It takes a connection from the pool
// and runs SELECT 1 on it, so a pool that is used up or a database that
// does not answer makes it wait for ctx, not forever.
func (s *Store) Ping(ctx context.Context) error {
	var one int
	if err := s.sql.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil {
		return fmt.Errorf("database ping: %w", err)
	}
	if one != 1 {
		return fmt.Errorf("database ping: SELECT 1 returned %d", one)
	}
	return nil
}
