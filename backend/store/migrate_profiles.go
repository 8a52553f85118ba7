package store

import "gorm.io/gorm"

// Migration 1200_profiles (issue 27): named profiles — a set of servers
// with per-tool selections and a discovery mode, each with its own endpoint
// — and a token's binding to one profile. Numbered apart (1200) so that
// branches adding migrations side by side do not collide. Raw SQL: this
// migration must never change.
//
//   - profiles: servers and tools are JSON (a server absent from tools, or
//     with no tools listed, contributes every tool); mode is all, gated or
//     search (backend/profile checks it).
//   - tokens.profile: the profile a token is bound to; ” — every existing
//     token, and a row an older build writes — is none.
//   - profiles moves config_revision like the other configuration tables
//     (migration 0005), so a profile the CLI changes reaches a running router.
func migrateProfiles(tx *gorm.DB) error {
	stmts := []string{
		`CREATE TABLE IF NOT EXISTS profiles (
			id INTEGER PRIMARY KEY AUTOINCREMENT,
			name TEXT NOT NULL UNIQUE,
			description TEXT NOT NULL DEFAULT '',
			mode TEXT NOT NULL DEFAULT 'all',
			servers TEXT,
			tools TEXT,
			created_at DATETIME,
			updated_at DATETIME)`,
	}
	pg := isPostgres(tx)
	if pg {
		stmts[0] = pgDDL(stmts[0])
	}
	bump := `BEGIN UPDATE config_revision SET value = value + 1 WHERE id = 1; END`
	for _, op := range []string{"INSERT", "UPDATE", "DELETE"} {
		if pg {
			continue // pgBumpTrigger below
		}
		stmts = append(stmts, `CREATE TRIGGER IF NOT EXISTS config_revision_profiles_`+op+` AFTER `+op+` ON profiles `+bump)
	}
	if !tx.Migrator().HasColumn("tokens", "profile") {
		stmts = append(stmts, `ALTER TABLE tokens ADD COLUMN profile TEXT NOT NULL DEFAULT ''`)
	}
	for _, s := range stmts {
		if err := tx.Exec(s).Error; err != nil {
			return err
		}
	}
	if pg {
		for _, op := range []string{"INSERT", "UPDATE", "DELETE"} {
			if err := pgBumpTrigger(tx, "profiles", op, ""); err != nil {
				return err
			}
		}
	}
	return nil
}
