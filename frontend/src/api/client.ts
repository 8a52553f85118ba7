import {
  list,
  toAggregatedTool,
  toApiError,
  toAppSettings,
  toClientAddPlan,
  toClientAddResult,
  toClientConfigFile,
  toDefinitionProblem,
  toProcessView,
  toRunDetail,
  toRunInfo,
  toStateGateStatus,
  toCreatedToken,
  toEndpointStatus,
  toHookTestResult,
  toHookView,
  toAuditPage,
  toAuditReport,
  toPolicyProblem,
  toPolicyView,
  toImportReport,
  toDiscovery,
  toLogFileInfo,
  toLogDetail,
  toLogPage,
  toLogRow,
  toScriptProblem,
  toServerConfig,
  toServerTool,
  toServerView,
  toLoginStart,
  toStrings,
  toTokenView,
  toToolCallResult,
  toToolChange,
  toCatalogTool,
} from './convert';
import { createAboutApi } from './about';
import { createMetricsApi } from './metrics';
import { createProfilesApi } from './profiles';
import { createElectronImportApi } from './electron';
import { createBundlesApi } from './bundles';
import { createRegistryApi } from './registry';
import { createApprovalsApi } from './approvals';
import { createChatApi } from './chat';
import type { ApiTransport } from './transport';
import type { Unsubscribe } from './base';
import { EVENTS, type Api } from './types';

/** The typed Api over a transport: every value is checked as it arrives. */
export function createApi(t: ApiTransport): Api {
  async function call<T>(method: string, args: unknown[], convert: (raw: unknown) => T): Promise<T> {
    let raw: unknown;
    try {
      raw = await t.call(method, args);
    } catch (err) {
      throw toApiError(err);
    }
    return convert(raw);
  }
  const none = () => undefined;
  const lines = (raw: unknown) => toStrings(raw);

  /** Subscribes to `name`; a payload outside the contract is logged and dropped. */
  function on<T>(name: string, convert: (raw: unknown) => T, handler: (v: T) => void): Unsubscribe {
    return t.on(name, (payload) => {
      let value: T;
      try {
        value = convert(payload);
      } catch (err) {
        console.error(`${name}: ignoring event:`, err);
        return;
      }
      handler(value);
    });
  }

  return {
    ...createChatApi(call, on), // chat.ts
    ...createApprovalsApi(call, on), // approvals.ts
    ...createAboutApi(call), // about.ts
    ...createMetricsApi(call), // metrics.ts
    ...createProfilesApi(call), // profiles.ts
    ...createElectronImportApi(call), // electron.ts
    ...createBundlesApi(call), // bundles.ts
    installBundle: (id, name, config) => call('InstallBundle', [id, name, config], toServerView),
    ...createRegistryApi(call, toServerView), // registry.ts
    listServers: () => call('ListServers', [], (r) => list(r, toServerView, 'servers')),
    getServer: (name) => call('GetServer', [name], toServerConfig),
    addServer: (cfg) => call('AddServer', [cfg], toServerView),
    updateServer: (name, cfg) => call('UpdateServer', [name, cfg], toServerView),
    addServersFromJSON: (text) => call('AddServersFromJSON', [text], toImportReport),
    discoverServer: (url) => call('DiscoverServer', [url], toDiscovery),
    listClientConfigs: () => call('ListClientConfigs', [], (r) => list(r, toClientConfigFile, 'client configs')),
    importClientConfig: (path) => call('ImportClientConfig', [path], toImportReport),
    removeServer: (name) => call('RemoveServer', [name], none),
    setServerEnabled: (name, enabled) => call('SetServerEnabled', [name, enabled], none),
    startServer: (name) => call('StartServer', [name], none),
    stopServer: (name) => call('StopServer', [name], none),
    restartServer: (name) => call('RestartServer', [name], none),
    serverTools: (name) => call('ServerTools', [name], (r) => list(r, toServerTool, 'tools')),
    setToolEnabled: (server, tool, enabled) => call('SetToolEnabled', [server, tool, enabled], none),
    setPrefixMode: (server, mode) => call('SetPrefixMode', [server, mode], none),
    serverConsole: (name) => call('ServerConsole', [name], lines),
    loginServer: (name, clientId) => call('LoginServer', [name, clientId], toLoginStart),
    logoutServer: (name) => call('LogoutServer', [name], none),
    setServerSecret: (server, kind, name, value) => call('SetServerSecret', [server, kind, name, value], toServerView),
    openExternal: (url) => {
      if (t.openURL) t.openURL(url);
      else window.open(url, '_blank', 'noopener');
    },

    listTools: () => call('ListTools', [], (r) => list(r, toAggregatedTool, 'tools')),
    callTool: (name, argumentsJSON) => call('CallTool', [name, argumentsJSON], toToolCallResult),
    stoppedServerTools: () => call('StoppedServerTools', [], (r) => list(r, toCatalogTool, 'catalog tools')),
    listToolChanges: () => call('ListToolChanges', [], (r) => list(r, toToolChange, 'tool changes')),
    acceptToolChange: (server, tool, newHash) => call('AcceptToolChange', [server, tool, newHash], none),

    listHooks: () => call('ListHooks', [], (r) => list(r, toHookView, 'hooks')),
    saveHook: (h) => call('SaveHook', [h], toHookView),
    removeHook: (id) => call('RemoveHook', [id], none),
    setHookEnabled: (id, enabled) => call('SetHookEnabled', [id, enabled], none),
    reorderHooks: (ids) => call('ReorderHooks', [ids], none),
    checkHookScript: (script) => call('CheckHookScript', [script], (r) => list(r, toScriptProblem, 'problems')),
    testHook: (h, contextJSON) => call('TestHook', [h, contextJSON], toHookTestResult),
    hookLogs: (id) => call('HookLogs', [id], lines),
    getPolicy: () => call('GetPolicy', [], toPolicyView),
    checkPolicy: (source) => call('CheckPolicy', [source], (r) => list(r, toPolicyProblem, 'problems')),
    savePolicy: (source) => call('SavePolicy', [source], toPolicyView),
    auditRows: (before, limit) => call('AuditRows', [before, limit], toAuditPage),
    verifyAudit: () => call('VerifyAudit', [], toAuditReport),

    listTokens: () => call('ListTokens', [], (r) => list(r, toTokenView, 'tokens')),
    createToken: (name, servers) => call('CreateToken', [name, servers], toCreatedToken),
    revokeToken: (name) => call('RevokeToken', [name], none),
    deleteToken: (name) => call('DeleteToken', [name], none),
    updateTokenServers: (name, servers) => call('UpdateTokenServers', [name, servers], toTokenView),
    updateTokenRoles: (name, roles) => call('UpdateTokenRoles', [name, roles], toTokenView),
    updateTokenProfile: (name, profile) => call('UpdateTokenProfile', [name, profile], toTokenView),
    snippet: (client, mode, token, upstreamAuth) => call('Snippet', [client, mode, token, upstreamAuth], (r) => (typeof r === 'string' ? r : '')),
    planAddToClient: (profile, client, mode, token) => call('PlanAddToClient', [profile, client, mode, token], toClientAddPlan),
    addToClient: (profile, client, mode, token, shownDiff) =>
      call('AddToClient', [profile, client, mode, token, shownDiff], toClientAddResult),
    installLink: (profile, client, mode, token) => call('InstallLink', [profile, client, mode, token], (r) => (typeof r === 'string' ? r : '')),
    endpointStatus: () => call('EndpointStatus', [], toEndpointStatus),

    queryLogs: (q) => call('QueryLogs', [q], toLogPage),
    getLog: (id) => call('GetLog', [id], toLogDetail),

    getSettings: () => call('GetSettings', [], toAppSettings),
    saveSettings: (s) => call('SaveSettings', [s], toAppSettings),

    listProcesses: () => call('ListProcesses', [], (r) => list(r, toProcessView, 'processes')),
    checkProcess: (source) => call('CheckProcess', [source], (r) => list(r, toDefinitionProblem, 'problems')),
    saveProcess: (source, replace) => call('SaveProcess', [source, replace], toProcessView),
    removeProcess: (id) => call('RemoveProcess', [id], none),
    listRuns: (processId) => call('ListRuns', [processId], (r) => list(r, toRunInfo, 'runs')),
    getRun: (runId) => call('GetRun', [runId], toRunDetail),
    createRun: (processId, contextJSON, workspace) => call('CreateRun', [processId, contextJSON, workspace], toRunInfo),
    getStateGateStatus: () => call('GetStateGateStatus', [], toStateGateStatus),
    enableStateGate: () => call('EnableStateGate', [], toStateGateStatus),

    frontendReady: (page) => call('FrontendReady', [page], none),
    logFile: () => call('LogFile', [], toLogFileInfo),
    openLogFolder: () => call('OpenLogFolder', [], none),

    onServerChanged: (h) => on(EVENTS.serversChanged, toServerView, h),
    onServerRemoved: (h) =>
      on(EVENTS.serversRemoved, (p) => {
        if (typeof p !== 'string' || p === '') throw new Error(`expected a server name, got ${JSON.stringify(p)}`);
        return p;
      }, h),
    onConsoleLines: (h) =>
      on(EVENTS.consoleLines, (p) => {
        const r = p as { server?: unknown; lines?: unknown } | null;
        if (!r || typeof r.server !== 'string') throw new Error('console:lines without a server');
        return { server: r.server, lines: toStrings(r.lines) };
      }, h),
    onLogsAppended: (h) => on(EVENTS.logsAppended, (p) => list(p, toLogRow, 'logs'), h),
    onHookLog: (h) =>
      on(EVENTS.hooksLog, (p) => {
        const r = p as { hookId?: unknown; lines?: unknown } | null;
        if (!r || typeof r.hookId !== 'number') throw new Error('hooks:log without a hookId');
        return { hookId: r.hookId, lines: toStrings(r.lines) };
      }, h),
    onToolsChanged: (h) => on(EVENTS.toolsChanged, () => undefined, () => h()),
    onSettingsChanged: (h) => on(EVENTS.settingsChanged, toAppSettings, h),
    onStateGateChanged: (h) => on(EVENTS.stateGateChanged, () => undefined, () => h()),
    onReconnect: (h) => (t.onReconnect ? t.onReconnect(h) : () => {}),
  };
}
