import type { ReactNode } from 'react';
import { useMessages } from '../i18n';
import { Logo } from './Logo';
import './AppShell.css';

export const PAGES = ['servers', 'tools', 'chat', 'hooks', 'policy', 'processes', 'logs', 'connect', 'profiles', 'catalog', 'settings'] as const;
export type Page = (typeof PAGES)[number];

/** Sidebar plus the active page. */
export function AppShell({ page, children, footer }: { page: Page; children: ReactNode; footer?: ReactNode }) {
  const t = useMessages();
  const label: Record<Page, string> = {
    servers: t.navServers,
    tools: t.navTools,
    chat: t.navChat,
    hooks: t.navHooks,
    policy: t.navPolicy,
    processes: t.navProcesses,
    logs: t.navLogs,
    connect: t.navConnect,
    profiles: t.navProfiles,
    catalog: t.navCatalog,
    settings: t.navSettings,
  };
  return (
    <div className="shell">
      <aside className="sidebar">
        <div className="brand">
          <Logo />
          <span>{t.appName}</span>
        </div>
        <nav aria-label={t.navLabel}>
          <ul>
            {PAGES.map((p) => (
              <li key={p}>
                <a
                  href={`#${p}`}
                  className={`nav-item${p === page ? ' active' : ''}`}
                  aria-current={p === page ? 'page' : undefined}
                  data-testid={`nav-${p}`}
                >
                  {label[p]}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        {footer && <div className="sidebar-footer">{footer}</div>}
      </aside>
      <main className="content">{children}</main>
    </div>
  );
}
