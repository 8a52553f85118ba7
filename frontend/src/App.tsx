import { lazy, Suspense, useEffect, useState, type ReactNode } from 'react';
import { AppShell, PAGES, type Page } from './components/AppShell';
import { ApprovalsPanel } from './components/ApprovalsPanel';
import { I18nProvider, resolveLocale, useMessages } from './i18n';
import { ServersPage } from './pages/ServersPage';
import type { Language, Theme } from './api';
import { useSettings } from './stores';

// The Servers page is in the first bundle; every other page (and Monaco,
// through the Hooks page) loads when first opened.
const ToolsPage = lazy(() => import('./pages/ToolsPage'));
const ChatPage = lazy(() => import('./pages/ChatPage'));
const HooksPage = lazy(() => import('./pages/HooksPage'));
const PolicyPage = lazy(() => import('./pages/PolicyPage'));
const LogsPage = lazy(() => import('./pages/LogsPage'));
const ProcessesPage = lazy(() => import('./pages/ProcessesPage'));
const ConnectPage = lazy(() => import('./pages/ConnectPage'));
const ProfilesPage = lazy(() => import('./pages/ProfilesPage'));
const CatalogPage = lazy(() => import('./pages/CatalogPage'));
const SettingsPage = lazy(() => import('./pages/SettingsPage'));

function pageFromHash(): Page {
  const h = window.location.hash.replace(/^#\/?/, '').split(/[/?]/)[0] ?? '';
  return (PAGES as readonly string[]).includes(h) ? (h as Page) : 'servers';
}

export function useHashPage(): Page {
  const [page, setPage] = useState(pageFromHash);
  useEffect(() => {
    const on = () => setPage(pageFromHash());
    window.addEventListener('hashchange', on);
    return () => window.removeEventListener('hashchange', on);
  }, []);
  return page;
}

const APPEARANCE_KEY = 'mcpr.appearance';

/**
 * The last theme and language the settings gave, so the next start paints
 * them at once instead of flashing the defaults until GetSettings answers.
 */
export function cachedAppearance(): { theme?: Theme; language?: Language } {
  try {
    const v = JSON.parse(localStorage.getItem(APPEARANCE_KEY) ?? '{}') as { theme?: Theme; language?: Language };
    return typeof v === 'object' && v !== null ? v : {};
  } catch {
    return {};
  }
}

function cacheAppearance(theme: Theme, language: Language) {
  try {
    localStorage.setItem(APPEARANCE_KEY, JSON.stringify({ theme, language }));
  } catch {
    // storage disabled: only the first paint is affected
  }
}

/** Puts the theme on <html>: data-theme for light/dark, none for "system". */
export function applyTheme(theme: string | undefined) {
  const root = document.documentElement;
  if (theme === 'light' || theme === 'dark') root.dataset.theme = theme;
  else delete root.dataset.theme;
}

function PageLoading() {
  const t = useMessages();
  return (
    <p className="muted" role="status">
      <span className="spinner" /> {t.loadingPage}
    </p>
  );
}

export function App({ footer }: { footer?: ReactNode }) {
  const settings = useSettings((s) => s.settings);
  const loadSettings = useSettings((s) => s.load);
  const listenSettings = useSettings((s) => s.listen);
  const page = useHashPage();

  useEffect(() => {
    const stop = listenSettings();
    void loadSettings();
    return stop;
  }, [listenSettings, loadSettings]);

  const [cached] = useState(cachedAppearance);
  const theme = settings?.theme ?? cached.theme;
  const language = settings?.language ?? cached.language;
  useEffect(() => applyTheme(theme), [theme]);
  useEffect(() => {
    if (settings) cacheAppearance(settings.theme, settings.language);
  }, [settings]);
  const locale = resolveLocale(language);
  useEffect(() => {
    document.documentElement.lang = locale;
  }, [locale]);

  return (
    <I18nProvider locale={locale}>
      <AppShell page={page} footer={footer}>
        <Suspense fallback={<PageLoading />}>
          {page === 'servers' && <ServersPage />}
          {page === 'tools' && <ToolsPage />}
          {page === 'chat' && <ChatPage />}
          {page === 'hooks' && <HooksPage />}
          {page === 'policy' && <PolicyPage />}
          {page === 'processes' && <ProcessesPage />}
          {page === 'logs' && <LogsPage />}
          {page === 'connect' && <ConnectPage />}
          {page === 'profiles' && <ProfilesPage />}
          {page === 'catalog' && <CatalogPage />}
          {page === 'settings' && <SettingsPage />}
        </Suspense>
      </AppShell>
      <ApprovalsPanel />
    </I18nProvider>
  );
}
