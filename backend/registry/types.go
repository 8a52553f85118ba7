// Package registry browses an MCP Registry (the v0 REST API of
// github.com/modelcontextprotocol/registry and of the registries that serve
// the same contract) and turns one of its server.json entries into a server
// definition: a package run with npx, uvx or docker, or a remote endpoint
// (docs/registry.md).
//
// Everything a registry answers is untrusted: answers are read within a
// size cap, names and versions are checked against the schema's patterns,
// and a definition built from an entry keeps its arguments an argv list, so
// no value is ever read by a shell.
package registry

// The types below follow server.schema.json and the v0 API's openapi.yaml
// (docs/reference in the registry's repository); only the fields the router
// reads are declared, unknown ones are ignored.

// Entry is one server of a listing or of a show: the server.json the
// publisher wrote and what the registry adds.
type Entry struct {
	Server Server    `json:"server"`
	Meta   EntryMeta `json:"_meta"`
}

// EntryMeta is the registry-managed part of an entry.
type EntryMeta struct {
	Official *Official `json:"io.modelcontextprotocol.registry/official,omitempty"`
}

// Official is the official registry's record of one version.
type Official struct {
	Status      string `json:"status,omitempty"`
	PublishedAt string `json:"publishedAt,omitempty"`
	UpdatedAt   string `json:"updatedAt,omitempty"`
	IsLatest    bool   `json:"isLatest"`
}

// Server is a server.json.
type Server struct {
	Name        string      `json:"name"`
	Title       string      `json:"title,omitempty"`
	Description string      `json:"description,omitempty"`
	Version     string      `json:"version"`
	WebsiteURL  string      `json:"websiteUrl,omitempty"`
	Repository  *Repository `json:"repository,omitempty"`
	Packages    []Package   `json:"packages,omitempty"`
	Remotes     []Remote    `json:"remotes,omitempty"`
}

// Repository is where the server's source is.
type Repository struct {
	URL       string `json:"url,omitempty"`
	Source    string `json:"source,omitempty"`
	Subfolder string `json:"subfolder,omitempty"`
}

// Package is one way to run the server locally.
type Package struct {
	RegistryType         string          `json:"registryType"`
	RegistryBaseURL      string          `json:"registryBaseUrl,omitempty"`
	Identifier           string          `json:"identifier"`
	Version              string          `json:"version,omitempty"`
	FileSHA256           string          `json:"fileSha256,omitempty"`
	RuntimeHint          string          `json:"runtimeHint,omitempty"`
	Transport            Transport       `json:"transport"`
	RuntimeArguments     []Argument      `json:"runtimeArguments,omitempty"`
	PackageArguments     []Argument      `json:"packageArguments,omitempty"`
	EnvironmentVariables []KeyValueInput `json:"environmentVariables,omitempty"`
}

// Transport is how a package is spoken to: stdio, or an HTTP endpoint it
// serves.
type Transport struct {
	Type    string          `json:"type"`
	URL     string          `json:"url,omitempty"`
	Headers []KeyValueInput `json:"headers,omitempty"`
}

// Remote is a hosted endpoint of the server.
type Remote struct {
	Type      string           `json:"type"` // streamable-http or sse
	URL       string           `json:"url"`
	Headers   []KeyValueInput  `json:"headers,omitempty"`
	Variables map[string]Input `json:"variables,omitempty"`
}

// Input is a value the user may have to give.
type Input struct {
	Description string           `json:"description,omitempty"`
	IsRequired  bool             `json:"isRequired,omitempty"`
	Format      string           `json:"format,omitempty"`
	Value       string           `json:"value,omitempty"`
	IsSecret    bool             `json:"isSecret,omitempty"`
	Default     string           `json:"default,omitempty"`
	Placeholder string           `json:"placeholder,omitempty"`
	Choices     []string         `json:"choices,omitempty"`
	Variables   map[string]Input `json:"variables,omitempty"`
}

// KeyValueInput is an environment variable or a header.
type KeyValueInput struct {
	Name string `json:"name"`
	Input
}

// Argument is a runtime or package argument: positional, or named (a flag
// and its value).
type Argument struct {
	Type       string `json:"type"` // positional or named
	Name       string `json:"name,omitempty"`
	ValueHint  string `json:"valueHint,omitempty"`
	IsRepeated bool   `json:"isRepeated,omitempty"`
	Input
}

// Page is one page of a listing.
type Page struct {
	Servers  []Entry      `json:"servers"`
	Metadata PageMetadata `json:"metadata"`
}

// PageMetadata carries the cursor of the next page ("" on the last).
type PageMetadata struct {
	NextCursor string `json:"nextCursor,omitempty"`
	Count      int    `json:"count"`
}
