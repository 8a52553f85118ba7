package store

import "gorm.io/gorm"

// Migration 0003: indexes that keep the UI's request log queries fast at
// 100,000 rows and more. The log is read newest first by ID (keyset
// pagination: id < ? ORDER BY id DESC); an index on a filtered column holds
// the rowid too, so "client = ? AND id < ? ORDER BY id DESC" walks the index
// backwards instead of scanning the table. server and time are indexed by
// 0001. Raw SQL: this migration must never change.
func migrate0003(tx *gorm.DB) error {
	for _, stmt := range []string{
		"CREATE INDEX IF NOT EXISTS idx_request_logs_client ON request_logs(client)",
		"CREATE INDEX IF NOT EXISTS idx_request_logs_status ON request_logs(status)",
		"CREATE INDEX IF NOT EXISTS idx_request_logs_method ON request_logs(method)",
	} {
		if err := tx.Exec(stmt).Error; err != nil {
			return err
		}
	}
	return nil
}
