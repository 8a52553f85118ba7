package store

import "gorm.io/gorm"

// Migration 0700_request_log_backend_tool: request_logs.backend_tool, the
// upstream's own name of the tool an ability call was routed to
// (RequestLog.BackendTool); empty for every existing row. Adding a column
// with a constant default rewrites no row, however long the log. Raw SQL:
// this migration must never change.
func migrateRequestLogBackendTool(tx *gorm.DB) error {
	if tx.Migrator().HasColumn("request_logs", "backend_tool") {
		return nil
	}
	return tx.Exec(`ALTER TABLE request_logs ADD COLUMN backend_tool TEXT NOT NULL DEFAULT ''`).Error
}
