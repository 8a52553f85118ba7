// A small MCP server for the bundle tests: it reports the user_config values
// the router passed it (through env and args) so the test can see them arrive.
const { McpServer } = require("@modelcontextprotocol/sdk/server/mcp.js");
const { StdioServerTransport } = require("@modelcontextprotocol/sdk/server/stdio.js");

const server = new McpServer({ name: "bundle-echo", version: "1.0.0" });
server.registerTool("show_config", { description: "the user_config values this server got" }, async () => ({
  content: [{ type: "text", text: JSON.stringify({ apiKey: process.env.API_KEY || "", greeting: process.argv[2] || "" }) }],
}));
server.connect(new StdioServerTransport());
