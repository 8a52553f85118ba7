import type { ReactNode } from 'react';
import { useMessages } from '../i18n';
import { Logo } from './Logo';
import './AppShell.css';

/** Sidebar plus the active page. Nav items appear as their pages are built. */
export function AppShell({ children }: { children: ReactNode }) {
  const t = useMessages();
  return (
    <div className="shell">
      <aside className="sidebar">
        <div className="brand">
          <Logo />
          <span>{t.appName}</span>
        </div>
        <nav aria-label={t.navLabel}>
          <ul>
            <li>
              <a href="#servers" className="nav-item active" aria-current="page" data-testid="nav-servers">
                {t.navServers}
              </a>
            </li>
          </ul>
        </nav>
      </aside>
      <main className="content">{children}</main>
    </div>
  );
}
