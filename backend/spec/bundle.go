package spec

// Bundle records the .mcpb bundle a server was installed from
// (backend/bundle, docs/bundles.md): what the UI and `servers show` tell
// about it, and which folder under the data dir holds its files (derived
// from Name and Version, never stored as a path).
type Bundle struct {
	Name    string       `json:"name"`
	Version string       `json:"version"`
	Author  string       `json:"author,omitempty"`
	Tools   []BundleTool `json:"tools,omitempty"`
	// Signature: unsigned, signed, self-signed or untrusted (a bundle
	// whose signature does not verify is never installed); SignedBy and
	// Fingerprint name the signing certificate.
	Signature   string `json:"signature"`
	SignedBy    string `json:"signedBy,omitempty"`
	Fingerprint string `json:"fingerprint,omitempty"`
}

// BundleTool is a tool a bundle's manifest declares.
type BundleTool struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}
