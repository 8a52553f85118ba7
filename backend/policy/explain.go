package policy

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Query is a request to explain: who calls which tool (or, with Tool
// empty, any request to Server).
type Query struct {
	Client  string // token name ("local" in stdio mode, "chat" for the chat panel)
	Subject string // a JWT's subject, "" for none
	Server  string
	Tool    string // the upstream's own tool name
	Target  string // the router's name for it (<server><sep><tool>), or the ability's name
	// Permission is the permission of an ability call, read or write
	// ("" for a call of an upstream tool as itself); match.permissions
	// looks at it.
	Permission string `json:",omitempty"`
	// Profile is the profile the request comes through ("" — plain /mcp,
	// the profile "default"); match.profiles looks at it.
	Profile string `json:",omitempty"`
}

// Explanation is what the policy does with a request: the rules that
// match it, what each asks, and the decision.
type Explanation struct {
	Matches []RuleMatch `json:"matches"`
	// Decision: "allow", "deny", "approval" (needs a person; refused as
	// approval_unavailable until approvals exist) or "limit" (allowed while
	// the rate limits have tokens).
	Decision string `json:"decision"`
	Rule     string `json:"rule,omitempty"` // the rule that decided, for deny and approval
	Why      string `json:"why"`
	Audit    bool   `json:"audit"`
	Listed   bool   `json:"listed"` // the tool appears in this client's tools/list
}

// RuleMatch is one rule that applies, and what it does to the request.
type RuleMatch struct {
	Rule    string   `json:"rule"`
	Effects []string `json:"effects"`
}

// Explain says what the policy does with q, spending no token.
func (p *Policy) Explain(q Query) Explanation {
	in := input{client: q.Client, subject: q.Subject, profile: q.Profile, server: q.Server, item: q.Tool, target: q.Target, permission: q.Permission}
	isTool := q.Tool != "" || q.Target != ""
	ex := Explanation{Decision: "allow", Listed: !isTool || p.listed(&in, true), Matches: []RuleMatch{}}
	var limits []string
	for _, ru := range p.rules {
		if !ru.applies(&in, isTool) {
			continue
		}
		m := RuleMatch{Rule: ru.Name}
		if ru.hasServerList {
			if ru.deniesServer(q.Server) {
				m.Effects = append(m.Effects, fmt.Sprintf("denies server %q", q.Server))
				if ex.Decision != "deny" {
					ex.Decision, ex.Rule, ex.Why = "deny", ru.Name, fmt.Sprintf("server %q is not allowed", q.Server)
				}
			} else {
				m.Effects = append(m.Effects, fmt.Sprintf("allows server %q", q.Server))
			}
		}
		if isTool {
			if ru.hides(&in) {
				m.Effects = append(m.Effects, "hides the tool")
				if ex.Decision != "deny" {
					ex.Decision, ex.Rule, ex.Why = "deny", ru.Name, "the tool is hidden"
				}
			}
			if ru.approval {
				m.Effects = append(m.Effects, "requires human approval")
				if ex.Decision == "allow" || ex.Decision == "limit" {
					ex.Decision, ex.Rule, ex.Why = "approval", ru.Name,
						"a person must approve the call (asked in the UI when one is open, else the client by elicitation if it declared it; otherwise refused as approval_unavailable)"
				}
			}
			if ru.audit {
				m.Effects = append(m.Effects, "asks for an audit record")
				ex.Audit = true
			}
			if ru.buckets != nil {
				l := fmt.Sprintf("limits to %d calls a minute per %s", ru.Limit.RequestsPerMinute, ru.per)
				m.Effects = append(m.Effects, l)
				limits = append(limits, ru.Name)
			}
		}
		if len(m.Effects) == 0 {
			m.Effects = append(m.Effects, "matches; nothing applies to this request")
		}
		ex.Matches = append(ex.Matches, m)
	}
	if ex.Decision == "allow" {
		if len(limits) > 0 {
			ex.Decision, ex.Why = "limit", "allowed while the buckets of "+strings.Join(limits, ", ")+" hold a token"
		} else if len(ex.Matches) == 0 {
			ex.Why = "no rule matches"
		} else {
			ex.Why = "no matching rule refuses it"
		}
	}
	return ex
}

// Ability is the ability of the policy named name, nil if there is none.
func (p *Policy) Ability(name string) *Ability {
	for _, a := range p.Abilities() {
		if a.Name == name {
			return a
		}
	}
	return nil
}

// Mapping describes how the ability builds its backend tool's arguments,
// one "backend ← source" a line, sorted: "a ← x", "b ← y (default 100)",
// "mode = \"ro\"" (a constant). Empty: the tool is called with {}.
func (a *Ability) Mapping() []string {
	var out []string
	for _, k := range a.keys {
		src := a.Arguments[k]
		switch {
		case src.Const != nil:
			out = append(out, fmt.Sprintf("%s = %s", k, jsonText(src.Const)))
		case src.Default != nil:
			out = append(out, fmt.Sprintf("%s ← %s (default %s)", k, src.From, jsonText(src.Default)))
		default:
			out = append(out, fmt.Sprintf("%s ← %s", k, src.From))
		}
	}
	return out
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
