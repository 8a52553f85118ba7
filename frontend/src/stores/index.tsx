import { createContext, useContext, type ReactNode } from 'react';
import { useStore } from 'zustand';
import type { Api } from '../api';
import { createAboutStore, type AboutState, type AboutStore } from './about';
import { createAppStore, type AppState, type AppStore } from './app';
import { createApprovalsStore, type ApprovalsState, type ApprovalsStore } from './approvals';
import { createCatalogStore, type CatalogState, type CatalogStore } from './catalog';
import { createChatStore, type ChatState, type ChatStore } from './chat';
import { createHooksStore, type HooksState, type HooksStore } from './hooks';
import { createLogsStore, type LogsState, type LogsStore } from './logs';
import { createMetricsStore, type MetricsState, type MetricsStore } from './metrics';
import { createPolicyStore, type PolicyState, type PolicyStore } from './policy';
import { createProcessesStore, type ProcessesState, type ProcessesStore } from './processes';
import { createProfilesStore, type ProfilesState, type ProfilesStore } from './profiles';
import { createServersStore, type ServersState, type ServersStore } from './servers';
import { createSettingsStore, type SettingsState, type SettingsStore } from './settings';
import { createTokensStore, type TokensState, type TokensStore } from './tokens';
import { createToolsStore, type ToolsState, type ToolsStore } from './tools';

// Stores are built from an Api and handed down by context rather than being
// module singletons, so every test gets fresh stores around a fake Api.
export interface Stores {
  app: AppStore;
  servers: ServersStore;
  tools: ToolsStore;
  hooks: HooksStore;
  tokens: TokensStore;
  logs: LogsStore;
  settings: SettingsStore;
  processes: ProcessesStore;
  policy: PolicyStore;
  chat: ChatStore;
  approvals: ApprovalsStore;
  about: AboutStore;
  profiles: ProfilesStore;
  catalog: CatalogStore;
  metrics: MetricsStore;
}

export function createStores(api: Api): Stores {
  return {
    app: createAppStore(api),
    servers: createServersStore(api),
    tools: createToolsStore(api),
    hooks: createHooksStore(api),
    tokens: createTokensStore(api),
    logs: createLogsStore(api),
    settings: createSettingsStore(api),
    processes: createProcessesStore(api),
    policy: createPolicyStore(api),
    chat: createChatStore(api),
    approvals: createApprovalsStore(api),
    about: createAboutStore(api),
    profiles: createProfilesStore(api),
    catalog: createCatalogStore(api),
    metrics: createMetricsStore(api),
  };
}

const StoresContext = createContext<Stores | null>(null);

export function StoresProvider({ stores, children }: { stores: Stores; children: ReactNode }) {
  return <StoresContext.Provider value={stores}>{children}</StoresContext.Provider>;
}

export function useStores(): Stores {
  const stores = useContext(StoresContext);
  if (!stores) throw new Error('useStores: missing <StoresProvider>');
  return stores;
}

export const useServers = <T,>(select: (s: ServersState) => T): T => useStore(useStores().servers, select);
export const useApp = <T,>(select: (s: AppState) => T): T => useStore(useStores().app, select);
export const useTools = <T,>(select: (s: ToolsState) => T): T => useStore(useStores().tools, select);
export const useHooks = <T,>(select: (s: HooksState) => T): T => useStore(useStores().hooks, select);
export const useTokens = <T,>(select: (s: TokensState) => T): T => useStore(useStores().tokens, select);
export const useLogs = <T,>(select: (s: LogsState) => T): T => useStore(useStores().logs, select);
export const useApprovals = <T,>(select: (s: ApprovalsState) => T): T => useStore(useStores().approvals, select);
export const useChat = <T,>(select: (s: ChatState) => T): T => useStore(useStores().chat, select);
export const useSettings = <T,>(select: (s: SettingsState) => T): T => useStore(useStores().settings, select);
export const usePolicy = <T,>(select: (s: PolicyState) => T): T => useStore(useStores().policy, select);
export const useAbout = <T,>(select: (s: AboutState) => T): T => useStore(useStores().about, select);
export const useProcesses = <T,>(select: (s: ProcessesState) => T): T => useStore(useStores().processes, select);
export const useCatalog = <T,>(select: (s: CatalogState) => T): T => useStore(useStores().catalog, select);
export const useProfiles = <T,>(select: (s: ProfilesState) => T): T => useStore(useStores().profiles, select);
export const useMetrics = <T,>(select: (s: MetricsState) => T): T => useStore(useStores().metrics, select);
