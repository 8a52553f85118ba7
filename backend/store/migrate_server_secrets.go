package store

import "gorm.io/gorm"

// Migration 0800_server_secrets: which env and header entries of a server
// are secret (servers.secret_env, servers.secret_headers: JSON arrays of
// names; spec.Server.SecretEnv, SecretHeaders) and servers.secret_revision,
// which moves when one of their values changes. Only the names are stored:
// the values are in the OS keychain or the 0600 secrets file
// (backend/secrets). Empty for every existing server. Raw SQL: this
// migration must never change.
func migrateServerSecrets(tx *gorm.DB) error {
	for _, c := range []struct{ name, def string }{
		{"secret_env", `TEXT`},
		{"secret_headers", `TEXT`},
		{"secret_revision", `INTEGER NOT NULL DEFAULT 0`},
	} {
		if tx.Migrator().HasColumn("servers", c.name) {
			continue
		}
		if err := tx.Exec(`ALTER TABLE servers ADD COLUMN ` + c.name + ` ` + c.def).Error; err != nil {
			return err
		}
	}
	return nil
}
