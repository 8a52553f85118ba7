package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"gorm.io/gorm"
)

// AuditRow is one call recorded by a policy rule with log_level: audit.
type AuditRow struct {
	ID        uint64 `json:"id" gorm:"primaryKey"`
	Time      string `json:"time"` // RFC 3339 with nanoseconds, UTC (hashed as written)
	Client    string `json:"client"`
	Subject   string `json:"subject,omitempty"`
	Server    string `json:"server"`
	Tool      string `json:"tool"`   // the upstream's own name
	Target    string `json:"target"` // the name the client called
	Policies  string `json:"policies"`
	Arguments string `json:"arguments"` // as the client sent them (JSON)
	Status    string `json:"status"`    // ok, error, blocked
	Result    string `json:"result,omitempty"`
	Error     string `json:"error,omitempty"`
	PrevHash  string `json:"prevHash"`
	Hash      string `json:"hash"`
}

// TableName is the migration's table.
func (AuditRow) TableName() string { return "policy_audit" }

// GenesisHash is the prev_hash of the first row.
const GenesisHash = "0000000000000000000000000000000000000000000000000000000000000000"

// AuditHash is the SHA-256 of a row: its fields (ID included) and the
// previous row's hash, each length-prefixed so no two rows hash alike.
func AuditHash(r AuditRow) string {
	h := sha256.New()
	for _, f := range []string{"mcp-router audit v1", strconv.FormatUint(r.ID, 10), r.Time, r.Client, r.Subject, r.Server,
		r.Tool, r.Target, r.Policies, r.Arguments, r.Status, r.Result, r.Error, r.PrevHash} {
		fmt.Fprintf(h, "%d:%s\n", len(f), f)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// AuditRepo is the audit trail: append, read, verify. Nothing here updates
// or deletes a row (the table's triggers refuse it anyway).
type AuditRepo struct {
	db *gorm.DB
	mu *sync.Mutex
}

// auditMu serializes appends in this process (the chain needs the last
// hash); the transaction keeps other processes out.
var auditMu sync.Mutex

// Audit is the audit trail's repository.
func (s *Store) Audit() AuditRepo { return AuditRepo{db: s.db, mu: &auditMu} }

// Append adds r at the end of the chain, filling ID, Time (if zero),
// PrevHash and Hash.
func (a AuditRepo) Append(ctx context.Context, r AuditRow, at time.Time) (AuditRow, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if at.IsZero() {
		at = time.Now()
	}
	r.Time = at.UTC().Format(time.RFC3339Nano)
	err := a.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		// auditMu orders this process's writers; on PostgreSQL other
		// replicas append too, so the chain's end is locked in the database.
		if isPostgres(tx) {
			if err := tx.Exec("SELECT pg_advisory_xact_lock(?)", pgLockAudit).Error; err != nil {
				return err
			}
		}
		var last AuditRow
		err := tx.Order("id DESC").Limit(1).Take(&last).Error
		switch {
		case errors.Is(err, gorm.ErrRecordNotFound):
			r.PrevHash = GenesisHash
		case err != nil:
			return err
		default:
			r.PrevHash = last.Hash
		}
		// The id is the next of the table's sequence (AUTOINCREMENT never
		// reuses one), chosen here so the hash can cover it.
		seq, err := auditSequence(tx)
		if err != nil {
			return err
		}
		r.ID = max(seq, last.ID) + 1
		r.Hash = AuditHash(r)
		if err := tx.Create(&r).Error; err != nil {
			return err
		}
		return advanceAuditSequence(tx, r.ID)
	})
	if err != nil {
		return AuditRow{}, fmt.Errorf("append to the audit trail: %w", err)
	}
	return r, nil
}

// Each calls fn with every row in order, a page at a time.
func (a AuditRepo) Each(ctx context.Context, fn func(AuditRow) error) error {
	var after uint64
	for {
		var page []AuditRow
		if err := a.db.WithContext(ctx).Where("id > ?", after).Order("id").Limit(500).Find(&page).Error; err != nil {
			return err
		}
		for _, r := range page {
			if err := fn(r); err != nil {
				return err
			}
			after = r.ID
		}
		if len(page) < 500 {
			return nil
		}
	}
}

// AuditReport is what Verify found.
type AuditReport struct {
	Rows     int      `json:"rows"`
	Head     string   `json:"head"` // the last row's hash (GenesisHash for none)
	Problems []string `json:"problems"`
}

// OK reports an intact chain.
func (r AuditReport) OK() bool { return len(r.Problems) == 0 }

// Verify walks the chain: every row's hash must be its own, its prev_hash
// the hash of the row before, ids must follow one another, and no row may
// be missing after the last (the table's sequence says how many were
// written).
func (a AuditRepo) Verify(ctx context.Context) (AuditReport, error) {
	rep := AuditReport{Head: GenesisHash, Problems: []string{}}
	prev, prevID := GenesisHash, uint64(0)
	err := a.Each(ctx, func(r AuditRow) error {
		rep.Rows++
		if r.ID != prevID+1 {
			rep.Problems = append(rep.Problems, fmt.Sprintf("rows %d to %d are missing (deleted)", prevID+1, r.ID-1))
		}
		if r.PrevHash != prev {
			rep.Problems = append(rep.Problems, fmt.Sprintf("row %d: prev_hash does not match the row before it (a row was deleted or edited)", r.ID))
		}
		if got := AuditHash(r); got != r.Hash {
			rep.Problems = append(rep.Problems, fmt.Sprintf("row %d: its content does not match its hash (the row was edited)", r.ID))
		}
		prev, prevID = r.Hash, r.ID
		return nil
	})
	if err != nil {
		return rep, err
	}
	rep.Head = prev
	seq, err := auditSequence(a.db.WithContext(ctx))
	if err != nil {
		return rep, err
	}
	if seq > prevID {
		rep.Problems = append(rep.Problems, fmt.Sprintf("rows %d to %d were written and are missing (deleted from the end)", prevID+1, seq))
	}
	return rep, nil
}

// Page returns up to limit rows older than beforeID (0: the newest),
// newest first.
func (a AuditRepo) Page(ctx context.Context, beforeID uint64, limit int) ([]AuditRow, error) {
	if limit <= 0 || limit > 500 {
		limit = 100
	}
	q := a.db.WithContext(ctx).Order("id DESC").Limit(limit)
	if beforeID > 0 {
		q = q.Where("id < ?", beforeID)
	}
	var rows []AuditRow
	if err := q.Find(&rows).Error; err != nil {
		return nil, err
	}
	return rows, nil
}

// auditSequence is the highest id policy_audit's sequence handed out (0:
// none): SQLite's sqlite_sequence row, PostgreSQL's identity sequence.
func auditSequence(db *gorm.DB) (uint64, error) {
	var seq struct{ Seq uint64 }
	q := `SELECT COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'policy_audit'), 0) AS seq`
	if isPostgres(db) {
		q = `SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS seq FROM policy_audit_id_seq`
	}
	if err := db.Raw(q).Scan(&seq).Error; err != nil {
		return 0, err
	}
	return seq.Seq, nil
}

// advanceAuditSequence records id as used. SQLite's AUTOINCREMENT does it
// on insert; PostgreSQL's sequence does not move for an explicit id.
func advanceAuditSequence(tx *gorm.DB, id uint64) error {
	if !isPostgres(tx) {
		return nil
	}
	return tx.Exec(`SELECT setval('policy_audit_id_seq', ?)`, id).Error
}
