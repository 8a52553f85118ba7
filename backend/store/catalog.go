package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// The persisted catalog (migration 1100_catalog): each server's last lists
// and its tools' pinned definitions. backend/catalog decides what goes in;
// this repository only reads and writes rows.

// CatalogList is one server's last list of one kind, as the upstream sent
// it.
type CatalogList struct {
	Server string `gorm:"primaryKey"`
	List   string `gorm:"primaryKey"` // tools, resources, resourceTemplates, prompts
	Items  string // JSON array of the upstream's raw items
	TTLMs  *int64 `gorm:"column:ttl_ms"` // the upstream's ttlMs; nil: none given
	SeenAt time.Time
}

// TableName is the migration's table.
func (CatalogList) TableName() string { return "catalog_lists" }

// ToolPin is a tool's accepted definition and, while one is waiting, the
// changed definition nobody accepted yet.
type ToolPin struct {
	Server      string `gorm:"primaryKey"`
	Tool        string `gorm:"primaryKey"`
	PinnedHash  string
	PinnedDef   string // the definition hashed (JSON)
	FirstSeenAt time.Time
	Present     bool // in the server's last tools list
	LastSeenAt  time.Time
	PendingHash string // "" when the tool is as pinned
	PendingDef  string
	ChangedAt   *time.Time
	AcceptedAt  *time.Time
	AcceptedBy  string
}

// TableName is the migration's table.
func (ToolPin) TableName() string { return "catalog_tool_pins" }

// CatalogRepo reads and writes the persisted catalog.
type CatalogRepo struct{ db *gorm.DB }

// Catalog is the persisted catalog's repository.
func (s *Store) Catalog() CatalogRepo { return CatalogRepo{db: s.db} }

// ErrNoPendingChange: accept found no change waiting for that tool (or not
// the one the caller saw).
var ErrNoPendingChange = errors.New("no change waiting")

// Lists returns the persisted lists of server, or of every server when
// server is "".
func (r CatalogRepo) Lists(ctx context.Context, server string) ([]CatalogList, error) {
	q := r.db.WithContext(ctx).Order("server, list")
	if server != "" {
		q = q.Where("server = ?", server)
	}
	var out []CatalogList
	if err := q.Find(&out).Error; err != nil {
		return nil, fmt.Errorf("catalog lists: %w", err)
	}
	return out, nil
}

// Pins returns the tool pins of server, or of every server when server is
// "".
func (r CatalogRepo) Pins(ctx context.Context, server string) ([]ToolPin, error) {
	q := r.db.WithContext(ctx).Order("server, tool")
	if server != "" {
		q = q.Where("server = ?", server)
	}
	var out []ToolPin
	if err := q.Find(&out).Error; err != nil {
		return nil, fmt.Errorf("tool pins: %w", err)
	}
	return out, nil
}

// Pending returns the pins with a change waiting, of every server.
func (r CatalogRepo) Pending(ctx context.Context) ([]ToolPin, error) {
	var out []ToolPin
	if err := r.db.WithContext(ctx).Where("pending_hash <> ''").Order("server, tool").Find(&out).Error; err != nil {
		return nil, fmt.Errorf("tool changes: %w", err)
	}
	return out, nil
}

// CatalogWrite is what one refresh of a server changes, written in one
// transaction.
type CatalogWrite struct {
	Server     string
	Lists      []CatalogList // replaced whole
	Pins       []ToolPin     // inserted or replaced whole
	DeletePins []string      // tool names whose pins go
}

// Save applies w in one transaction.
func (r CatalogRepo) Save(ctx context.Context, w CatalogWrite) error {
	err := r.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		for _, l := range w.Lists {
			l.Server = w.Server
			l.SeenAt = l.SeenAt.UTC()
			if err := tx.Clauses(clause.OnConflict{UpdateAll: true}).Create(&l).Error; err != nil {
				return err
			}
		}
		for _, p := range w.Pins {
			p.Server = w.Server
			if err := tx.Clauses(clause.OnConflict{UpdateAll: true}).Create(&p).Error; err != nil {
				return err
			}
		}
		if len(w.DeletePins) > 0 {
			if err := tx.Where("server = ? AND tool IN ?", w.Server, w.DeletePins).Delete(&ToolPin{}).Error; err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("save the catalog of %q: %w", w.Server, err)
	}
	return nil
}

// Accept makes the waiting definition of server's tool the pinned one. A
// non-empty hash must be the waiting one's (what the person saw); a tool
// with no change waiting, or another than hash, gives ErrNoPendingChange.
func (r CatalogRepo) Accept(ctx context.Context, server, tool, hash, by string, at time.Time) (ToolPin, error) {
	var pin ToolPin
	err := r.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		err := tx.Where("server = ? AND tool = ?", server, tool).Take(&pin).Error
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return notFound("tool", server+"/"+tool)
		}
		if err != nil {
			return err
		}
		if pin.PendingHash == "" {
			return fmt.Errorf("tool %q of %q: %w", tool, server, ErrNoPendingChange)
		}
		if hash != "" && hash != pin.PendingHash {
			return fmt.Errorf("tool %q of %q changed again since you looked (now %.12s, you accepted %.12s): %w",
				tool, server, pin.PendingHash, hash, ErrNoPendingChange)
		}
		at := at.UTC()
		res := tx.Model(&ToolPin{}).Where("server = ? AND tool = ? AND pending_hash = ?", server, tool, pin.PendingHash).
			Updates(map[string]any{"pinned_hash": pin.PendingHash, "pinned_def": pin.PendingDef,
				"pending_hash": "", "pending_def": "", "accepted_at": at, "accepted_by": by})
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected != 1 {
			return fmt.Errorf("tool %q of %q: %w", tool, server, ErrNoPendingChange)
		}
		pin.PinnedHash, pin.PinnedDef, pin.PendingHash, pin.PendingDef = pin.PendingHash, pin.PendingDef, "", ""
		pin.AcceptedAt, pin.AcceptedBy = &at, by
		return nil
	})
	if err != nil {
		return ToolPin{}, fmt.Errorf("accept: %w", err)
	}
	return pin, nil
}
