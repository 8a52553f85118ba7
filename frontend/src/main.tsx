import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { wailsApi } from './api';
import { App } from './App';
import { I18nProvider, detectLocale } from './i18n';
import { StoresProvider, createStores } from './stores';
import './styles/global.css';

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root');

createRoot(root).render(
  <StrictMode>
    <I18nProvider locale={detectLocale()}>
      <StoresProvider stores={createStores(wailsApi)}>
        <App />
      </StoresProvider>
    </I18nProvider>
  </StrictMode>,
);
