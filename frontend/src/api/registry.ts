// The MCP Registry (docs/registry.md): the Catalog page's search, show and
// install. This module imports nothing from the rest of the API, so types
// flow one way (types.ts imports it); the view an install answers is the
// caller's (ServerView), passed in with its converter.

export interface RegistryInput {
  description: string;
  isRequired: boolean;
  isSecret: boolean;
  default: string;
  choices: string[];
}

export interface RegistryPackage {
  registryType: string;
  identifier: string;
  version: string;
  runtimeHint: string;
  transport: string;
}

export interface RegistryRemote {
  type: string;
  url: string;
}

export interface RegistryServer {
  name: string;
  title: string;
  description: string;
  version: string;
  websiteUrl: string;
  repositoryUrl: string;
  packages: RegistryPackage[];
  remotes: RegistryRemote[];
}

export interface RegistryEntry {
  server: RegistryServer;
  /** The official registry's status of this version ("active", "deprecated", …); "" when it gives none. */
  status: string;
  isLatest: boolean;
}

export interface RegistryPage {
  servers: RegistryEntry[];
  /** The cursor of the next page; "" on the last. */
  nextCursor: string;
}

export const REGISTRY_TARGET_KINDS = ['package', 'remote'] as const;
export type RegistryTargetKind = (typeof REGISTRY_TARGET_KINDS)[number];
export interface RegistryTarget {
  kind: RegistryTargetKind;
  index: number;
}

export const REGISTRY_FIELD_KINDS = ['arg', 'env', 'header'] as const;
export type RegistryFieldKind = (typeof REGISTRY_FIELD_KINDS)[number];
export interface RegistryField {
  kind: RegistryFieldKind;
  key: string;
  description: string;
  required: boolean;
  secret: boolean;
  default: string;
  choices: string[];
  format: string;
}

export interface RegistryTargetView {
  target: RegistryTarget;
  label: string;
  installable: boolean;
  reason: string;
  fields: RegistryField[];
}

export interface RegistryEntryView {
  entry: RegistryEntry;
  targets: RegistryTargetView[];
  defaultName: string;
}

export interface RegistryAnswers {
  args: Record<string, string>;
  env: Record<string, string>;
  headers: Record<string, string>;
}

export interface RegistrySource {
  registry: string;
  name: string;
  version: string;
}

export interface RegistryCheck {
  server: string;
  source: RegistrySource;
  latest: string;
  outdated: boolean;
  error: string;
}

export interface RegistryApi<V> {
  /** One page of the servers whose name contains query (latest versions); cursor "" is the first page. */
  registrySearch(query: string, cursor: string, limit: number): Promise<RegistryPage>;
  /** One version ("" the latest) with each package and remote, and what installing it asks. */
  registryShow(name: string, version: string): Promise<RegistryEntryView>;
  /** Installs a target as the server serverName ("" derives one); secrets go to the keychain. */
  registryInstall(name: string, version: string, target: RegistryTarget, serverName: string, answers: RegistryAnswers): Promise<V>;
  /** Every server installed from a registry, with the latest version its registry has. */
  outdatedServers(): Promise<RegistryCheck[]>;
}

function obj(raw: unknown, what: string): Record<string, unknown> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new Error(`${what}: expected an object`);
  return raw as Record<string, unknown>;
}
const s = (v: unknown) => (typeof v === 'string' ? v : '');
const strs = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const arr = (v: unknown) => (Array.isArray(v) ? v : []);
const optObj = (v: unknown) => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

function toPackage(raw: unknown): RegistryPackage {
  const r = obj(raw, 'registry package');
  return {
    registryType: s(r.registryType),
    identifier: s(r.identifier),
    version: s(r.version),
    runtimeHint: s(r.runtimeHint),
    transport: s(optObj(r.transport).type),
  };
}

function toRemote(raw: unknown): RegistryRemote {
  const r = obj(raw, 'registry remote');
  return { type: s(r.type), url: s(r.url) };
}

export function toRegistryEntry(raw: unknown): RegistryEntry {
  const r = obj(raw, 'registry entry');
  const sv = obj(r.server, 'registry entry: server');
  const name = s(sv.name);
  if (!name) throw new Error('registry entry: missing name');
  const official = optObj(optObj(r._meta)['io.modelcontextprotocol.registry/official']);
  return {
    server: {
      name,
      title: s(sv.title),
      description: s(sv.description),
      version: s(sv.version),
      websiteUrl: s(sv.websiteUrl),
      repositoryUrl: s(optObj(sv.repository).url),
      packages: arr(sv.packages).map(toPackage),
      remotes: arr(sv.remotes).map(toRemote),
    },
    status: s(official.status),
    isLatest: official.isLatest === true,
  };
}

export function toRegistryPage(raw: unknown): RegistryPage {
  const r = obj(raw, 'registry page');
  if (!Array.isArray(r.servers)) throw new Error('registry page: servers is not a list');
  return { servers: r.servers.map(toRegistryEntry), nextCursor: s(optObj(r.metadata).nextCursor) };
}

function toTarget(raw: unknown): RegistryTarget {
  const r = obj(raw, 'registry target');
  const kind = s(r.kind);
  if (!(REGISTRY_TARGET_KINDS as readonly string[]).includes(kind)) throw new Error(`registry target: kind ${JSON.stringify(kind)}`);
  if (typeof r.index !== 'number' || r.index < 1) throw new Error('registry target: index');
  return { kind: kind as RegistryTargetKind, index: r.index };
}

function toField(raw: unknown): RegistryField {
  const r = obj(raw, 'registry field');
  const kind = s(r.kind);
  if (!(REGISTRY_FIELD_KINDS as readonly string[]).includes(kind)) throw new Error(`registry field: kind ${JSON.stringify(kind)}`);
  const key = s(r.key);
  if (!key) throw new Error('registry field: missing key');
  return {
    kind: kind as RegistryFieldKind,
    key,
    description: s(r.description),
    required: r.required === true,
    secret: r.secret === true,
    default: s(r.default),
    choices: strs(r.choices),
    format: s(r.format),
  };
}

export function toRegistryEntryView(raw: unknown): RegistryEntryView {
  const r = obj(raw, 'registry entry view');
  return {
    entry: toRegistryEntry(r.entry),
    defaultName: s(r.defaultName),
    targets: arr(r.targets).map((t) => {
      const v = obj(t, 'registry target view');
      return { target: toTarget(v.target), label: s(v.label), installable: v.installable === true, reason: s(v.reason), fields: arr(v.fields).map(toField) };
    }),
  };
}

export function toRegistryCheck(raw: unknown): RegistryCheck {
  const r = obj(raw, 'registry check');
  const src = optObj(r.source);
  return {
    server: s(r.server),
    source: { registry: s(src.registry), name: s(src.name), version: s(src.version) },
    latest: s(r.latest),
    outdated: r.outdated === true,
    error: s(r.error),
  };
}

type Call = <T>(method: string, args: unknown[], convert: (raw: unknown) => T) => Promise<T>;

export function createRegistryApi<V>(call: Call, toView: (raw: unknown) => V): RegistryApi<V> {
  return {
    registrySearch: (query, cursor, limit) => call('RegistrySearch', [query, cursor, limit], toRegistryPage),
    registryShow: (name, version) => call('RegistryShow', [name, version], toRegistryEntryView),
    registryInstall: (name, version, target, serverName, answers) => call('RegistryInstall', [name, version, target, serverName, answers], toView),
    outdatedServers: () =>
      call('OutdatedServers', [], (raw) => {
        if (!Array.isArray(raw)) throw new Error('outdated servers: expected a list');
        return raw.map(toRegistryCheck);
      }),
  };
}
