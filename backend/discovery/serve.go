package discovery

import (
	"encoding/json"
	"net/http"
	"strings"
)

// Description is what the router says about itself, for one request: the
// base URL comes from the publicURL setting or the request.
type Description struct {
	BaseURL  string // https://router.example.com, no trailing slash
	Name     string // card name, namespace/name
	Title    string
	Version  string
	Summary  string   // one line, at most 100 characters
	Protocol string   // latest protocol revision served
	Versions []string // every revision served
	// Auth: "none" (auth off), "bearer" (mcpr_ tokens only) or "oauth2"
	// (JWTs of Issuers too).
	Auth             string
	Issuers          []string
	ResourceMetadata string // URL of the RFC 9728 document, for oauth2
}

// Endpoint is the streamable HTTP URL.
func (d Description) Endpoint() string { return d.BaseURL + "/mcp" }

// WellKnown builds the /.well-known/mcp document.
func (d Description) WellKnown() WellKnownMCP {
	auth := &Authentication{Type: d.Auth}
	if d.Auth == "oauth2" {
		auth.ResourceMetadata = d.ResourceMetadata
		auth.AuthorizationServers = d.Issuers
		if len(d.Issuers) == 1 {
			auth.AuthorizationURL = d.Issuers[0]
		}
	}
	return WellKnownMCP{
		MCPVersion:  d.Protocol,
		Name:        d.Name,
		Version:     d.Version,
		Description: d.Summary,
		Endpoint:    d.Endpoint(),
		Transports: []Transport{
			{Type: TransportStreamable, URL: d.Endpoint()},
			{Type: TransportSSE, URL: d.BaseURL + "/sse"},
		},
		Capabilities: map[string]Capability{
			"tools":     {Endpoint: "/mcp", ListChanged: true},
			"prompts":   {Endpoint: "/mcp", ListChanged: true},
			"resources": {Endpoint: "/mcp", ListChanged: true, Subscribe: true},
		},
		Authentication:            auth,
		SupportedProtocolVersions: d.Versions,
	}
}

// Card builds the server card.
func (d Description) Card() ServerCard {
	return ServerCard{
		Schema: ServerCardSchema, Name: d.Name, Version: d.Version, Description: d.Summary, Title: d.Title,
		Remotes: []Remote{
			{Type: TransportStreamable, URL: d.Endpoint(), SupportedProtocolVersions: d.Versions},
			{Type: TransportSSE, URL: d.BaseURL + "/sse"},
		},
	}
}

// Catalog builds the AI catalog listing the card.
func (d Description) Catalog() Catalog {
	host := strings.TrimPrefix(strings.TrimPrefix(d.BaseURL, "https://"), "http://")
	id := "urn:air:" + host + ":mcp:" + d.Name[strings.LastIndex(d.Name, "/")+1:]
	return Catalog{SpecVersion: CatalogVersion, Entries: []CatalogEntry{
		{Identifier: id, Type: ServerCardType, URL: d.Endpoint() + ServerCardSuffix},
	}}
}

// Handler serves the documents at their paths (PathWellKnownMCP,
// PathWellKnownMCPJSON, PathAICatalog, /mcp/server-card) to anyone: they
// hold no secret and no tool list. describe is called per request.
func Handler(describe func(r *http.Request) Description) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Access-Control-Allow-Origin", "*")
		w.Header().Set("Access-Control-Allow-Methods", "GET")
		w.Header().Set("Access-Control-Allow-Headers", "Content-Type, If-None-Match")
		switch r.Method {
		case http.MethodOptions:
			w.WriteHeader(http.StatusNoContent)
			return
		case http.MethodGet, http.MethodHead:
		default:
			w.Header().Set("Allow", "GET, HEAD, OPTIONS")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		d := describe(r)
		var doc any
		ctype := "application/json"
		switch r.URL.Path {
		case PathWellKnownMCP, PathWellKnownMCPJSON:
			doc = d.WellKnown()
		case "/mcp" + ServerCardSuffix:
			doc, ctype = d.Card(), ServerCardType
		case PathAICatalog:
			doc, ctype = d.Catalog(), CatalogType
		default:
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", ctype)
		w.Header().Set("Cache-Control", "no-store") // settings can change it at any time
		if r.Method == http.MethodHead {
			return
		}
		_ = json.NewEncoder(w).Encode(doc)
	})
}
