package store

import "gorm.io/gorm"

// Migration 1500_server_start: servers.start (spec.Server.Start: "" eager,
// eager or lazy), eager for every existing server. Raw SQL: this migration
// must never change.
func migrateServerStart(tx *gorm.DB) error {
	if tx.Migrator().HasColumn("servers", "start") {
		return nil
	}
	return tx.Exec(`ALTER TABLE servers ADD COLUMN start TEXT NOT NULL DEFAULT ''`).Error
}
