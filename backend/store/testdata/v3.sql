-- Frozen fixture: a database as written by schema migration 0003_request_log_indexes, made by that
-- release's own CLI (servers add fs; tokens create laptop; tokens create ci --servers fs;
-- snippet --client claude-code; tokens create gone; tokens revoke gone), then sqlite3 .dump.
-- Never regenerate or edit it; later versions must open it. The secrets are in store_test.go.
PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
CREATE TABLE `migrations` (`id` text,PRIMARY KEY (`id`));
INSERT INTO migrations VALUES('0001_initial');
INSERT INTO migrations VALUES('0002_server_gate');
INSERT INTO migrations VALUES('0003_request_log_indexes');
CREATE TABLE `servers` (`id` integer PRIMARY KEY AUTOINCREMENT,`name` text NOT NULL,`transport` text NOT NULL,`command` text,`args` text,`env` text,`cwd` text,`url` text,`headers` text,`enabled` numeric,`prefix_mode` text,`timeout_seconds` integer,`disabled_tools` text,`created_at` datetime,`updated_at` datetime, `gate` text);
INSERT INTO servers VALUES(1,'fs','stdio','echo','["fs"]',NULL,'','',NULL,1,'always',60,NULL,'2026-11-24 00:51:52.535779658+00:00','2026-11-24 00:51:52.535779658+00:00','{"enabled":false}');
CREATE TABLE `settings` (`key` text,`value` text NOT NULL,`updated_at` datetime,PRIMARY KEY (`key`));
INSERT INTO settings VALUES('auth','on','2026-11-24 00:51:52.644484342+00:00');
CREATE TABLE `hooks` (`id` integer PRIMARY KEY AUTOINCREMENT,`name` text NOT NULL,`enabled` numeric,`execution_order` integer,`hook_type` text NOT NULL,`script` text,`fail_closed` numeric,`created_at` datetime,`updated_at` datetime);
CREATE TABLE `tokens` (`id` integer PRIMARY KEY AUTOINCREMENT,`name` text NOT NULL,`hash` text NOT NULL,`prefix` text,`servers` text,`created_at` datetime,`last_used_at` datetime,`revoked_at` datetime);
INSERT INTO tokens VALUES(1,'laptop','24fd8ae85397636eee05b8b8e59be6d654f72bdf73442fd393628ddaeaafe302','mcpr_jZjRI4x',NULL,'2026-11-24 00:51:52.802817083+00:00',NULL,NULL);
INSERT INTO tokens VALUES(2,'ci','90cff5052d14913108689461324d111f73f00617659ad95f3818ffb4551568a0','mcpr_XVTQPPp','["fs"]','2026-11-24 00:51:53.01191984+00:00',NULL,NULL);
INSERT INTO tokens VALUES(3,'claude-code','8a2c3c3c172d68bc08cf500d2136f75db40eb5f61d3fc5c725c2acaeb4f355c8','mcpr_aEGQaPx',NULL,'2026-11-24 00:51:53.127212017+00:00',NULL,NULL);
INSERT INTO tokens VALUES(4,'gone','80068bc0d3b499ef435390746c770b0fd33e96898bb2a3d69c099aef60bee20b','mcpr_-jaduiZ',NULL,'2026-11-24 00:51:53.511920661+00:00',NULL,'2026-11-24 00:51:53.635123792+00:00');
CREATE TABLE `request_logs` (`id` integer PRIMARY KEY AUTOINCREMENT,`time` datetime NOT NULL,`client` text,`server` text,`method` text,`target` text,`duration_ms` real,`status` text,`error` text,`request` text,`response` text);
DELETE FROM sqlite_sequence;
INSERT INTO sqlite_sequence VALUES('servers',1);
INSERT INTO sqlite_sequence VALUES('tokens',4);
CREATE UNIQUE INDEX `idx_servers_name` ON `servers`(`name`);
CREATE UNIQUE INDEX `idx_hooks_name` ON `hooks`(`name`);
CREATE UNIQUE INDEX `idx_tokens_hash` ON `tokens`(`hash`);
CREATE UNIQUE INDEX `idx_tokens_name` ON `tokens`(`name`);
CREATE INDEX `idx_request_logs_server` ON `request_logs`(`server`);
CREATE INDEX `idx_request_logs_time` ON `request_logs`(`time`);
CREATE INDEX idx_request_logs_client ON request_logs(client);
CREATE INDEX idx_request_logs_status ON request_logs(status);
CREATE INDEX idx_request_logs_method ON request_logs(method);
COMMIT;
