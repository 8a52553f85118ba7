package store

import "gorm.io/gorm"

// Migration 1000_server_isolation: servers.isolation (spec.Server.Isolation,
// shared or per-client; "" reads as shared) for every existing server, and
// request_logs.instance, the per-client instance a request went to. Raw
// SQL: this migration must never change.
func migrateServerIsolation(tx *gorm.DB) error {
	for _, c := range []struct{ table, name, def string }{
		{"servers", "isolation", `TEXT NOT NULL DEFAULT ''`},
		{"request_logs", "instance", `TEXT NOT NULL DEFAULT ''`},
	} {
		if tx.Migrator().HasColumn(c.table, c.name) {
			continue
		}
		if err := tx.Exec(`ALTER TABLE ` + c.table + ` ADD COLUMN ` + c.name + ` ` + c.def).Error; err != nil {
			return err
		}
	}
	return nil
}
