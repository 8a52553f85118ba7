package store

import "gorm.io/gorm"

// Migration 0400_server_pass_upstream_auth: servers.pass_upstream_auth
// (spec.Server.PassUpstreamAuth), off for every existing server. Raw SQL:
// this migration must never change.
func migratePassUpstreamAuth(tx *gorm.DB) error {
	if tx.Migrator().HasColumn("servers", "pass_upstream_auth") {
		return nil
	}
	if isPostgres(tx) {
		// SQLite stores a Go bool in NUMERIC as 0 or 1; PostgreSQL wants a boolean.
		return tx.Exec(`ALTER TABLE servers ADD COLUMN pass_upstream_auth BOOLEAN NOT NULL DEFAULT FALSE`).Error
	}
	return tx.Exec(`ALTER TABLE servers ADD COLUMN pass_upstream_auth NUMERIC NOT NULL DEFAULT 0`).Error
}
