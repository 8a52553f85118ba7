package store

import "gorm.io/gorm"

// Migration 0006_server_timeout_follows_setting: a server's timeout of 0 now means "the timeout setting".
// Until then every definition was stored with 60 (the default that
// spec.Normalize filled in) and the setting was read nowhere, so 60 is what
// a server without a timeout of its own holds: those follow the setting
// from now on (whose default is 60 too, so nothing changes until the user
// changes it). Raw SQL: this migration must never change.
func migrateServerTimeoutFollowsSetting(tx *gorm.DB) error {
	return tx.Exec(`UPDATE servers SET timeout_seconds = 0 WHERE timeout_seconds = 60`).Error
}
