// Profiles (docs/profiles.md): named sets of servers and tools, each served
// at /mcp/<name> with a discovery mode. This module imports nothing from
// the rest of the API, so types flow one way (types.ts imports it).

export const PROFILE_MODES = ['all', 'gated', 'search'] as const;
export type ProfileMode = (typeof PROFILE_MODES)[number];

export interface ProfileView {
  name: string;
  description: string;
  mode: ProfileMode;
  servers: string[];
  /** server → the upstream's own names of the selected tools; a server absent (or with none) contributes all. */
  tools: Record<string, string[]>;
  /** The profile's endpoint path: /mcp/<name>. */
  path: string;
}

export interface ProfilesApi {
  listProfiles(): Promise<ProfileView[]>;
  createProfile(p: ProfileView): Promise<ProfileView>;
  updateProfile(p: ProfileView): Promise<ProfileView>;
  removeProfile(name: string): Promise<void>;
  /** Snippet for the profile's endpoint; token may be empty (a placeholder is printed). */
  profileSnippet(name: string, client: string, mode: string, token: string, upstreamAuth: string[]): Promise<string>;
}

function obj(raw: unknown, what: string): Record<string, unknown> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new Error(`${what}: expected an object`);
  return raw as Record<string, unknown>;
}
const s = (v: unknown) => (typeof v === 'string' ? v : '');
const strs = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

export function toProfileView(raw: unknown): ProfileView {
  const r = obj(raw, 'profile');
  const name = s(r.name);
  if (!name) throw new Error('profile: missing name');
  const mode = s(r.mode);
  if (!(PROFILE_MODES as readonly string[]).includes(mode)) throw new Error(`profile ${name}: mode ${JSON.stringify(mode)}`);
  const tools: Record<string, string[]> = {};
  if (typeof r.tools === 'object' && r.tools !== null && !Array.isArray(r.tools)) {
    for (const [server, names] of Object.entries(r.tools)) {
      const list = strs(names);
      if (list.length) tools[server] = list;
    }
  }
  return { name, description: s(r.description), mode: mode as ProfileMode, servers: strs(r.servers), tools, path: s(r.path) || `/mcp/${name}` };
}

type Call = <T>(method: string, args: unknown[], convert: (raw: unknown) => T) => Promise<T>;

export function createProfilesApi(call: Call): ProfilesApi {
  const list = (raw: unknown) => {
    if (!Array.isArray(raw)) throw new Error('profiles: expected a list');
    return raw.map(toProfileView);
  };
  return {
    listProfiles: () => call('ListProfiles', [], list),
    createProfile: (p) => call('CreateProfile', [p], toProfileView),
    updateProfile: (p) => call('UpdateProfile', [p], toProfileView),
    removeProfile: (name) => call('RemoveProfile', [name], () => undefined),
    profileSnippet: (name, client, mode, token, upstreamAuth) =>
      call('ProfileSnippet', [name, client, mode, token, upstreamAuth], (r) => (typeof r === 'string' ? r : '')),
  };
}
