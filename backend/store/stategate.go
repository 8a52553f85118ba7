package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// The state_gate built-in server's records (migration stategate_0001).
// Events and artifacts are append-only: this repository never updates or
// deletes them, and the database's triggers refuse it.

// StateGateDefinition is a process definition as some run started with it.
type StateGateDefinition struct {
	Hash      string `gorm:"primaryKey"`
	ProcessID string
	Version   string
	Source    string
	CreatedAt time.Time
}

func (StateGateDefinition) TableName() string { return "stategate_definitions" }

// StateGateRun is one run of a process.
type StateGateRun struct {
	ID             string `gorm:"primaryKey"`
	ProcessID      string
	ProcessVersion string
	DefinitionHash string
	State          string
	Revision       int64
	Context        string // JSON object
	Workspace      string
	CreatedBy      string
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

func (StateGateRun) TableName() string { return "stategate_runs" }

// StateGateEvent is one accepted event. Seq is the run's revision after it.
// Result is the answer its emit_event gave, replayed for the same
// idempotency key.
type StateGateEvent struct {
	ID             int64 `gorm:"primaryKey"`
	EventID        string
	RunID          string
	Seq            int64
	Name           string
	Payload        string // JSON object
	Actor          string
	FromState      string
	ToState        string
	IdempotencyKey string
	RequestHash    string
	Result         string // JSON
	CreatedAt      time.Time
}

func (StateGateEvent) TableName() string { return "stategate_events" }

// StateGateArtifact is a file submitted with an event.
type StateGateArtifact struct {
	ID        int64 `gorm:"primaryKey"`
	RunID     string
	EventID   string
	Type      string
	Path      string // relative to the run's workspace, '/' separated
	Size      int64
	SHA256    string `gorm:"column:sha256"`
	CreatedAt time.Time
}

func (StateGateArtifact) TableName() string { return "stategate_artifacts" }

// ErrKeyReused: an idempotency key already named a different request.
var ErrKeyReused = errors.New("idempotency key already used for a different request")

// KeyReusedError names the event that holds the key.
type KeyReusedError struct{ Event StateGateEvent }

func (e *KeyReusedError) Error() string {
	return fmt.Sprintf("idempotency key %q was used for event %s with a different request", e.Event.IdempotencyKey, e.Event.EventID)
}
func (e *KeyReusedError) Unwrap() error { return ErrKeyReused }

// StateGateRepo stores state_gate's runs and their history.
type StateGateRepo struct{ db *gorm.DB }

// StateGate is the state_gate repository.
func (s *Store) StateGate() StateGateRepo { return StateGateRepo{db: s.db} }

// Definition returns a stored definition by hash.
func (r StateGateRepo) Definition(ctx context.Context, hash string) (StateGateDefinition, error) {
	var d StateGateDefinition
	err := r.db.WithContext(ctx).Where("hash = ?", hash).Take(&d).Error
	return d, translate(err, "process definition", hash)
}

// CreateRun stores a new run and the definition it runs (once per hash).
func (r StateGateRepo) CreateRun(ctx context.Context, def StateGateDefinition, run StateGateRun) error {
	return r.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Clauses(clause.OnConflict{DoNothing: true}).Create(&def).Error; err != nil {
			return fmt.Errorf("save process definition %s: %w", def.ProcessID, err)
		}
		return translate(tx.Create(&run).Error, "run", run.ID)
	})
}

// Run returns one run.
func (r StateGateRepo) Run(ctx context.Context, id string) (StateGateRun, error) {
	var run StateGateRun
	err := r.db.WithContext(ctx).Where("id = ?", id).Take(&run).Error
	return run, translate(err, "run", id)
}

// RunFilter narrows Runs.
type RunFilter struct {
	ProcessID string // "" for every process
	Limit     int    // 0 for no limit
}

// Runs lists runs, most recently updated first.
func (r StateGateRepo) Runs(ctx context.Context, f RunFilter) ([]StateGateRun, error) {
	q := r.db.WithContext(ctx).Order("updated_at DESC, id")
	if f.ProcessID != "" {
		q = q.Where("process_id = ?", f.ProcessID)
	}
	if f.Limit > 0 {
		q = q.Limit(f.Limit)
	}
	var out []StateGateRun
	if err := q.Find(&out).Error; err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	return out, nil
}

// RunRevisions maps every run to its revision: one cheap query, for
// noticing which runs changed.
func (r StateGateRepo) RunRevisions(ctx context.Context) (map[string]int64, error) {
	var rows []struct {
		ID       string
		Revision int64
	}
	if err := r.db.WithContext(ctx).Model(&StateGateRun{}).Select("id, revision").Scan(&rows).Error; err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	out := make(map[string]int64, len(rows))
	for _, row := range rows {
		out[row.ID] = row.Revision
	}
	return out, nil
}

// Events returns a run's history, oldest first.
func (r StateGateRepo) Events(ctx context.Context, runID string) ([]StateGateEvent, error) {
	var out []StateGateEvent
	if err := r.db.WithContext(ctx).Where("run_id = ?", runID).Order("seq").Find(&out).Error; err != nil {
		return nil, fmt.Errorf("run %q: events: %w", runID, err)
	}
	return out, nil
}

// Artifacts returns a run's artifacts, oldest first.
func (r StateGateRepo) Artifacts(ctx context.Context, runID string) ([]StateGateArtifact, error) {
	return artifactsOf(r.db.WithContext(ctx), runID)
}

func artifactsOf(db *gorm.DB, runID string) ([]StateGateArtifact, error) {
	var out []StateGateArtifact
	if err := db.Where("run_id = ?", runID).Order("id").Find(&out).Error; err != nil {
		return nil, fmt.Errorf("run %q: artifacts: %w", runID, err)
	}
	return out, nil
}

// EventByKey returns the event an idempotency key made, if any.
func (r StateGateRepo) EventByKey(ctx context.Context, runID, key string) (StateGateEvent, error) {
	var ev StateGateEvent
	err := r.db.WithContext(ctx).Where("run_id = ? AND idempotency_key = ?", runID, key).Take(&ev).Error
	return ev, translate(err, "event with idempotency key", key)
}

// EventCounts counts a run's accepted events by name.
func (r StateGateRepo) EventCounts(ctx context.Context, runID string) (map[string]int64, error) {
	return countsOf(r.db.WithContext(ctx), runID)
}

func countsOf(db *gorm.DB, runID string) (map[string]int64, error) {
	var rows []struct {
		Name  string
		Count int64
	}
	if err := db.Model(&StateGateEvent{}).Select("name, COUNT(*) AS count").Where("run_id = ?", runID).
		Group("name").Scan(&rows).Error; err != nil {
		return nil, fmt.Errorf("run %q: count events: %w", runID, err)
	}
	out := make(map[string]int64, len(rows))
	for _, r := range rows {
		out[r.Name] = r.Count
	}
	return out, nil
}

// AppendSnapshot is the run as the deciding function sees it, read inside
// the transaction that will append.
type AppendSnapshot struct {
	Run       StateGateRun
	Counts    map[string]int64
	Artifacts []StateGateArtifact
}

// Append is what to write: the event (Seq, RunID, idempotency key and
// request hash are filled in) and its artifacts.
type Append struct {
	Event     StateGateEvent
	Artifacts []StateGateArtifact
}

// AppendEvent appends one event to a run, exactly once per idempotency key,
// in one transaction that holds SQLite's write lock from its start (the
// store opens transactions IMMEDIATE): the key is looked up, the run read,
// decide asked, and the event, its artifacts and the run's new state and
// revision written, or nothing is. decide's error aborts and is returned
// as is. If the key is already taken by the same request (requestHash), the
// stored event is returned with replayed true; by a different one, a
// *KeyReusedError.
func (r StateGateRepo) AppendEvent(ctx context.Context, runID, key, requestHash string,
	decide func(AppendSnapshot) (Append, error)) (ev StateGateEvent, replayed bool, err error) {
	for attempt := 0; ; attempt++ {
		ev, replayed, err = r.appendOnce(ctx, runID, key, requestHash, decide)
		// A unique key another writer took between our look-up and insert
		// (only possible without IMMEDIATE transactions): look again.
		if errors.Is(err, gorm.ErrDuplicatedKey) && attempt == 0 {
			continue
		}
		return ev, replayed, err
	}
}

func (r StateGateRepo) appendOnce(ctx context.Context, runID, key, requestHash string,
	decide func(AppendSnapshot) (Append, error)) (ev StateGateEvent, replayed bool, err error) {
	err = r.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := lockRunForAppend(tx, runID); err != nil {
			return fmt.Errorf("run %q: lock: %w", runID, err)
		}
		var prior StateGateEvent
		switch err := tx.Where("run_id = ? AND idempotency_key = ?", runID, key).Take(&prior).Error; {
		case err == nil:
			if prior.RequestHash != requestHash {
				return &KeyReusedError{Event: prior}
			}
			ev, replayed = prior, true
			return nil
		case !errors.Is(err, gorm.ErrRecordNotFound):
			return fmt.Errorf("run %q: look up idempotency key: %w", runID, err)
		}
		var run StateGateRun
		if err := tx.Where("id = ?", runID).Take(&run).Error; err != nil {
			return translate(err, "run", runID)
		}
		counts, err := countsOf(tx, runID)
		if err != nil {
			return err
		}
		arts, err := artifactsOf(tx, runID)
		if err != nil {
			return err
		}
		a, err := decide(AppendSnapshot{Run: run, Counts: counts, Artifacts: arts})
		if err != nil {
			return err
		}
		now := tx.NowFunc() // UTC (PostgreSQL: to the microsecond it keeps)
		a.Event.RunID, a.Event.Seq = runID, run.Revision+1
		a.Event.IdempotencyKey, a.Event.RequestHash = key, requestHash
		if a.Event.CreatedAt.IsZero() {
			a.Event.CreatedAt = now
		}
		if err := tx.Create(&a.Event).Error; err != nil {
			return err
		}
		for i := range a.Artifacts {
			a.Artifacts[i].RunID, a.Artifacts[i].EventID = runID, a.Event.EventID
			if a.Artifacts[i].CreatedAt.IsZero() {
				a.Artifacts[i].CreatedAt = a.Event.CreatedAt
			}
		}
		if len(a.Artifacts) > 0 {
			if err := tx.Create(&a.Artifacts).Error; err != nil {
				return fmt.Errorf("run %q: record artifacts: %w", runID, err)
			}
		}
		// Conditional on the revision read above: the transaction's lock
		// already excludes other writers, this makes it hold regardless.
		res := tx.Model(&StateGateRun{}).Where("id = ? AND revision = ?", runID, run.Revision).
			Updates(map[string]any{"state": a.Event.ToState, "revision": a.Event.Seq, "updated_at": a.Event.CreatedAt})
		if res.Error != nil {
			return fmt.Errorf("run %q: update: %w", runID, res.Error)
		}
		if res.RowsAffected != 1 {
			return fmt.Errorf("run %q: revision %d changed under the transaction", runID, run.Revision)
		}
		ev = a.Event
		return nil
	})
	return ev, replayed, err
}

// lockRunForAppend gives PostgreSQL what SQLite's IMMEDIATE transaction
// gives AppendEvent: replicas appending to one run take turns (the row lock
// is held to the commit), so the key look-up and the revision read see the
// writer before. On SQLite the write lock is already held.
func lockRunForAppend(tx *gorm.DB, runID string) error {
	if !isPostgres(tx) {
		return nil
	}
	return tx.Exec(`SELECT 1 FROM stategate_runs WHERE id = ? FOR UPDATE`, runID).Error
}
