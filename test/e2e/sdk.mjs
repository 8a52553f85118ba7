// The TypeScript SDK as installed in test/peers (pinned there). The e2e tests
// live outside that package, so bare specifiers would not resolve; import the
// package's ESM build by path instead.
export { Client } from '../peers/node_modules/@modelcontextprotocol/sdk/dist/esm/client/index.js';
export { StreamableHTTPClientTransport } from '../peers/node_modules/@modelcontextprotocol/sdk/dist/esm/client/streamableHttp.js';
export { StdioClientTransport } from '../peers/node_modules/@modelcontextprotocol/sdk/dist/esm/client/stdio.js';
export { CreateMessageRequestSchema, ResourceUpdatedNotificationSchema, ResourceListChangedNotificationSchema } from '../peers/node_modules/@modelcontextprotocol/sdk/dist/esm/types.js';
export { ElicitRequestSchema, ListRootsRequestSchema } from '../peers/node_modules/@modelcontextprotocol/sdk/dist/esm/types.js';
export { CreateTaskResultSchema } from '../peers/node_modules/@modelcontextprotocol/sdk/dist/esm/types.js';
export * as tasksV2 from '../peers/node_modules/@modelcontextprotocol/ext-tasks/dist/core/v2/index.js';
