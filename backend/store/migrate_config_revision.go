package store

import "gorm.io/gorm"

// Migration 0005_config_revision: a configuration revision that only configuration changes
// move. Store.Revision used PRAGMA data_version alone, which every commit
// moves — the request log's batches and a token's last-used time too — so
// a running router reloaded everything twice a second under traffic.
//
// Triggers bump the one row of config_revision on every write to the
// tables that hold configuration (servers, hooks, settings, tokens), in the
// same transaction as the write, whoever makes it: this process, the CLI in
// another one, or the sqlite3 shell. A token's update that leaves
// last_used_at as it was is a configuration change (revoke, new scope, …);
// Touch changes only last_used_at, so it moves nothing. request_logs has no
// trigger. Raw SQL: this migration must never change.
func migrateConfigRevision(tx *gorm.DB) error {
	if isPostgres(tx) {
		return pgConfigRevision(tx)
	}
	stmts := []string{
		`CREATE TABLE IF NOT EXISTS config_revision (id INTEGER PRIMARY KEY CHECK (id = 1), value INTEGER NOT NULL)`,
		`INSERT OR IGNORE INTO config_revision (id, value) VALUES (1, 1)`,
	}
	bump := `BEGIN UPDATE config_revision SET value = value + 1 WHERE id = 1; END`
	for _, table := range []string{"servers", "hooks", "settings", "tokens"} {
		for _, op := range []string{"INSERT", "DELETE"} {
			stmts = append(stmts, `CREATE TRIGGER IF NOT EXISTS config_revision_`+table+`_`+op+
				` AFTER `+op+` ON `+table+` `+bump)
		}
		when := ""
		if table == "tokens" {
			when = ` WHEN OLD.last_used_at IS NEW.last_used_at`
		}
		stmts = append(stmts, `CREATE TRIGGER IF NOT EXISTS config_revision_`+table+`_UPDATE AFTER UPDATE ON `+table+when+` `+bump)
	}
	for _, s := range stmts {
		if err := tx.Exec(s).Error; err != nil {
			return err
		}
	}
	return nil
}

// pgConfigRevision is migration 0005 on PostgreSQL: the same table and
// row, the triggers through pgBumpTrigger (which also NOTIFY).
func pgConfigRevision(tx *gorm.DB) error {
	if err := pgCreateFunctions(tx); err != nil {
		return err
	}
	if err := execAll(tx,
		`CREATE TABLE IF NOT EXISTS config_revision (id INTEGER PRIMARY KEY CHECK (id = 1), value BIGINT NOT NULL)`,
		`INSERT INTO config_revision (id, value) VALUES (1, 1) ON CONFLICT DO NOTHING`,
	); err != nil {
		return err
	}
	for _, table := range []string{"servers", "hooks", "settings", "tokens"} {
		for _, op := range []string{"INSERT", "DELETE"} {
			if err := pgBumpTrigger(tx, table, op, ""); err != nil {
				return err
			}
		}
		when := ""
		if table == "tokens" {
			when = `OLD.last_used_at IS NOT DISTINCT FROM NEW.last_used_at`
		}
		if err := pgBumpTrigger(tx, table, "UPDATE", when); err != nil {
			return err
		}
	}
	return nil
}
