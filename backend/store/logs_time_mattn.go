//go:build mattn

package store

import "time"

// appendLogTime appends the text mattn/go-sqlite3 stores for a bound
// time.Time (its SQLiteTimestampFormats[0]); see logs_time.go.
func appendLogTime(b []byte, t time.Time) []byte {
	return t.AppendFormat(b, "2006-01-02 15:04:05.999999999-07:00")
}
