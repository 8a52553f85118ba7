package store

import "gorm.io/gorm"

// Frozen schema of migration 0002. Do not edit.

// m0002Server is the servers table's new column: the activate gate
// settings of a server as one JSON document (NULL: no gate).
type m0002Server struct {
	Gate string `gorm:"type:text"`
}

func (m0002Server) TableName() string { return "servers" }

func migrate0002(tx *gorm.DB) error {
	if tx.Migrator().HasColumn(&m0002Server{}, "Gate") {
		return nil
	}
	return tx.Migrator().AddColumn(&m0002Server{}, "Gate")
}
