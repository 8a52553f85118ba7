// .mcpb bundles (docs/bundles.md): the Servers page sends a dropped or
// picked file in chunks, shows what InspectBundle says and installs it.
// This module imports nothing from the rest of the API, so types flow one
// way (types.ts and convert.ts import it).

export const SIGNATURE_STATES = ['unsigned', 'signed', 'self-signed', 'untrusted'] as const;
export type SignatureState = (typeof SIGNATURE_STATES)[number];

export interface BundleSignature {
  status: SignatureState;
  /** The signing certificate's subject common name. */
  publisher: string;
  issuer: string;
  /** SHA-256 of the certificate, hex. */
  fingerprint: string;
}

export interface BundleTool {
  name: string;
  description: string;
}

export const USER_CONFIG_TYPES = ['string', 'number', 'boolean', 'directory', 'file'] as const;
export type UserConfigType = (typeof USER_CONFIG_TYPES)[number];

export interface BundleUserOption {
  key: string;
  type: UserConfigType;
  title: string;
  description: string;
  required: boolean;
  sensitive: boolean;
  multiple: boolean;
  default: string[];
}

/** What the install dialog shows of a bundle. */
export interface BundlePreview {
  name: string;
  displayName: string;
  version: string;
  description: string;
  author: string;
  serverType: string;
  signature: BundleSignature;
  tools: BundleTool[];
  userConfig: BundleUserOption[];
  /** The server's name unless the user gives another. */
  serverName: string;
}

/** ServerView.bundle: the bundle a server was installed from. */
export interface BundleInfo {
  name: string;
  version: string;
  author: string;
  tools: BundleTool[];
  signature: SignatureState;
  signedBy: string;
  fingerprint: string;
}

export interface BundlesApi {
  beginBundleUpload(): Promise<string>;
  /** Adds a base64 chunk; resolves to the upload's size so far. */
  appendBundleUpload(id: string, chunk: string): Promise<number>;
  inspectBundle(id: string): Promise<BundlePreview>;
  discardBundleUpload(id: string): Promise<void>;
}

/** Bytes of one upload chunk: under the Go side's 2 MiB cap (MaxBundleChunkBytes). */
export const BUNDLE_CHUNK_BYTES = 1536 * 1024;

function obj(raw: unknown, what: string): Record<string, unknown> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new Error(`${what}: expected an object`);
  return raw as Record<string, unknown>;
}
const s = (v: unknown) => (typeof v === 'string' ? v : '');
const strs = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const oneOf = <T extends string>(list: readonly T[], v: unknown, what: string): T => {
  if (typeof v === 'string' && (list as readonly string[]).includes(v)) return v as T;
  throw new Error(`${what}: ${JSON.stringify(v)} is not one of ${list.join(', ')}`);
};

function toTools(raw: unknown): BundleTool[] {
  return Array.isArray(raw) ? raw.map((t) => obj(t, 'bundle tool')).map((t) => ({ name: s(t.name), description: s(t.description) })) : [];
}

export function toBundleInfo(raw: unknown): BundleInfo {
  const r = obj(raw, 'bundle');
  return {
    name: s(r.name),
    version: s(r.version),
    author: s(r.author),
    tools: toTools(r.tools),
    signature: oneOf(SIGNATURE_STATES, r.signature, `bundle ${s(r.name)}: signature`),
    signedBy: s(r.signedBy),
    fingerprint: s(r.fingerprint),
  };
}

export function toBundlePreview(raw: unknown): BundlePreview {
  const r = obj(raw, 'bundle preview');
  const name = s(r.name);
  if (!name) throw new Error('bundle preview: missing name');
  const sig = obj(r.signature, `bundle ${name}: signature`);
  const userConfig = Array.isArray(r.userConfig)
    ? r.userConfig.map((raw) => {
        const o = obj(raw, `bundle ${name}: user_config`);
        return {
          key: s(o.key),
          type: oneOf(USER_CONFIG_TYPES, o.type, `bundle ${name}: user_config ${s(o.key)} type`),
          title: s(o.title),
          description: s(o.description),
          required: o.required === true,
          sensitive: o.sensitive === true,
          multiple: o.multiple === true,
          default: strs(o.default),
        };
      })
    : [];
  return {
    name,
    displayName: s(r.displayName),
    version: s(r.version),
    description: s(r.description),
    author: s(r.author),
    serverType: s(r.serverType),
    signature: {
      status: oneOf(SIGNATURE_STATES, sig.status, `bundle ${name}: signature status`),
      publisher: s(sig.publisher),
      issuer: s(sig.issuer),
      fingerprint: s(sig.fingerprint),
    },
    tools: toTools(r.tools),
    userConfig,
    serverName: s(r.serverName) || name,
  };
}

/** The bytes of a blob (a slice of a dropped file), through FileReader, which every webview has. */
export function readBlob(blob: Blob): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const r = new FileReader();
    r.onload = () => resolve(new Uint8Array(r.result as ArrayBuffer));
    r.onerror = () => reject(r.error ?? new Error('the file could not be read'));
    r.readAsArrayBuffer(blob);
  });
}

/** base64 of bytes, in pieces (String.fromCharCode takes only so many arguments). */
export function toBase64(bytes: Uint8Array): string {
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(bin);
}

type Call = <T>(method: string, args: unknown[], convert: (raw: unknown) => T) => Promise<T>;

/** The bundle calls but InstallBundle, which answers a ServerView (client.ts). */
export function createBundlesApi(call: Call): BundlesApi {
  const str = (r: unknown) => {
    if (typeof r !== 'string' || !r) throw new Error('bundle upload: expected an id');
    return r;
  };
  return {
    beginBundleUpload: () => call('BeginBundleUpload', [], str),
    appendBundleUpload: (id, chunk) => call('AppendBundleUpload', [id, chunk], (r) => (typeof r === 'number' ? r : 0)),
    inspectBundle: (id) => call('InspectBundle', [id], toBundlePreview),
    discardBundleUpload: (id) => call('DiscardBundleUpload', [id], () => undefined),
  };
}
