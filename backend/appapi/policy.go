package appapi

import (
	"errors"

	"github.com/mcp-router/mcp-router/backend/policy"
)

// PolicyView is the Policy page: the file's text and the state of the
// policy in force.
type PolicyView struct {
	Path   string        `json:"path"`
	Source string        `json:"source"` // "" when the file does not exist
	Status policy.Status `json:"status"`
}

// PolicyProblem is one problem of a policy file, at its line and column.
type PolicyProblem = policy.Problem

// GetPolicy returns policy.yaml's text and whether it is in force, or why
// not (a file that does not load leaves the last good policy in force).
func (a *API) GetPolicy() (PolicyView, error) {
	src, err := a.core.Policy.Source()
	if err != nil {
		return PolicyView{}, err
	}
	return PolicyView{Path: a.core.Policy.Path(), Source: src, Status: a.core.Policy.Status()}, nil
}

// CheckPolicy returns the problems of source as a policy file (none: it
// loads), for the editor to mark.
func (a *API) CheckPolicy(source string) ([]PolicyProblem, error) {
	_, err := policy.Parse([]byte(source))
	var fe *policy.FileError
	if errors.As(err, &fe) {
		return fe.Problems, nil
	}
	if err != nil {
		return nil, err
	}
	return []PolicyProblem{}, nil
}

// SavePolicy writes source as policy.yaml and puts it in force at once.
// A file that does not load is refused and nothing is written.
func (a *API) SavePolicy(source string) (PolicyView, error) {
	if err := a.core.Policy.Save([]byte(source)); err != nil {
		return PolicyView{}, err
	}
	return a.GetPolicy()
}
