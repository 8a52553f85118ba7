// Import from the Electron MCP Router (docs/import.md): find its database,
// preview what an import would do, import. This module imports nothing from
// the rest of the API, so types flow one way (types.ts imports it).

export type ElectronSourceKind = 'database' | 'export';

export interface ElectronDatabase {
  path: string;
  exists: boolean;
}

export interface ElectronPlannedServer {
  name: string;
  /** Its name in the Electron app. */
  from: string;
  transport: string;
  target: string;
  enabled: boolean;
  disabledTools: string[];
  secretEnv: string[];
  secretHeaders: string[];
  project: string;
}

export interface ElectronPlannedProfile {
  name: string;
  from: string;
  servers: string[];
}

export interface ElectronSkip {
  kind: 'server' | 'project';
  name: string;
  reason: string;
}

/** What an import does: the preview and the import return the same shape. */
export interface ElectronPlan {
  source: string;
  kind: ElectronSourceKind;
  workspace: string;
  servers: ElectronPlannedServer[];
  profiles: ElectronPlannedProfile[];
  skipped: ElectronSkip[];
  /** The app's access tokens: never carried over. */
  tokens: number;
  /** Why, and what to do instead (the CLI's words); "" when there are none. */
  tokensNote: string;
  notes: string[];
}

export interface ElectronImportApi {
  findElectronDatabase(): Promise<ElectronDatabase>;
  previewElectronImport(kind: ElectronSourceKind, path: string): Promise<ElectronPlan>;
  importElectron(kind: ElectronSourceKind, path: string): Promise<ElectronPlan>;
}

function obj(raw: unknown, what: string): Record<string, unknown> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new Error(`${what}: expected an object`);
  return raw as Record<string, unknown>;
}
const s = (v: unknown) => (typeof v === 'string' ? v : '');
const strs = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const arr = (v: unknown, what: string) => {
  if (v == null) return [];
  if (!Array.isArray(v)) throw new Error(`${what}: expected a list`);
  return v as unknown[];
};

export function toElectronDatabase(raw: unknown): ElectronDatabase {
  const r = obj(raw, 'electron database');
  return { path: s(r.path), exists: r.exists === true };
}

export function toElectronPlan(raw: unknown): ElectronPlan {
  const r = obj(raw, 'electron import plan');
  const kind = s(r.kind) === 'export' ? 'export' : 'database';
  return {
    source: s(r.source),
    kind,
    workspace: s(r.workspace),
    servers: arr(r.servers, 'servers').map((x) => {
      const v = obj(x, 'planned server');
      return {
        name: s(v.name),
        from: s(v.from),
        transport: s(v.transport),
        target: s(v.target),
        enabled: v.enabled === true,
        disabledTools: strs(v.disabledTools),
        secretEnv: strs(v.secretEnv),
        secretHeaders: strs(v.secretHeaders),
        project: s(v.project),
      };
    }),
    profiles: arr(r.profiles, 'profiles').map((x) => {
      const v = obj(x, 'planned profile');
      return { name: s(v.name), from: s(v.from), servers: strs(v.servers) };
    }),
    skipped: arr(r.skipped, 'skipped').map((x) => {
      const v = obj(x, 'skipped');
      return { kind: s(v.kind) === 'project' ? 'project' : 'server', name: s(v.name), reason: s(v.reason) };
    }),
    tokens: typeof r.tokens === 'number' ? r.tokens : 0,
    tokensNote: s(r.tokensNote),
    notes: strs(r.notes),
  };
}

type Call = <T>(method: string, args: unknown[], convert: (raw: unknown) => T) => Promise<T>;

export function createElectronImportApi(call: Call): ElectronImportApi {
  return {
    findElectronDatabase: () => call('FindElectronDatabase', [], toElectronDatabase),
    previewElectronImport: (kind, path) => call('PreviewElectronImport', [kind, path], toElectronPlan),
    importElectron: (kind, path) => call('ImportElectron', [kind, path], toElectronPlan),
  };
}
