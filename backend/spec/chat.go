package spec

import (
	"fmt"
	"regexp"
	"strings"
)

// Chat is what a server tells the built-in chat panel (seed 003): the
// instructions the model gets with this server's tools, the tool called
// with the user's message before the first model call, and which of its
// tools wait for the user's approval before the panel runs them.
type Chat struct {
	// SystemInstruction is always added to the system prompt while this
	// server's tools are offered.
	SystemInstruction string `json:"systemInstruction,omitempty"`
	// ResponseInstruction is added to the system prompt once, after one of
	// this server's tools ran (or with its auto-context result), never twice.
	ResponseInstruction string `json:"responseInstruction,omitempty"`
	// AutoContextTool is one of this server's tools (its own name, not the
	// prefixed one), called with the user's message before the first model
	// call; its result goes into the system prompt as context.
	AutoContextTool string `json:"autoContextTool,omitempty"`
	// Approve: "" (only the tools listed in ApproveTools) or "always"
	// (every tool of the server).
	Approve      string   `json:"approve,omitempty"`
	ApproveTools []string `json:"approveTools,omitempty"`
}

// ApproveAlways makes every tool of a server wait for approval in the chat.
const ApproveAlways = "always"

// MaxInstructionBytes bounds one instruction: they go into every prompt.
const MaxInstructionBytes = 16 << 10

var toolNameRe = regexp.MustCompile(`^[^\s\x00-\x1f]{1,128}$`)

// IsZero reports whether nothing is set.
func (c Chat) IsZero() bool {
	return c.SystemInstruction == "" && c.ResponseInstruction == "" && c.AutoContextTool == "" &&
		c.Approve == "" && len(c.ApproveTools) == 0
}

// NeedsApproval reports whether the chat asks the user before running the
// server's tool (its own name).
func (c Chat) NeedsApproval(tool string) bool {
	if c.Approve == ApproveAlways {
		return true
	}
	for _, t := range c.ApproveTools {
		if t == tool {
			return true
		}
	}
	return false
}

func (c Chat) validate() error {
	for _, f := range []struct{ name, v string }{
		{"system instruction", c.SystemInstruction}, {"response instruction", c.ResponseInstruction},
	} {
		if len(f.v) > MaxInstructionBytes {
			return fmt.Errorf("the chat %s is longer than %d bytes", f.name, MaxInstructionBytes)
		}
	}
	if c.AutoContextTool != "" && !toolNameRe.MatchString(c.AutoContextTool) {
		return fmt.Errorf("auto-context tool %q is not a tool name", c.AutoContextTool)
	}
	switch c.Approve {
	case "", ApproveAlways:
	default:
		return fmt.Errorf("chat approval %q must be empty or %q", c.Approve, ApproveAlways)
	}
	for _, t := range c.ApproveTools {
		if !toolNameRe.MatchString(t) {
			return fmt.Errorf("approval tool %q is not a tool name", t)
		}
	}
	return nil
}

// Trim drops surrounding blanks from the instructions.
func (c *Chat) Trim() {
	c.SystemInstruction = strings.TrimSpace(c.SystemInstruction)
	c.ResponseInstruction = strings.TrimSpace(c.ResponseInstruction)
	c.AutoContextTool = strings.TrimSpace(c.AutoContextTool)
}
