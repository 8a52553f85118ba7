package store

import (
	"strings"

	"gorm.io/gorm"
)

// Migration 0300_policy_audit: the policy's audit trail (docs/policy.md,
// "Audit"). Numbered apart from the others so that branches adding
// migrations side by side do not collide. Raw SQL: this migration must
// never change.
//
// Each row carries the SHA-256 of the row before it (prev_hash) and its own
// (hash, over its fields and prev_hash), so `mcp-router audit verify`
// finds an edited or deleted row. Triggers refuse UPDATE and DELETE: the
// table is append-only, and nothing (retention included) removes a row
// without first dropping them.
func migratePolicyAudit(tx *gorm.DB) error {
	for _, s := range []string{
		`CREATE TABLE IF NOT EXISTS policy_audit (
			id INTEGER PRIMARY KEY AUTOINCREMENT,
			time TEXT NOT NULL,
			client TEXT NOT NULL DEFAULT '',
			subject TEXT NOT NULL DEFAULT '',
			server TEXT NOT NULL DEFAULT '',
			tool TEXT NOT NULL DEFAULT '',
			target TEXT NOT NULL DEFAULT '',
			policies TEXT NOT NULL DEFAULT '',
			arguments TEXT NOT NULL DEFAULT '',
			status TEXT NOT NULL DEFAULT '',
			result TEXT NOT NULL DEFAULT '',
			error TEXT NOT NULL DEFAULT '',
			prev_hash TEXT NOT NULL,
			hash TEXT NOT NULL)`,
		`CREATE TRIGGER IF NOT EXISTS policy_audit_no_update BEFORE UPDATE ON policy_audit
			BEGIN SELECT RAISE(ABORT, 'policy_audit is append-only'); END`,
		`CREATE TRIGGER IF NOT EXISTS policy_audit_no_delete BEFORE DELETE ON policy_audit
			BEGIN SELECT RAISE(ABORT, 'policy_audit is append-only'); END`,
	} {
		if isPostgres(tx) {
			if strings.HasPrefix(s, "CREATE TRIGGER") {
				continue // below
			}
			s = pgDDL(s)
		}
		if err := tx.Exec(s).Error; err != nil {
			return err
		}
	}
	if isPostgres(tx) {
		return pgAppendOnlyTriggers(tx, "policy_audit")
	}
	return nil
}
