import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createApi, hasWailsBridge, wailsTransport } from './api';
import { App } from './App';
import { BrowserRoot } from './components/BrowserRoot';
import { StoresProvider, createStores } from './stores';
import './styles/global.css';

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root');

// One UI, two shells: inside the Wails window the bound Go API is present;
// anywhere else the page talks to `mcp-router serve` over HTTP.
createRoot(root).render(
  <StrictMode>
    {hasWailsBridge() ? (
      <StoresProvider stores={createStores(createApi(wailsTransport))}>
        <App />
      </StoresProvider>
    ) : (
      <BrowserRoot />
    )}
  </StrictMode>,
);
