package store

import (
	"context"
	"fmt"
	"sort"

	"github.com/go-gormigrate/gormigrate/v2"
	"gorm.io/gorm"
)

const migrationTable = "migrations"

// migrations is append-only: a released migration is never edited, because
// users' databases already record it as done. Each one uses its own frozen
// structs so later changes to the live models cannot alter what it does.
var migrations = []*gormigrate.Migration{
	{ID: "0001_initial", Migrate: migrate0001},
	{ID: "0002_server_gate", Migrate: migrate0002},
	{ID: "0003_request_log_indexes", Migrate: migrate0003},
	{ID: "0004_token_roles", Migrate: migrateTokenRoles},
	{ID: "0005_config_revision", Migrate: migrateConfigRevision},
	{ID: "0006_server_timeout_follows_setting", Migrate: migrateServerTimeoutFollowsSetting},
	// state_gate's tables; numbered apart from the others (keep it last) so
	// that branches adding migrations side by side do not collide.
	{ID: "0100_stategate", Migrate: migrateStategate},
	// The chat panel's tables; numbered apart (0200) so branches adding
	// migrations side by side do not collide.
	{ID: "0200_chat", Migrate: migrateChat0001},
	// The policy's audit trail (0300: numbered apart, see above).
	{ID: "0300_policy_audit", Migrate: migratePolicyAudit},
	// A server's passUpstreamAuth (issue 19); numbered apart (0400).
	{ID: "0400_server_pass_upstream_auth", Migrate: migratePassUpstreamAuth},
	// Upstream OAuth logins' generations (issue 19); numbered apart (0500).
	{ID: "0500_upstream_logins", Migrate: migrateUpstreamLogins},
	// The request log's backend tool of an ability call (issue 18); 0700.
	{ID: "0700_request_log_backend_tool", Migrate: migrateRequestLogBackendTool},
	// Secret env and header entries of servers (issue 24, item 7); 0800.
	{ID: "0800_server_secrets", Migrate: migrateServerSecrets},
	// A token's own roles, for state_gate (issue 24); numbered apart (0900).
	{ID: "0900_token_custom_roles", Migrate: migrateTokenCustomRoles},
	// A server's isolation, and the request log's instance (issue 26); 1000.
	{ID: "1000_server_isolation", Migrate: migrateServerIsolation},
	// The persisted catalog and tool pins (issue 27); numbered apart (1100).
	{ID: "1100_catalog", Migrate: migrateCatalog},
	// Profiles and a token's profile (issue 27); numbered apart (1200).
	{ID: "1200_profiles", Migrate: migrateProfiles},
	// A server's protocol revision setting (issue 25); numbered apart (1400).
	{ID: "1400_server_protocol", Migrate: migrateServerProtocol},
	// A server's start mode, eager or lazy (issue 27); numbered apart (1500).
	{ID: "1500_server_start", Migrate: migrateServerStart},
	// Where a server was installed from: an MCP Registry entry (issue 28,
	// item 2); numbered apart (1600).
	{ID: "1600_server_source", Migrate: migrateServerSource},
	// The .mcpb bundle a server came from (issue 28); numbered apart (1700).
	{ID: "1700_server_bundle", Migrate: migrateServerBundle},
}

// MigrationIDs lists the migrations this build knows, oldest first.
func MigrationIDs() []string {
	ids := make([]string, len(migrations))
	for i, m := range migrations {
		ids[i] = m.ID
	}
	return ids
}

// migrate runs inside one immediate transaction, so a CLI and the app
// starting together cannot both migrate, and a failed migration leaves the
// file as it was.
//
// On PostgreSQL a transaction-scoped advisory lock plays the immediate
// transaction's part: replicas starting together migrate one at a time, and
// the others then find every migration done.
func migrate(ctx context.Context, db *gorm.DB) error {
	return db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if isPostgres(tx) {
			if err := tx.Exec("SELECT pg_advisory_xact_lock(?)", pgLockMigrate).Error; err != nil {
				return fmt.Errorf("migrate: wait for the migration lock: %w", err)
			}
		}
		if err := checkNotNewer(tx); err != nil {
			return err
		}
		opts := *gormigrate.DefaultOptions
		opts.TableName = migrationTable
		opts.UseTransaction = false // we already are in one
		opts.ValidateUnknownMigrations = true
		if err := gormigrate.New(tx, &opts, migrations).Migrate(); err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
		return nil
	})
}

// checkNotNewer refuses a database that records migrations we don't know.
// gormigrate can detect this too (ErrUnknownPastMigration) but without saying
// which IDs, and the user needs to know it is a version problem.
func checkNotNewer(tx *gorm.DB) error {
	if !tx.Migrator().HasTable(migrationTable) {
		return nil
	}
	var applied []string
	if err := tx.Table(migrationTable).Pluck("id", &applied).Error; err != nil {
		return fmt.Errorf("read applied migrations: %w", err)
	}
	known := make(map[string]bool, len(migrations))
	for _, m := range migrations {
		known[m.ID] = true
	}
	var unknown []string
	for _, id := range applied {
		if !known[id] {
			unknown = append(unknown, id)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return fmt.Errorf("%w (unknown migrations %q; this build knows up to %q): upgrade MCP Router or use another --data-dir",
			ErrNewerDatabase, unknown, migrations[len(migrations)-1].ID)
	}
	return nil
}
