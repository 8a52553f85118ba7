package store

import "gorm.io/gorm"

// Frozen schema of migration 0004. Do not edit.

// m0004Token is the tokens table's new column: what a token may reach.
// Every token made before roles existed is a client token; NOT NULL with a
// default keeps it so for a row written by an older build that is still
// running against the upgraded file.
type m0004Token struct {
	Role string `gorm:"type:text;not null;default:client"`
}

func (m0004Token) TableName() string { return "tokens" }

func migrate0004(tx *gorm.DB) error {
	if !tx.Migrator().HasColumn(&m0004Token{}, "Role") {
		if err := tx.Migrator().AddColumn(&m0004Token{}, "Role"); err != nil {
			return err
		}
	}
	return tx.Model(&m0004Token{}).Where("role IS NULL OR role = ''").Update("role", "client").Error
}
