package core

import (
	"path/filepath"

	"github.com/sirupsen/logrus"

	"github.com/mcp-router/mcp-router/backend/chat"
	"github.com/mcp-router/mcp-router/backend/filemode"
	"github.com/mcp-router/mcp-router/backend/oauthclient"
	"github.com/mcp-router/mcp-router/backend/secrets"
)

// secretFiles are the files of the data dir that hold secrets besides the
// database (store.OpenWith keeps that one private): the fallback files of
// the chat providers' API keys, of the upstream logins and of servers'
// secret env and header values, used where no
// OS keychain answers. A new file holding secrets belongs here.
func secretFiles(dataDir string) []string {
	return []string{
		filepath.Join(dataDir, chat.KeyFileName),
		filepath.Join(dataDir, oauthclient.FileName),
		filepath.Join(dataDir, secrets.ServerFileName),
	}
}

// protectSecretFiles makes the secret files 0600 at open, whatever mode a
// copy, a restore or an older version left them with; each change is
// logged as a warning. (They are written 0600 already.)
func protectSecretFiles(dataDir string, log logrus.FieldLogger) {
	for _, p := range secretFiles(dataDir) {
		c, err := filemode.Protect(p)
		switch {
		case err != nil:
			log.Warnf("secrets file: %v", err)
		case c != nil:
			log.Warnf("secrets file: %s", c)
		}
	}
}

// protectDataDir makes the data dir 0700 (creating it) when the store is
// not in it: store.OpenWith does this for the SQLite file's directory, and
// with --database the dir still holds the secret files.
func protectDataDir(dataDir string, log logrus.FieldLogger) {
	c, err := filemode.MakeDir(dataDir)
	switch {
	case err != nil:
		log.Warnf("data directory (it holds secrets): %v", err)
	case c != nil:
		log.Warnf("data directory (it holds secrets): %s", c)
	}
}
