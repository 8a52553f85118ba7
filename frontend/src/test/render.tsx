import { render } from '@testing-library/react';
import type { ReactElement } from 'react';
import type { Api } from '../api';
import { I18nProvider, type Locale } from '../i18n';
import { StoresProvider, createStores } from '../stores';

/** Renders `ui` with fresh stores around `api`, in English unless told. */
export function renderWithApi(ui: ReactElement, api: Api, locale: Locale = 'en') {
  const stores = createStores(api);
  return {
    stores,
    ...render(
      <I18nProvider locale={locale}>
        <StoresProvider stores={stores}>{ui}</StoresProvider>
      </I18nProvider>,
    ),
  };
}
