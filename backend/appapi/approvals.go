package appapi

import (
	"github.com/mcp-router/mcp-router/backend/approval"
)

// EventApprovalsChanged: the calls waiting for a person changed (one was
// asked about, decided, timed out or withdrawn by its client). Payload:
// []approval.Pending, the whole list, oldest first.
const EventApprovalsChanged = "approvals:changed"

// Observer marks an Emitter that follows the events without being a place
// where a person answers (the tray's refresher). Every other attached
// emitter (the desktop window, a browser tab's event stream) counts as a
// UI: while one is attached, calls a policy rule says need a person's
// approval are asked here rather than of the calling client.
type Observer interface{ Observer() }

// PendingApproval is a call waiting for a person's decision.
type PendingApproval = approval.Pending

// PendingApprovals lists the calls waiting for a person, oldest first.
func (a *API) PendingApprovals() []PendingApproval { return a.core.Approvals.Pending() }

// DecideApproval answers the pending call id: "approve", "deny", or
// "always" (approve it and every later call of the same tool by the same
// client until the router stops). An id that is no longer pending (decided
// elsewhere, timed out, withdrawn) is an error.
func (a *API) DecideApproval(id string, decision string) error {
	return a.core.Approvals.Decide(id, approval.Decision(decision))
}
