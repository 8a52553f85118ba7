// Package discovery describes the router in the discovery documents other
// programs read before connecting (docs/discovery.md) and, the other way
// round, finds the MCP endpoint behind a bare base URL by reading them.
//
// Documents:
//
//   - /.well-known/mcp and /.well-known/mcp.json: the document of seed 002
//     (SEP-1960 style): mcpVersion, capabilities, authentication.
//   - <endpoint>/server-card: an MCP Server Card (SEP-2127), connection
//     details only, never a tool list.
//   - /.well-known/ai-catalog.json: an AI Catalog listing the card.
//
// How to authenticate is found through the protected-resource metadata
// (RFC 9728) each of them points to.
package discovery

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
)

// Media types and fixed values of the documents.
const (
	ServerCardSchema = "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json"
	ServerCardType   = "application/mcp-server-card+json"
	CatalogType      = "application/ai-catalog+json"
	CatalogVersion   = "1.0"

	TransportStreamable = "streamable-http"
	TransportSSE        = "sse"
)

// Paths the router serves them at.
const (
	PathWellKnownMCP     = "/.well-known/mcp"
	PathWellKnownMCPJSON = "/.well-known/mcp.json"
	PathAICatalog        = "/.well-known/ai-catalog.json"
	ServerCardSuffix     = "/server-card"
)

// WellKnownMCP is the /.well-known/mcp document (seed 002, "Discovery
// Engine"). The seed's example parses into it; the router adds its name,
// version, endpoints and where its protected-resource metadata is.
type WellKnownMCP struct {
	MCPVersion     string                `json:"mcpVersion"`
	Name           string                `json:"name,omitempty"`
	Version        string                `json:"version,omitempty"`
	Description    string                `json:"description,omitempty"`
	Endpoint       string                `json:"endpoint,omitempty"` // streamable HTTP URL
	Transports     []Transport           `json:"transports,omitempty"`
	Capabilities   map[string]Capability `json:"capabilities"`
	Authentication *Authentication       `json:"authentication,omitempty"`
	// SupportedProtocolVersions lists every protocol revision served.
	SupportedProtocolVersions []string `json:"supportedProtocolVersions,omitempty"`
}

// Transport is one way to reach the endpoint.
type Transport struct {
	Type string `json:"type"` // streamable-http or sse
	URL  string `json:"url"`
}

// Capability is one capability: where it is served. Never a list of tools.
type Capability struct {
	Endpoint    string `json:"endpoint,omitempty"`
	ListChanged bool   `json:"listChanged,omitempty"`
	Subscribe   bool   `json:"subscribe,omitempty"`
}

// Authentication says what a client needs: type none, bearer or oauth2.
// For oauth2 the protected-resource metadata (RFC 9728) is authoritative;
// authorizationUrl is the seed's field, kept for readers that want it.
type Authentication struct {
	Type                 string   `json:"type"`
	AuthorizationURL     string   `json:"authorizationUrl,omitempty"`
	ResourceMetadata     string   `json:"resourceMetadata,omitempty"`
	AuthorizationServers []string `json:"authorizationServers,omitempty"`
}

// ServerCard is an MCP Server Card (SEP-2127): identity and connection
// details, never tools, resources or prompts.
type ServerCard struct {
	Schema      string   `json:"$schema"`
	Name        string   `json:"name"`
	Version     string   `json:"version"`
	Description string   `json:"description"`
	Title       string   `json:"title,omitempty"`
	WebsiteURL  string   `json:"websiteUrl,omitempty"`
	Remotes     []Remote `json:"remotes,omitempty"`
}

// Remote is one endpoint of a card.
type Remote struct {
	Type                      string   `json:"type"`
	URL                       string   `json:"url"`
	SupportedProtocolVersions []string `json:"supportedProtocolVersions,omitempty"`
}

// Catalog is an AI Catalog.
type Catalog struct {
	SpecVersion string         `json:"specVersion,omitempty"`
	Entries     []CatalogEntry `json:"entries"`
}

// CatalogEntry points at a server card by URL or holds it inline.
type CatalogEntry struct {
	Identifier string          `json:"identifier"`
	Type       string          `json:"type"`
	URL        string          `json:"url,omitempty"`
	Data       json.RawMessage `json:"data,omitempty"`
}

var cardNameRE = regexp.MustCompile(`^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$`)

// Validate checks the members a card must have (SEP-2127's schema).
func (c ServerCard) Validate() error {
	var errs []error
	if c.Schema != ServerCardSchema {
		errs = append(errs, fmt.Errorf("$schema is %q, want %s", c.Schema, ServerCardSchema))
	}
	if len(c.Name) < 3 || len(c.Name) > 200 || !cardNameRE.MatchString(c.Name) {
		errs = append(errs, fmt.Errorf("name %q is not namespace/name", c.Name))
	}
	if c.Description == "" || len(c.Description) > 100 {
		errs = append(errs, errors.New("description must be 1 to 100 characters"))
	}
	for i, r := range c.Remotes {
		if r.Type != TransportStreamable && r.Type != TransportSSE {
			errs = append(errs, fmt.Errorf("remotes[%d].type %q is not streamable-http or sse", i, r.Type))
		}
		if r.URL == "" {
			errs = append(errs, fmt.Errorf("remotes[%d] has no url", i))
		}
	}
	return errors.Join(errs...)
}

// Validate checks the members the seed's document must have.
func (d WellKnownMCP) Validate() error {
	if d.MCPVersion == "" {
		return errors.New("no mcpVersion")
	}
	if d.Capabilities == nil {
		return errors.New("no capabilities")
	}
	return nil
}
