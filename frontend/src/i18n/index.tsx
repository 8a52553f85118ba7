import { createContext, useContext, type ReactNode } from 'react';
import type { Language } from '../api';
import { en, ja, type Messages } from './messages';

export type Locale = 'en' | 'ja';
export { en, ja, type Messages };

export const catalogs: Record<Locale, Messages> = { en, ja };

/** Japanese for a Japanese system language, English otherwise. */
export function detectLocale(languages: readonly string[] = navigator.languages ?? [navigator.language]): Locale {
  return languages[0]?.toLowerCase().startsWith('ja') ? 'ja' : 'en';
}

/** The locale for the language setting: the OS/browser's for "system". */
export function resolveLocale(language: Language | undefined, languages?: readonly string[]): Locale {
  if (language === 'en' || language === 'ja') return language;
  return detectLocale(languages);
}

const I18nContext = createContext<{ locale: Locale; t: Messages }>({ locale: 'en', t: en });

export function I18nProvider({ locale, children }: { locale: Locale; children: ReactNode }) {
  return <I18nContext.Provider value={{ locale, t: catalogs[locale] }}>{children}</I18nContext.Provider>;
}

export function useMessages(): Messages {
  return useContext(I18nContext).t;
}

export function useLocale(): Locale {
  return useContext(I18nContext).locale;
}
