package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// modernProtocol is the revision the probe asks about: 2026-07-28, with
// server/discover and no initialize.
const modernProtocol = mcp.ProtocolVersion20260728

// discoverTimeout bounds the server/discover probe before initialize: a
// server that neither answers nor refuses it (an older server may ignore a
// request it does not know before its handshake) costs at most this much
// of a connect, and the handshake goes ahead.
const discoverTimeout = 3 * time.Second

// maxDiscoverVersions bounds the revisions kept from a server/discover
// answer (the spec knows five today); more are ignored.
const maxDiscoverVersions = 16

// discovery is what the server/discover probe learned.
type discovery struct {
	// asked: the probe went out (HTTP on the router's own transport only;
	// not stdio, SSE, builtins or mcp-go's HTTP transport).
	asked bool
	// versions: the revisions the server named, in supportedVersions of
	// its answer or in data.supported of its -32022, as it sent them; nil
	// when it named none (no server/discover, another error, a timeout).
	versions []string
	// instance: the router instance id the answer's _meta carried (an MCP
	// Router answers server/discover with it, as initialize), "" none.
	instance string
	// What a successful answer says of the server, in initialize's terms:
	// a connection on 2026-07-28 has no other source for them.
	serverInfo   mcp.Implementation
	capabilities mcp.ServerCapabilities
	instructions string
	// err: why the probe got no answer to read (the server's error, the
	// transport's, a timeout); nil for an answer.
	err error
}

// offersModern reports whether the server said it speaks 2026-07-28. A
// successful answer alone does not say so: a stateful HTTP server (the
// go-sdk's, mcp-go's) answers server/discover with only the revisions of
// the handshake era, since a session cannot serve the stateless one.
func (d discovery) offersModern() bool {
	for _, v := range d.versions {
		if v == modernProtocol {
			return true
		}
	}
	return false
}

// probes reports whether this connection's transport is one the router
// probes with server/discover before initialize: HTTP on its own
// transport, where each POST stands alone.
//
// Not stdio: the pipe is one connection, and a server of both eras takes
// the revision of the request it reads for the pipe's. The go-sdk v1.8.0
// server, asked server/discover first, refuses the initialize that
// follows ("duplicate initialize received"); asked after initialize, it
// answers, and from then on treats the session as 2026-07-28: results
// carry resultType and notifications/tools/list_changed is no longer sent
// on the pipe. A stdio server can be probed only by a connection that
// goes on in 2026-07-28 when the answer names it — and such a connection
// costs the pipe's session the server's mid-call requests: on 2026-07-28
// the go-sdk server refuses its own elicitation/create and
// sampling/createMessage during a call ("cannot be sent while serving a
// request on protocol version 2026-07-28"; test_elicitation,
// test_sampling), which its 2025-11-25 session sends and the router passes
// on to clients of either era. One pipe serves every client, so stdio
// stays on the handshake (docs/endpoint.md, "Protocol revisions").
func (c *conn) probes() bool {
	_, ok := c.tr.(*streamTransport)
	return ok
}

// discover sends server/discover, as a 2026-07-28 client does first, and
// reads the revisions the server names. Every failure is an answer too:
// the server is taken to speak only the handshake era; none fails the
// connect.
func (c *conn) discover(ctx context.Context, info mcp.Implementation) discovery {
	d := discovery{asked: true}
	pctx, cancel := context.WithTimeout(ctx, discoverTimeout)
	defer cancel()
	id := mcp.NewRequestId("mcpr-" + strconv.FormatInt(c.ids.Add(1), 10))
	req := transport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: id, Method: string(mcp.MethodServerDiscover), Params: map[string]any{
		"_meta": map[string]any{
			mcp.MetaKeyProtocolVersion:    modernProtocol,
			mcp.MetaKeyClientInfo:         info,
			mcp.MetaKeyClientCapabilities: map[string]any{},
		},
	}}
	resp, err := c.tr.SendRequest(pctx, req)
	var rpcErr *RPCError
	switch {
	case errors.As(err, &rpcErr):
		// Over HTTP a JSON-RPC error comes with an error status.
		d.versions, d.err = supportedOfError(rpcErr.Code, rpcErr.Data), rpcErr
	case err != nil:
		d.err = err
	case resp.Error != nil:
		d.versions = supportedOfError(resp.Error.Code, resp.Error.Data)
		d.err = &RPCError{Code: resp.Error.Code, Message: resp.Error.Message}
	default:
		d.read(resp.Result)
	}
	return d
}

// read takes what a successful server/discover answer says.
func (d *discovery) read(result []byte) {
	var res struct {
		SupportedVersions any                    `json:"supportedVersions"`
		Capabilities      mcp.ServerCapabilities `json:"capabilities"`
		Instructions      string                 `json:"instructions"`
		Meta              map[string]any         `json:"_meta"`
	}
	if json.Unmarshal(result, &res) != nil {
		return
	}
	d.versions = revisions(res.SupportedVersions)
	d.instance, _ = res.Meta[InstanceMetaKey].(string)
	d.capabilities, d.instructions = res.Capabilities, res.Instructions
	if info, ok := res.Meta[mcp.MetaKeyServerInfo].(map[string]any); ok {
		d.serverInfo.Name, _ = info["name"].(string)
		d.serverInfo.Version, _ = info["version"].(string)
	}
}

// supportedOfError: a server that does not speak the probe's revision
// says which it does speak in its -32022 (data.supported, as 2026-07-28
// shapes that error); any other error names none.
func supportedOfError(code int, data any) []string {
	if code != mcp.UNSUPPORTED_PROTOCOL_VERSION {
		return nil
	}
	var d struct {
		Supported any `json:"supported"`
	}
	b, err := json.Marshal(data)
	if err != nil || json.Unmarshal(b, &d) != nil {
		return nil
	}
	return revisions(d.Supported)
}

// revisions is a list of revisions as the server sent it, keeping only
// strings as the spec writes revisions (short visible text), at most
// maxDiscoverVersions of them; nil when it names none.
func revisions(list any) []string {
	items, _ := list.([]any)
	var out []string
	for _, it := range items {
		if len(out) == maxDiscoverVersions {
			break
		}
		if v, ok := it.(string); ok && v != "" && len(v) <= 32 && visibleASCII(v) {
			out = append(out, v)
		}
	}
	return out
}
