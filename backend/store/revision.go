package store

import (
	"context"
	"fmt"
)

// Revision returns a number that differs from the previous call's whenever
// any other connection — another process such as the CLI, or this Store's
// own pool — committed a write. Compare for inequality, not order.
//
// It is PRAGMA data_version read on a connection reserved for this purpose
// (which therefore never writes itself, so it sees every commit). We chose it
// over a counter table because it costs no extra write per change, cannot be
// forgotten by a new repository method, and also notices edits made with the
// sqlite3 shell. Polling it is a lock-free read of the WAL index.
func (s *Store) Revision(ctx context.Context) (int64, error) {
	s.revMu.Lock()
	defer s.revMu.Unlock()
	var v int64
	var err error
	for attempt := 0; attempt < 2; attempt++ {
		if s.revConn == nil {
			if s.revConn, err = s.sql.Conn(ctx); err != nil {
				return 0, fmt.Errorf("revision: %w", err)
			}
			s.revGen++
		}
		if err = s.revConn.QueryRowContext(ctx, "PRAGMA data_version").Scan(&v); err == nil {
			// data_version restarts on a new connection; the generation in
			// the high bits keeps the result from repeating an old value.
			return s.revGen<<40 | v&(1<<40-1), nil
		}
		// A broken connection is replaced once.
		s.revConn.Close()
		s.revConn = nil
		if ctx.Err() != nil {
			break
		}
	}
	return 0, fmt.Errorf("revision: %w", err)
}
