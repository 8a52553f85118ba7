// Completion of policy.yaml's keys in the Policy page's editor: the keys
// that may come at the cursor's place, from the file's schema
// (docs/policy.schema.json; lib.test.ts checks the two agree).

/** The Policy page's editor model; the completion applies to it alone. */
export const POLICY_MODEL_PATH = '/mcp-router/policy.yaml';

export interface KeyDoc {
  doc: string;
  /** Keys of the object under this key; absent for a scalar or a list of strings. */
  keys?: Record<string, KeyDoc>;
  /** The value is a list of objects with these keys (policies:). */
  items?: Record<string, KeyDoc>;
  /** What to insert after "key: " ("" for a nested block). */
  value?: string;
}

const globs = (doc: string): KeyDoc => ({ doc, value: '["*"]' });

export const RULE_KEYS: Record<string, KeyDoc> = {
  name: { doc: 'Unique; refusals, the request log and `policy explain` name the rule by it.', value: '""' },
  match: {
    doc: 'Which requests the rule applies to; every list given must match. Left out: every request.',
    keys: {
      tools: globs('Tool calls whose tool matches the upstream name or the router name (<server><separator><tool>).'),
      servers: globs('Requests to a server whose name matches.'),
      clients: globs('Requests from a client whose token name or JWT subject matches.'),
      profiles: globs('Requests that came through a profile whose name matches (/mcp/<profile>; plain /mcp is "default").'),
      permissions: { doc: 'Ability calls (and listed abilities) whose permission is in the list: read, write. A rule with permissions applies to abilities only.', value: '["write"]' },
    },
  },
  require: {
    doc: 'What a matching tool call needs.',
    keys: {
      human_approval: { doc: 'A person must approve the call: the desktop window or browser UI is asked first, else the client by elicitation.', value: 'true' },
      approval_timeout_seconds: { doc: 'How long the call waits for the answer (1–3600; default: the approvalTimeoutSeconds setting, 60 unless changed).', value: '60' },
      log_level: { doc: 'audit: record the call in the hash-chained audit trail.', value: 'audit' },
    },
  },
  limit: {
    doc: 'A token-bucket rate limit on matching tool calls.',
    keys: {
      requests_per_minute: { doc: 'Calls a minute.', value: '60' },
      per: { doc: 'client, tool or server; left out: each client for each tool.', value: 'client' },
    },
  },
  servers: {
    doc: 'A server in allow passes; else one in deny is refused; allow alone refuses every other server.',
    keys: { allow: globs('Servers allowed.'), deny: globs('Servers refused.') },
  },
  tools: {
    doc: 'Tools removed from tools/list and refused when called.',
    keys: { hide: globs('Tools to hide (upstream or router name).') },
  },
};

export const ABILITY_KEYS: Record<string, KeyDoc> = {
  name: { doc: "The tool's name in tools/list; unique among abilities.", value: '""' },
  description: { doc: 'What the tool does, for the model.', value: '""' },
  input_schema: { doc: "A JSON Schema of type object: the ability's inputSchema; calls that do not fit it are refused.", value: '' },
  permission: { doc: 'read or write; policy rules match it with match.permissions.', value: 'read' },
  server: { doc: 'The upstream server of the backend tool.', value: '""' },
  tool: { doc: "The backend tool: its upstream's own name.", value: '""' },
  arguments: { doc: "The backend tool's arguments: each {from: <input field>, default: …} or {const: …}.", value: '' },
};

export const ROOT_KEYS: Record<string, KeyDoc> = {
  policies: { doc: 'The rules.', items: RULE_KEYS },
  abilities: { doc: 'Virtual tools: listed under their own name, checked against input_schema, sent as a call of the backend tool.', items: ABILITY_KEYS },
};

interface Line {
  dash: number; // column of "- ", -1 when the line is no list item
  keyCol: number; // column of the key
  key: string | null;
}

function parseLine(line: string): Line {
  const m = /^(\s*)(-\s+)?(.*)$/.exec(line)!;
  const lead = m[1]!.length;
  const dash = m[2] ? lead : -1;
  const keyCol = lead + (m[2]?.length ?? 0);
  const key = /^([A-Za-z_]+)\s*:/.exec(m[3]!)?.[1] ?? null;
  return { dash, keyCol, key };
}

/**
 * The keys that may be typed on the line being edited, given the text
 * before the cursor: the path to it is found by walking up to the lines
 * that hold it (less indented keys, and the "- " of list items).
 */
export function policyKeysAt(before: string): Record<string, KeyDoc> {
  const lines = before.split('\n');
  const last = lines[lines.length - 1] ?? '';
  if (last.includes(':') || last.trimStart().startsWith('#')) return {}; // a value or a comment, not a key
  const cur = parseLine(last);
  const path: string[] = [];
  let col = cur.keyCol;
  if (cur.dash >= 0) {
    path.unshift('-');
    col = cur.dash;
  }
  for (let i = lines.length - 2; i >= 0 && col > 0; i--) {
    const raw = lines[i]!;
    if (raw.trim() === '' || raw.trimStart().startsWith('#')) continue;
    const l = parseLine(raw);
    if (l.keyCol === col && l.dash >= 0 && path[0] !== '-') {
      // The first line of the list item this key belongs to.
      path.unshift('-');
      col = l.dash;
      continue;
    }
    if (l.keyCol >= col || !l.key) continue;
    path.unshift(l.key);
    col = l.keyCol;
    if (l.dash >= 0) {
      path.unshift('-');
      col = l.dash;
    }
  }
  let node: Record<string, KeyDoc> | undefined = ROOT_KEYS;
  for (let i = 0; i < path.length; i++) {
    const d: KeyDoc | undefined = node?.[path[i]!];
    if (!d) return {};
    if (d.items) {
      if (path[i + 1] !== '-') return {};
      node = d.items;
      i++;
    } else {
      node = d.keys;
    }
  }
  return node ?? {};
}
