// Types of the hook `context` and of what a script returns (docs/hooks.md),
// given to the editor's JavaScript language service so completion offers
// context's fields. Kept in one string so the editor and tests share it.
export const HOOK_CONTEXT_DTS = `
/** What MCP Router passes to a hook script (docs/hooks.md). */
interface HookContext {
  /** 'pre' before the request is routed, 'post' after the upstream answered. */
  phase: 'pre' | 'post';
  /** 'CallTool', 'ListTools', 'ReadResource', 'GetPrompt', … */
  requestType: 'CallTool' | 'ListTools' | 'ReadResource' | 'ListResources' | 'ListResourceTemplates' | 'GetPrompt' | 'ListPrompts' | 'Complete' | 'Ping' | string;
  /** The MCP method, e.g. 'tools/call'. */
  method: string;
  /** The upstream server, e.g. 'everything' (empty for aggregated lists). */
  serverName: string;
  /** The upstream's own tool name, e.g. 'echo'. */
  toolName: string;
  /** The tool's (or prompt's) arguments; the same object as request.params.arguments. */
  arguments: Record<string, any>;
  request: { method: string; params: Record<string, any> };
  client: { tokenName: string; sessionId: string };
  /** Carried from the pre hooks to the post hooks of the same call. */
  shared: Record<string, any>;
  /** post: the upstream's result; null if the call failed. */
  response: Record<string, any> | null;
  /** post: the failure, else null. */
  error: { code: number; message: string; data?: any } | null;
  /** post: how long the upstream took, in milliseconds. */
  duration: number;
}

/** What a script may return. Nothing (or continue: true) lets the request go on. */
interface HookResult {
  continue: boolean;
  /** Blocks with this message when continue is false. */
  error?: { message: string; code?: number };
  /** Replaces arguments, request, response, error, shared. */
  context?: Partial<Pick<HookContext, 'arguments' | 'request' | 'response' | 'error' | 'shared'>>;
}

/** The request being handled. The script is the body of a function of context. */
declare const context: HookContext;
`;

/** A sample context for the test runner: a tools/call of everything's echo. */
export function sampleContext(phase: 'pre' | 'post' = 'pre'): string {
  const ctx = {
    phase,
    requestType: 'CallTool',
    method: 'tools/call',
    serverName: 'everything',
    toolName: 'echo',
    arguments: { message: 'hello' },
    request: { method: 'tools/call', params: { name: 'everything__echo', arguments: { message: 'hello' } } },
    client: { tokenName: 'test', sessionId: 'sample' },
    shared: {},
    ...(phase === 'post' ? { response: { content: [{ type: 'text', text: 'Echo: hello' }] }, error: null, duration: 3 } : {}),
  };
  return JSON.stringify(ctx, null, 2);
}

export const NEW_HOOK_SCRIPT = `// The body of a function of \`context\`; return nothing to let the request go on.
if (context.requestType !== 'CallTool') return;

// return { continue: false, error: { message: 'not allowed' } };
`;
