package store

import "gorm.io/gorm"

// Migration 1600_server_source: servers.source_registry, source_name and
// source_version (spec.Server.Source: the MCP Registry entry a server was
// installed from), empty for every existing server. Raw SQL: this
// migration must never change.
func migrateServerSource(tx *gorm.DB) error {
	for _, col := range []string{"source_registry", "source_name", "source_version"} {
		if tx.Migrator().HasColumn("servers", col) {
			continue
		}
		if err := tx.Exec(`ALTER TABLE servers ADD COLUMN ` + col + ` TEXT NOT NULL DEFAULT ''`).Error; err != nil {
			return err
		}
	}
	return nil
}
