// A small MCP server for the bundle tests: it reports the user_config values
// the router passed it (through env and args) so the test can see them arrive.
// The sensitive one is reported by its SHA-256 only, so the request log (which
// keeps answers) never holds it and a test can look for it in the database.
const { createHash } = require("node:crypto");
const { McpServer } = require("@modelcontextprotocol/sdk/server/mcp.js");
const { StdioServerTransport } = require("@modelcontextprotocol/sdk/server/stdio.js");

const server = new McpServer({ name: "bundle-echo", version: "1.0.0" });
server.registerTool("show_config", { description: "the user_config values this server got" }, async () => ({
  content: [{
    type: "text",
    text: JSON.stringify({
      apiKeySha256: createHash("sha256").update(process.env.API_KEY || "").digest("hex"),
      greeting: process.argv[2] || "",
    }),
  }],
}));
server.connect(new StdioServerTransport());
