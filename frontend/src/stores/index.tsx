import { createContext, useContext, type ReactNode } from 'react';
import { useStore } from 'zustand';
import type { Api } from '../api';
import { createAppStore, type AppState, type AppStore } from './app';
import { createServersStore, type ServersState, type ServersStore } from './servers';

// Stores are built from an Api and handed down by context rather than being
// module singletons, so every test gets fresh stores around a fake Api.
export interface Stores {
  app: AppStore;
  servers: ServersStore;
}

export function createStores(api: Api): Stores {
  return { app: createAppStore(api), servers: createServersStore(api) };
}

const StoresContext = createContext<Stores | null>(null);

export function StoresProvider({ stores, children }: { stores: Stores; children: ReactNode }) {
  return <StoresContext.Provider value={stores}>{children}</StoresContext.Provider>;
}

function useStores(): Stores {
  const stores = useContext(StoresContext);
  if (!stores) throw new Error('useStores: missing <StoresProvider>');
  return stores;
}

export function useServers<T>(select: (s: ServersState) => T): T {
  return useStore(useStores().servers, select);
}

export function useApp<T>(select: (s: AppState) => T): T {
  return useStore(useStores().app, select);
}
