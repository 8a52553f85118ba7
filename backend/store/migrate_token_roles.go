package store

import "gorm.io/gorm"

// Frozen schema of migration 0004_token_roles. Do not edit.

// mTokenRolesToken is the tokens table's new column: what a token may reach.
// Every token made before roles existed is a client token; NOT NULL with a
// default keeps it so for a row written by an older build that is still
// running against the upgraded file.
type mTokenRolesToken struct {
	Role string `gorm:"type:text;not null;default:client"`
}

func (mTokenRolesToken) TableName() string { return "tokens" }

func migrateTokenRoles(tx *gorm.DB) error {
	if !tx.Migrator().HasColumn(&mTokenRolesToken{}, "Role") {
		if err := tx.Migrator().AddColumn(&mTokenRolesToken{}, "Role"); err != nil {
			return err
		}
	}
	return tx.Model(&mTokenRolesToken{}).Where("role IS NULL OR role = ''").Update("role", "client").Error
}
