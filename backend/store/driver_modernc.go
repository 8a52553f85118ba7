//go:build !mattn

// SQLite in pure Go (modernc.org/sqlite): every build but the Linux and
// macOS desktop shells is CGO-free, so Windows and headless builds cross-
// compile without a C toolchain. Figures and reasons: docs/data.md.
package store

import (
	"errors"

	"gorm.io/driver/sqlite"
	"gorm.io/gorm"
	msqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// driverName is the database/sql driver the store opens.
const driverName = "sqlite"

func dialector(dsn string) gorm.Dialector {
	return moderncDialector{sqlite.Dialector{DriverName: driverName, DSN: dsn}}
}

// moderncDialector translates modernc's errors: the GORM dialector reads the
// result code from mattn's exported fields, which modernc's error lacks.
type moderncDialector struct{ sqlite.Dialector }

func (d moderncDialector) Translate(err error) error {
	var se *msqlite.Error
	if errors.As(err, &se) {
		switch se.Code() {
		case sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY, sqlite3.SQLITE_CONSTRAINT_UNIQUE:
			return gorm.ErrDuplicatedKey
		case sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY:
			return gorm.ErrForeignKeyViolated
		}
	}
	return err
}

// isBusy reports SQLITE_BUSY ("database is locked").
func isBusy(err error) bool {
	var se *msqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_BUSY
}
