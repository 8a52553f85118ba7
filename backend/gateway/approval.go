package gateway

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// ErrCannotElicit: the calling client cannot be asked (no session, or it
// did not declare elicitation).
var ErrCannotElicit = errors.New("the client did not declare elicitation")

// ApprovalRequest is what a person is asked to approve.
type ApprovalRequest struct {
	Rule, Client, Server, Tool, Target string
	Arguments                          string // JSON
}

// maxShownArguments bounds the arguments quoted in the question.
const maxShownArguments = 2000

// AskApproval asks the client of session, with elicitation/create, whether
// the call may go ahead: accept approves, decline and cancel deny. It
// waits until the client answers or ctx ends; the question says how long
// that leaves (whole seconds, rounded down) when ctx has a deadline.
func (g *Gateway) AskApproval(ctx context.Context, session server.ClientSession, a ApprovalRequest) (bool, error) {
	if session == nil || !declares(session, "elicitation") {
		return false, ErrCannotElicit
	}
	args := a.Arguments
	if len(args) > maxShownArguments {
		args = args[:maxShownArguments] + "…"
	}
	if strings.TrimSpace(args) == "" {
		args = "{}"
	}
	msg := fmt.Sprintf("MCP Router: policy %q asks you to approve a tool call.\n\nClient: %s\nServer: %s\nTool: %s (%s)\nArguments: %s\n\nAccept to let it run; decline to refuse it.",
		a.Rule, a.Client, a.Server, a.Tool, a.Target, args)
	if d, ok := ctx.Deadline(); ok {
		msg += fmt.Sprintf(" Without an answer within %d s it is refused.", max(int(time.Until(d)/time.Second), 0))
	}
	res, err := g.srv.RequestElicitation(g.srv.WithContext(ctx, session), mcp.ElicitationRequest{
		Params: mcp.ElicitationParams{Message: msg, RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{}}},
	})
	if err != nil {
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		return false, err
	}
	return res.Action == mcp.ElicitationResponseActionAccept, nil
}
