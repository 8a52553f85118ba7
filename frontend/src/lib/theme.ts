import { useEffect, useState } from 'react';
import type { Theme } from '../api';

const darkQuery = () => (typeof window !== 'undefined' && window.matchMedia ? window.matchMedia('(prefers-color-scheme: dark)') : null);

/** Whether the page is dark now: the setting, or the system's for "system". */
export function useIsDark(theme: Theme | undefined): boolean {
  const [systemDark, setSystemDark] = useState(() => darkQuery()?.matches ?? false);
  useEffect(() => {
    const q = darkQuery();
    if (!q) return;
    const on = (e: MediaQueryListEvent) => setSystemDark(e.matches);
    q.addEventListener?.('change', on);
    return () => q.removeEventListener?.('change', on);
  }, []);
  return theme === 'dark' || (theme !== 'light' && systemDark);
}
