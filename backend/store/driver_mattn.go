//go:build mattn

// The store's SQLite is modernc.org/sqlite (driver_modernc.go) in every
// build. This file, under the build tag mattn, is only for the comparison
// in docs/data.md: go test -tags mattn -bench . ./backend/store/
package store

import (
	"errors"

	"github.com/mattn/go-sqlite3"
	"gorm.io/driver/sqlite"
	"gorm.io/gorm"
)

// driverName is the database/sql driver the store opens.
const driverName = "sqlite3"

func dialector(dsn string) gorm.Dialector { return sqlite.Open(dsn) }

// isBusy reports SQLITE_BUSY ("database is locked").
func isBusy(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && se.Code == sqlite3.ErrBusy
}
