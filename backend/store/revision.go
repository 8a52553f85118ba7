package store

import (
	"context"
	"fmt"
)

// Revision returns a number that changes whenever the configuration
// changed: a server, hook, token or setting was written by any connection —
// another process such as the CLI, this Store's own pool, or the sqlite3
// shell. Writes that are not configuration (the request log, a token's
// last-used time) leave it as it was. Compare for inequality, not order.
//
// Two reads make it cheap to poll. PRAGMA data_version, read on a
// connection reserved for this purpose (which never writes, so it sees
// every commit), is a lock-free read of the WAL index that moves on any
// commit; only when it moved is the config_revision row read, which
// migration 0005_config_revision's triggers bump in the same transaction as every
// configuration write. A trigger cannot be forgotten by a new repository
// method, costs no extra statement per write, and sees edits made outside
// the router too.
//
// On PostgreSQL the same triggers also NOTIFY, and a listening connection
// counts the notifications (pgRevisions): config_revision is read again
// only when one arrived or this Store wrote, and Data counts them.
func (s *Store) Revision(ctx context.Context) (int64, error) {
	r, err := s.Revisions(ctx)
	return r.Config, err
}

// Revisions are the store's two change counters.
type Revisions struct {
	// Config is Revision: it moves on configuration writes only.
	Config int64
	// Data is PRAGMA data_version of the reserved connection: it moves on
	// every commit by any other connection (the request log, state_gate's
	// runs, the CLI), for followers of data that is not configuration.
	Data int64
}

// Revisions reads both counters in one look (see Revision).
func (s *Store) Revisions(ctx context.Context) (Revisions, error) {
	if s.pgw != nil {
		return s.pgRevisions(ctx)
	}
	s.revMu.Lock()
	defer s.revMu.Unlock()
	var err error
	for attempt := 0; attempt < 2; attempt++ {
		if s.revConn == nil {
			if s.revConn, err = s.sql.Conn(ctx); err != nil {
				return Revisions{}, fmt.Errorf("revision: %w", err)
			}
			s.revOK = false // data_version restarts on a new connection
		}
		var dv int64
		if err = s.revConn.QueryRowContext(ctx, "PRAGMA data_version").Scan(&dv); err == nil {
			if s.revOK && dv == s.revDV {
				return Revisions{Config: s.revValue, Data: dv}, nil // no commit since the last look
			}
			var v int64
			if err = s.revConn.QueryRowContext(ctx, "SELECT value FROM config_revision WHERE id = 1").Scan(&v); err == nil {
				// A commit landing between the two reads is in v already,
				// or shows as a new data_version next time: never missed.
				s.revDV, s.revValue, s.revOK = dv, v, true
				return Revisions{Config: v, Data: dv}, nil
			}
		}
		// A broken connection is replaced once.
		s.revConn.Close()
		s.revConn = nil
		if ctx.Err() != nil {
			break
		}
	}
	return Revisions{}, fmt.Errorf("revision: %w", err)
}
