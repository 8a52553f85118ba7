package store

import "gorm.io/gorm"

// Migration 1400_server_protocol: servers.protocol (spec.Server.Protocol:
// "" auto, 2025-11-25 or 2026-07-28), auto for every existing server. Raw
// SQL: this migration must never change.
func migrateServerProtocol(tx *gorm.DB) error {
	if tx.Migrator().HasColumn("servers", "protocol") {
		return nil
	}
	return tx.Exec(`ALTER TABLE servers ADD COLUMN protocol TEXT NOT NULL DEFAULT ''`).Error
}
