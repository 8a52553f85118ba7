import { createContext, useContext, type ReactNode } from 'react';
import { en, ja, type Messages } from './messages';

export type Locale = 'en' | 'ja';
export { en, ja, type Messages };

const catalogs: Record<Locale, Messages> = { en, ja };

/** Japanese for a Japanese system language, English otherwise. */
export function detectLocale(languages: readonly string[] = navigator.languages ?? []): Locale {
  return languages[0]?.toLowerCase().startsWith('ja') ? 'ja' : 'en';
}

const I18nContext = createContext<Messages>(en);

export function I18nProvider({ locale, children }: { locale: Locale; children: ReactNode }) {
  return <I18nContext.Provider value={catalogs[locale]}>{children}</I18nContext.Provider>;
}

export function useMessages(): Messages {
  return useContext(I18nContext);
}
