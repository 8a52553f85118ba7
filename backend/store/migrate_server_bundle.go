package store

import "gorm.io/gorm"

// Migration 1700_server_bundle: servers.bundle (spec.Server.Bundle: the
// .mcpb bundle a server was installed from, as JSON: name, version,
// author, the manifest's tools, its signature), NULL for every existing
// server. Raw SQL: this migration must never change.
func migrateServerBundle(tx *gorm.DB) error {
	if tx.Migrator().HasColumn("servers", "bundle") {
		return nil
	}
	return tx.Exec(`ALTER TABLE servers ADD COLUMN bundle TEXT`).Error
}
