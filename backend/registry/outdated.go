package registry

import (
	"context"
	"strings"

	"golang.org/x/mod/semver"

	"github.com/mcp-router/mcp-router/backend/spec"
)

// Newer reports whether latest is a newer version than installed: by
// semantic versioning when both are semantic versions, else whenever they
// differ (the registry's latest is what its publisher last published).
func Newer(installed, latest string) bool {
	a, b := "v"+strings.TrimPrefix(installed, "v"), "v"+strings.TrimPrefix(latest, "v")
	if semver.IsValid(a) && semver.IsValid(b) {
		return semver.Compare(b, a) > 0
	}
	return latest != installed
}

// Check is the outcome of asking a server's registry for its latest
// version.
type Check struct {
	Server   string      `json:"server"`
	Source   spec.Source `json:"source"`
	Latest   string      `json:"latest,omitempty"`
	Outdated bool        `json:"outdated"`
	Error    string      `json:"error,omitempty"`
}

// CheckLatest asks c (the registry of src) for the latest version of
// src.Name.
func CheckLatest(ctx context.Context, c *Client, server string, src spec.Source) Check {
	out := Check{Server: server, Source: src}
	e, err := c.Get(ctx, src.Name, "")
	if err != nil {
		out.Error = err.Error()
		return out
	}
	out.Latest = e.Server.Version
	out.Outdated = Newer(src.Version, e.Server.Version)
	return out
}
