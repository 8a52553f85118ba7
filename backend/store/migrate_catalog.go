package store

import (
	"strings"

	"gorm.io/gorm"
)

// Migration 1100_catalog: the persisted catalog (issue 27, items 3 and 5).
// Numbered apart so that branches adding migrations side by side do not
// collide. Raw SQL: this migration must never change.
//
//   - catalog_lists: each server's last tools, resources, resource
//     templates and prompts lists as the upstream sent them (a JSON array of
//     its raw items), with the ttlMs it gave (NULL: none) and when it was
//     seen; one row per server and list.
//   - catalog_tool_pins: each tool's definition as first seen (or last
//     accepted) and its hash; pending_* hold a changed definition no person
//     has accepted yet. Accepting moves pinned_hash, and a trigger bumps
//     config_revision on that alone, so a running router sees an accept
//     made by the CLI within a second, while the router's own recording of
//     a change (pending_*) reloads nothing.
//   - servers.tool_changes: a server's own toolChanges mode (empty: follows
//     the setting).
func migrateCatalog(tx *gorm.DB) error {
	stmts := []string{
		`CREATE TABLE IF NOT EXISTS catalog_lists (
			server TEXT NOT NULL,
			list TEXT NOT NULL,
			items TEXT NOT NULL,
			ttl_ms INTEGER,
			seen_at DATETIME NOT NULL,
			PRIMARY KEY (server, list))`,
		`CREATE TABLE IF NOT EXISTS catalog_tool_pins (
			server TEXT NOT NULL,
			tool TEXT NOT NULL,
			pinned_hash TEXT NOT NULL,
			pinned_def TEXT NOT NULL,
			first_seen_at DATETIME NOT NULL,
			present INTEGER NOT NULL DEFAULT 1,
			last_seen_at DATETIME NOT NULL,
			pending_hash TEXT NOT NULL DEFAULT '',
			pending_def TEXT NOT NULL DEFAULT '',
			changed_at DATETIME,
			accepted_at DATETIME,
			accepted_by TEXT NOT NULL DEFAULT '',
			PRIMARY KEY (server, tool))`,
		`CREATE TRIGGER IF NOT EXISTS config_revision_catalog_tool_pins_accept
			AFTER UPDATE OF pinned_hash ON catalog_tool_pins WHEN OLD.pinned_hash IS NOT NEW.pinned_hash
			BEGIN UPDATE config_revision SET value = value + 1 WHERE id = 1; END`,
	}
	if isPostgres(tx) {
		if err := pgCatalog(tx, stmts); err != nil {
			return err
		}
	} else {
		for _, s := range stmts {
			if err := tx.Exec(s).Error; err != nil {
				return err
			}
		}
	}
	if tx.Migrator().HasColumn("servers", "tool_changes") {
		return nil
	}
	return tx.Exec(`ALTER TABLE servers ADD COLUMN tool_changes TEXT NOT NULL DEFAULT ''`).Error
}

// pgCatalog is migration 1100's tables and trigger on PostgreSQL: present
// is a boolean there (SQLite keeps Go's bool as 0 or 1 in INTEGER).
func pgCatalog(tx *gorm.DB, stmts []string) error {
	for _, s := range stmts {
		if strings.HasPrefix(s, "CREATE TRIGGER") {
			continue
		}
		s = strings.Replace(pgDDL(s), "present BIGINT NOT NULL DEFAULT 1", "present BOOLEAN NOT NULL DEFAULT TRUE", 1)
		if err := tx.Exec(s).Error; err != nil {
			return err
		}
	}
	return pgBumpTrigger(tx, "catalog_tool_pins", "UPDATE OF pinned_hash", "OLD.pinned_hash IS DISTINCT FROM NEW.pinned_hash")
}
