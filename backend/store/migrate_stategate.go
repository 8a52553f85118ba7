package store

import (
	"strings"

	"gorm.io/gorm"
)

// Migration 0100_stategate: the state_gate built-in server's tables. Raw
// SQL: this migration must never change.
//
//   - stategate_definitions: every process definition a run was started
//     with, by the SHA-256 of its YAML, so a running run keeps its version
//     when the file changes or goes away.
//   - stategate_runs: one row per run; revision is the number of accepted
//     events, bumped only by a conditional update.
//   - stategate_events: the append-only history. (run_id, seq) and
//     (run_id, idempotency_key) are unique, so no event is ever doubled and,
//     with seq = the revision it made, no gap can hide; triggers refuse any
//     UPDATE or DELETE.
//   - stategate_artifacts: files submitted with an event, with size and
//     SHA-256, also append-only.
func migrateStategate(tx *gorm.DB) error {
	pg := isPostgres(tx)
	for _, stmt := range []string{
		`CREATE TABLE IF NOT EXISTS stategate_definitions (
			hash TEXT PRIMARY KEY,
			process_id TEXT NOT NULL,
			version TEXT NOT NULL,
			source TEXT NOT NULL,
			created_at DATETIME NOT NULL
		)`,
		`CREATE TABLE IF NOT EXISTS stategate_runs (
			id TEXT PRIMARY KEY,
			process_id TEXT NOT NULL,
			process_version TEXT NOT NULL,
			definition_hash TEXT NOT NULL REFERENCES stategate_definitions(hash),
			state TEXT NOT NULL,
			revision INTEGER NOT NULL DEFAULT 0,
			context TEXT NOT NULL DEFAULT '{}',
			workspace TEXT NOT NULL,
			created_by TEXT NOT NULL DEFAULT '',
			created_at DATETIME NOT NULL,
			updated_at DATETIME NOT NULL
		)`,
		`CREATE INDEX IF NOT EXISTS idx_stategate_runs_process ON stategate_runs(process_id)`,
		`CREATE INDEX IF NOT EXISTS idx_stategate_runs_updated ON stategate_runs(updated_at)`,
		`CREATE TABLE IF NOT EXISTS stategate_events (
			id INTEGER PRIMARY KEY AUTOINCREMENT,
			event_id TEXT NOT NULL UNIQUE,
			run_id TEXT NOT NULL REFERENCES stategate_runs(id),
			seq INTEGER NOT NULL,
			name TEXT NOT NULL,
			payload TEXT NOT NULL DEFAULT '{}',
			actor TEXT NOT NULL DEFAULT '',
			from_state TEXT NOT NULL,
			to_state TEXT NOT NULL,
			idempotency_key TEXT NOT NULL,
			request_hash TEXT NOT NULL,
			result TEXT NOT NULL,
			created_at DATETIME NOT NULL,
			UNIQUE (run_id, seq),
			UNIQUE (run_id, idempotency_key)
		)`,
		`CREATE TABLE IF NOT EXISTS stategate_artifacts (
			id INTEGER PRIMARY KEY AUTOINCREMENT,
			run_id TEXT NOT NULL REFERENCES stategate_runs(id),
			event_id TEXT NOT NULL REFERENCES stategate_events(event_id),
			type TEXT NOT NULL DEFAULT '',
			path TEXT NOT NULL,
			size INTEGER NOT NULL,
			sha256 TEXT NOT NULL,
			created_at DATETIME NOT NULL
		)`,
		`CREATE INDEX IF NOT EXISTS idx_stategate_artifacts_run ON stategate_artifacts(run_id)`,
		`CREATE TRIGGER IF NOT EXISTS stategate_events_no_update BEFORE UPDATE ON stategate_events
			BEGIN SELECT RAISE(ABORT, 'stategate_events is append-only'); END`,
		`CREATE TRIGGER IF NOT EXISTS stategate_events_no_delete BEFORE DELETE ON stategate_events
			BEGIN SELECT RAISE(ABORT, 'stategate_events is append-only'); END`,
		`CREATE TRIGGER IF NOT EXISTS stategate_artifacts_no_update BEFORE UPDATE ON stategate_artifacts
			BEGIN SELECT RAISE(ABORT, 'stategate_artifacts is append-only'); END`,
		`CREATE TRIGGER IF NOT EXISTS stategate_artifacts_no_delete BEFORE DELETE ON stategate_artifacts
			BEGIN SELECT RAISE(ABORT, 'stategate_artifacts is append-only'); END`,
	} {
		if pg {
			if strings.HasPrefix(stmt, "CREATE TRIGGER") {
				continue // pgStategateTriggers
			}
			stmt = pgDDL(stmt)
		}
		if err := tx.Exec(stmt).Error; err != nil {
			return err
		}
	}
	if pg {
		return pgStategateTriggers(tx)
	}
	return nil
}

// pgStategateTriggers are the append-only triggers on PostgreSQL, and the
// notifications that let another replica's state_gate follow runs.
func pgStategateTriggers(tx *gorm.DB) error {
	for _, table := range []string{"stategate_events", "stategate_artifacts"} {
		if err := pgAppendOnlyTriggers(tx, table); err != nil {
			return err
		}
	}
	for _, table := range []string{"stategate_runs", "stategate_events"} {
		if err := pgNotifyDataTrigger(tx, table); err != nil {
			return err
		}
	}
	return nil
}
