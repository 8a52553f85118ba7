// Package policy is the router's policy: the rules of policy.yaml in the
// data dir (docs/policy.md), compiled once per load and applied as the
// forwarding pipeline's policy step. A rule may refuse a server's
// requests (servers.allow/deny), hide tools (tools.hide), rate-limit
// tool calls (limit), ask for a person's approval or an audit record
// (require). The Service (service.go) loads the file, follows its
// changes and keeps the last good policy in force when an edit is bad.
package policy

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/sirupsen/logrus"
	"golang.org/x/time/rate"
)

// Policy is a loaded policy file. It is immutable; a reload builds a new
// one (which takes over the rate-limit buckets of unchanged rules).
type Policy struct {
	Source    File   // the file as parsed
	Hash      string // SHA-256 of the file's bytes, hex
	rules     []*rule
	abilities []*Ability
	// any* say whether some rule has that part, so a request no rule can
	// touch costs one loop at most.
	anyServers, anyHide bool
	now                 func() time.Time
	audit               func(context.Context, AuditRecord) error        // nil: audit rules record nothing
	ask                 func(context.Context, Approval) (Answer, error) // nil: nobody can be asked
	approvalTimeout     func() time.Duration                            // for rules that set none
	shared              SharedBuckets                                   // nil: the rules' own buckets, in process
	log                 logrus.FieldLogger
}

// Rules is the number of rules.
func (p *Policy) Rules() int { return len(p.rules) }

// rule is a Rule compiled.
type rule struct {
	Rule
	index                   int
	tools, servers, clients globs
	hasTools, hasServers    bool
	hasClients              bool
	profiles                globs
	hasProfiles             bool
	permissions             map[string]bool // match.permissions
	hasPermissions          bool
	allow, deny, hide       globs
	hasServerList, hasHide  bool
	approval, audit         bool
	approvalTimeout         time.Duration
	limit                   rate.Limit
	burst                   int
	per                     string
	buckets                 *buckets // nil without a limit
	fingerprint             string   // identifies the rule's limit across reloads
}

// compile checks f and builds its rules; c collects the problems (nil: f
// needs no positions, as for a file that is empty).
func compile(f File, hash string, c *checker) (*Policy, error) {
	if c == nil {
		c = &checker{}
	}
	p := &Policy{Source: f, Hash: hash, now: time.Now, log: logrus.StandardLogger()}
	names := map[string]int{}
	for i, r := range f.Policies {
		at := fmt.Sprintf("$.policies[%d]", i)
		cr := &rule{Rule: r, index: i}
		if r.Name == "" {
			c.fail(at, "policy %d has no name: every policy needs a name: (it is how errors, the log and explain refer to it)", i+1)
		} else if j, dup := names[r.Name]; dup {
			c.fail(at+".name", "the name %q is already used by policy %d", r.Name, j+1)
		} else {
			names[r.Name] = i + 1
		}
		if r.Require == nil && r.Limit == nil && r.Servers == nil && r.Tools == nil {
			c.fail(at, "policy %q does nothing: give it require:, limit:, servers: or tools:", r.Name)
		}
		if r.Match != nil {
			cr.tools, cr.hasTools = globList(c, at+".match.tools", r.Match.Tools)
			cr.servers, cr.hasServers = globList(c, at+".match.servers", r.Match.Servers)
			cr.clients, cr.hasClients = globList(c, at+".match.clients", r.Match.Clients)
			cr.profiles, cr.hasProfiles = globList(c, at+".match.profiles", r.Match.Profiles)
			if r.Match.Permissions != nil {
				cr.hasPermissions, cr.permissions = true, map[string]bool{}
				if len(r.Match.Permissions) == 0 {
					c.fail(at+".match.permissions", "an empty list matches nothing; leave the key out instead")
				}
				for j, perm := range r.Match.Permissions {
					if perm != PermissionRead && perm != PermissionWrite {
						c.fail(fmt.Sprintf("%s.match.permissions[%d]", at, j), "permission %q: it is read or write", perm)
					}
					cr.permissions[perm] = true
				}
			}
			if r.Match.Tools == nil && r.Match.Servers == nil && r.Match.Clients == nil && r.Match.Permissions == nil && r.Match.Profiles == nil {
				c.fail(at+".match", "match: is empty; give tools:, servers:, clients:, profiles: or permissions:, or leave match: out to apply to every request")
			}
		}
		if r.Require != nil {
			cr.approval = r.Require.HumanApproval
			switch r.Require.LogLevel {
			case "":
			case LogAudit:
				cr.audit = true
			default:
				c.fail(at+".require.log_level", "log_level is %q; the one level is \"audit\"", r.Require.LogLevel)
			}
			// 0: the approvalTimeoutSeconds setting, read when asking.
			if t := r.Require.ApprovalTimeoutSeconds; t != 0 {
				if !cr.approval {
					c.fail(at+".require.approval_timeout_seconds", "approval_timeout_seconds without human_approval: true")
				} else if t < 1 || t > 3600 {
					c.fail(at+".require.approval_timeout_seconds", "approval_timeout_seconds is %d; it is 1 to 3600", t)
				}
				cr.approvalTimeout = time.Duration(t) * time.Second
			}
			if !cr.approval && r.Require.LogLevel == "" {
				c.fail(at+".require", "require: asks for nothing; set human_approval: true or log_level: audit")
			}
		}
		if r.Limit != nil {
			if r.Limit.RequestsPerMinute <= 0 {
				c.fail(at+".limit.requests_per_minute", "limit.requests_per_minute must be a positive number of calls, not %d", r.Limit.RequestsPerMinute)
			}
			switch r.Limit.Per {
			case "":
				cr.per = PerClientTool
			case PerClient, PerTool, PerServer:
				cr.per = r.Limit.Per
			default:
				c.fail(at+".limit.per", "per is %q; it is client, tool or server (left out: each client for each tool)", r.Limit.Per)
			}
			cr.limit = rate.Limit(float64(r.Limit.RequestsPerMinute) / 60)
			cr.burst = r.Limit.RequestsPerMinute
			fp, _ := json.Marshal(struct {
				N string
				M *Match
				L Limit
				P string
			}{r.Name, r.Match, *r.Limit, cr.per})
			cr.fingerprint = string(fp)
		}
		if r.Servers != nil {
			cr.allow, _ = globList(c, at+".servers.allow", r.Servers.Allow)
			cr.deny, _ = globList(c, at+".servers.deny", r.Servers.Deny)
			if r.Servers.Allow == nil && r.Servers.Deny == nil {
				c.fail(at+".servers", "servers: is empty; give allow:, deny: or both")
			}
			cr.hasServerList = true
			p.anyServers = true
		}
		if r.Tools != nil {
			cr.hide, cr.hasHide = globList(c, at+".tools.hide", r.Tools.Hide)
			if !cr.hasHide {
				c.fail(at+".tools", "tools: is empty; give hide: [globs]")
			}
			p.anyHide = true
		}
		p.rules = append(p.rules, cr)
	}
	p.abilities = compileAbilities(c, f.Abilities)
	if len(c.problems) > 0 {
		return nil, &FileError{Problems: c.problems}
	}
	for _, r := range p.rules {
		if r.limit > 0 {
			r.buckets = newBuckets(r.limit, r.burst)
		}
	}
	return p, nil
}

// globList compiles the patterns at YAML path at; has is false for a list
// left out. An empty list given is a problem: it would match nothing.
func globList(c *checker, at string, pats []string) (gs globs, has bool) {
	if pats == nil {
		return nil, false
	}
	if len(pats) == 0 {
		c.fail(at, "an empty list matches nothing; leave the key out instead")
		return nil, true
	}
	for i, s := range pats {
		g, err := compileGlob(s)
		if err != nil {
			c.fail(fmt.Sprintf("%s[%d]", at, i), "bad pattern %q: %v", s, err)
			continue
		}
		gs = append(gs, g)
	}
	return gs, true
}

// keepBuckets takes over old's buckets for every rule whose limit did not
// change, so a reload does not hand every client a fresh allowance.
func (p *Policy) keepBuckets(old *Policy) {
	if old == nil {
		return
	}
	prev := map[string]*buckets{}
	for _, r := range old.rules {
		if r.buckets != nil {
			prev[r.fingerprint] = r.buckets
		}
	}
	for _, r := range p.rules {
		if b, ok := prev[r.fingerprint]; ok && r.buckets != nil {
			r.buckets = b
		}
	}
}
