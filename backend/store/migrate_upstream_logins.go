package store

import "gorm.io/gorm"

// Migration 0500_upstream_logins: upstream_logins, one row per HTTP server
// with an OAuth login (backend/oauthclient), moved each time the login is
// made, refreshed into a new one or removed. The tokens themselves are
// never here (they are in the keychain, else a 0600 file): the row only
// tells a running router, through config_revision, that a login changed
// in another process (`mcp-router servers login` while the app runs).
// Raw SQL: this migration must never change.
func migrateUpstreamLogins(tx *gorm.DB) error {
	if isPostgres(tx) {
		if err := tx.Exec(`CREATE TABLE IF NOT EXISTS upstream_logins (server TEXT PRIMARY KEY NOT NULL, generation BIGINT NOT NULL DEFAULT 1)`).Error; err != nil {
			return err
		}
		for _, op := range []string{"INSERT", "UPDATE", "DELETE"} {
			if err := pgBumpTrigger(tx, "upstream_logins", op, ""); err != nil {
				return err
			}
		}
		return nil
	}
	bump := `BEGIN UPDATE config_revision SET value = value + 1 WHERE id = 1; END`
	stmts := []string{
		`CREATE TABLE IF NOT EXISTS upstream_logins (server TEXT PRIMARY KEY NOT NULL, generation INTEGER NOT NULL DEFAULT 1)`,
	}
	for _, op := range []string{"INSERT", "UPDATE", "DELETE"} {
		stmts = append(stmts, `CREATE TRIGGER IF NOT EXISTS config_revision_upstream_logins_`+op+
			` AFTER `+op+` ON upstream_logins `+bump)
	}
	for _, s := range stmts {
		if err := tx.Exec(s).Error; err != nil {
			return err
		}
	}
	return nil
}
