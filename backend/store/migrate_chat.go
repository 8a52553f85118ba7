package store

import "gorm.io/gorm"

// Migration 0200_chat: the chat panel's tables and a server's chat
// instructions. Numbered apart from the others so that branches adding
// migrations side by side do not collide. Raw SQL: this migration must
// never change.
//
//   - servers.chat: the server's chat settings as one JSON document
//     (spec.Chat; NULL: none);
//   - chat_providers: the model providers the user configured (their API
//     keys are not here: see backend/chat/keys.go);
//   - chat_conversations and chat_messages: conversations with their
//     user and assistant texts, never the intermediate tool steps.
func migrateChat0001(tx *gorm.DB) error {
	stmts := []string{
		`CREATE TABLE IF NOT EXISTS chat_providers (
			id INTEGER PRIMARY KEY AUTOINCREMENT,
			name TEXT NOT NULL UNIQUE,
			kind TEXT NOT NULL,
			base_url TEXT NOT NULL DEFAULT '',
			default_model TEXT NOT NULL DEFAULT '',
			tools TEXT NOT NULL DEFAULT 'auto',
			created_at DATETIME,
			updated_at DATETIME)`,
		`CREATE TABLE IF NOT EXISTS chat_conversations (
			id INTEGER PRIMARY KEY AUTOINCREMENT,
			title TEXT NOT NULL DEFAULT '',
			provider TEXT NOT NULL DEFAULT '',
			model TEXT NOT NULL DEFAULT '',
			disabled_servers TEXT,
			approved_tools TEXT,
			input_tokens INTEGER NOT NULL DEFAULT 0,
			output_tokens INTEGER NOT NULL DEFAULT 0,
			created_at DATETIME,
			updated_at DATETIME)`,
		`CREATE INDEX IF NOT EXISTS idx_chat_conversations_updated ON chat_conversations(updated_at)`,
		`CREATE TABLE IF NOT EXISTS chat_messages (
			id INTEGER PRIMARY KEY AUTOINCREMENT,
			conversation_id INTEGER NOT NULL REFERENCES chat_conversations(id) ON DELETE CASCADE,
			role TEXT NOT NULL,
			content TEXT NOT NULL DEFAULT '',
			model TEXT NOT NULL DEFAULT '',
			input_tokens INTEGER NOT NULL DEFAULT 0,
			output_tokens INTEGER NOT NULL DEFAULT 0,
			tool_calls INTEGER NOT NULL DEFAULT 0,
			error TEXT NOT NULL DEFAULT '',
			created_at DATETIME)`,
		`CREATE INDEX IF NOT EXISTS idx_chat_messages_conversation ON chat_messages(conversation_id, id)`,
	}
	if !tx.Migrator().HasColumn("servers", "chat") {
		stmts = append(stmts, `ALTER TABLE servers ADD COLUMN chat TEXT`)
	}
	for _, s := range stmts {
		if isPostgres(tx) {
			s = pgDDL(s)
		}
		if err := tx.Exec(s).Error; err != nil {
			return err
		}
	}
	return nil
}
