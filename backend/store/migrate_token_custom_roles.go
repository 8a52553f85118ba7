package store

import "gorm.io/gorm"

// Migration 0900_token_custom_roles: tokens.roles, a token's own roles
// (Token.Roles) as a JSON array; NULL — every existing token, and a row an
// older build still running against the upgraded file writes — is none.
// Raw SQL: this migration must never change.
func migrateTokenCustomRoles(tx *gorm.DB) error {
	if tx.Migrator().HasColumn("tokens", "roles") {
		return nil
	}
	return tx.Exec(`ALTER TABLE tokens ADD COLUMN roles TEXT`).Error
}
