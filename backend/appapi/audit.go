package appapi

import "github.com/mcp-router/mcp-router/backend/store"

// AuditPage is one page of the audit trail, newest first.
type AuditPage struct {
	Rows []store.AuditRow `json:"rows"`
	// Before is the id to pass for the next (older) page; 0: no more.
	Before uint64 `json:"before"`
}

// AuditRows returns up to limit (1–500, else 100) rows of the audit trail
// older than before (0: the newest), newest first.
func (a *API) AuditRows(before uint64, limit int) (AuditPage, error) {
	if limit <= 0 || limit > 500 {
		limit = 100
	}
	rows, err := a.core.Store.Audit().Page(bg(), before, limit)
	if err != nil {
		return AuditPage{}, err
	}
	p := AuditPage{Rows: rows}
	if p.Rows == nil {
		p.Rows = []store.AuditRow{}
	}
	if len(rows) == limit && rows[len(rows)-1].ID > 1 {
		p.Before = rows[len(rows)-1].ID
	}
	return p, nil
}

// VerifyAudit walks the audit trail's hash chain (as `mcp-router audit
// verify`): every edited or deleted row is a problem.
func (a *API) VerifyAudit() (store.AuditReport, error) {
	return a.core.Store.Audit().Verify(bg())
}
