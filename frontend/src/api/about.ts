import { ApiError, type Call } from './base';

// Settings → About: the running version and the update check
// (docs/install.md#updates). Nothing is downloaded: a newer release is shown
// with a link the user opens in the browser.

/** One answer of the project's GitHub Releases, compared with this build. */
export interface UpdateCheck {
  current: string;
  latest: string;
  /** The latest release is a higher version than the running one. */
  newer: boolean;
  /** The running version is not a release (dev, commits after a tag, -dirty). */
  devBuild: boolean;
  /** The release page; only ever https://github.com/… (checked here too). */
  url: string;
  name: string;
  notes: string;
  publishedAt: string;
  checkedAt: string;
}

export interface AboutInfo {
  version: string;
  /** The version is not a release (dev, a bare commit, commits after a tag, -dirty). */
  devBuild: boolean;
  checkForUpdates: boolean;
  lastCheck: UpdateCheck | null;
}

export interface AboutApi {
  about(): Promise<AboutInfo>;
  /** Writes the setting checkForUpdates; checks nothing. */
  setCheckForUpdates(on: boolean): Promise<AboutInfo>;
  /** force: the user's click (always asks); without it, refused while the setting is off. */
  checkForUpdates(force: boolean): Promise<UpdateCheck>;
}

const RELEASE_PAGE = 'https://github.com/';

function obj(raw: unknown, what: string): Record<string, unknown> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new ApiError(`${what}: expected an object`);
  return raw as Record<string, unknown>;
}
const s = (v: unknown) => (typeof v === 'string' ? v : '');

export function toUpdateCheck(raw: unknown): UpdateCheck {
  const r = obj(raw, 'update check');
  if (typeof r.latest !== 'string' || r.latest === '') throw new ApiError('update check: missing latest');
  const url = s(r.url);
  return {
    current: s(r.current),
    latest: r.latest,
    newer: r.newer === true,
    devBuild: r.devBuild === true,
    // The page is opened in the browser: anything but a github.com page is dropped.
    url: url.startsWith(RELEASE_PAGE) ? url : '',
    name: s(r.name),
    notes: s(r.notes),
    publishedAt: s(r.publishedAt),
    checkedAt: s(r.checkedAt),
  };
}

export function toAboutInfo(raw: unknown): AboutInfo {
  const r = obj(raw, 'about');
  return {
    version: s(r.version),
    devBuild: r.devBuild === true,
    checkForUpdates: r.checkForUpdates === true,
    lastCheck: r.lastCheck == null ? null : toUpdateCheck(r.lastCheck),
  };
}


export function createAboutApi(call: Call): AboutApi {
  return {
    about: () => call('About', [], toAboutInfo),
    setCheckForUpdates: (on) => call('SetCheckForUpdates', [on], toAboutInfo),
    checkForUpdates: (force) => call('CheckForUpdates', [force], toUpdateCheck),
  };
}

/**
 * Opens a release page on the user's click. Inside the desktop window the
 * system browser opens it (the Wails runtime's BrowserOpenURL) and true is
 * returned so the link's own navigation is cancelled; in a browser tab the
 * link opens it itself.
 */
export function openInSystemBrowser(url: string): boolean {
  if (!url.startsWith(RELEASE_PAGE) || typeof window === 'undefined') return false;
  const rt = (window as unknown as { runtime?: { BrowserOpenURL?: (u: string) => void } }).runtime;
  if (typeof rt?.BrowserOpenURL !== 'function') return false;
  rt.BrowserOpenURL(url);
  return true;
}
