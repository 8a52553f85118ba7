import type { ServerState } from '../api';

// Every string the UI shows. `ja` must provide every key `en` has; the
// compiler checks that through the Messages type.
export const en = {
  appName: 'MCP Router',
  navLabel: 'Main',
  navServers: 'Servers',
  serversTitle: 'Servers',
  serversSummary: (total: number, running: number) =>
    `${total} ${total === 1 ? 'server' : 'servers'} · ${running} running`,
  loading: 'Loading servers…',
  loadFailed: 'Could not load servers',
  retry: 'Try again',
  emptyTitle: 'No servers yet',
  emptyBody: 'Add an MCP server from a terminal, then it shows up here:',
  emptyStdio: 'a server that runs as a command',
  emptyHttp: 'a server reached over HTTP',
  colName: 'Name',
  colStatus: 'Status',
  colTransport: 'Transport',
  colTarget: 'Command or URL',
  colTools: 'Tools',
  disabled: 'disabled',
  state: {
    stopped: 'Stopped',
    starting: 'Starting',
    running: 'Running',
    restarting: 'Restarting',
    errored: 'Error',
  } satisfies Record<ServerState, string>,
  restartCount: (n: number) => `restart ${n}`,
};

export type Messages = typeof en;

export const ja: Messages = {
  appName: 'MCP Router',
  navLabel: 'メイン',
  navServers: 'サーバー',
  serversTitle: 'サーバー',
  serversSummary: (total, running) => `${total} 台 · 実行中 ${running} 台`,
  loading: 'サーバーを読み込んでいます…',
  loadFailed: 'サーバーを読み込めませんでした',
  retry: '再試行',
  emptyTitle: 'サーバーはまだありません',
  emptyBody: 'ターミナルから MCP サーバーを追加すると、ここに表示されます:',
  emptyStdio: 'コマンドとして起動するサーバー',
  emptyHttp: 'HTTP で接続するサーバー',
  colName: '名前',
  colStatus: '状態',
  colTransport: 'トランスポート',
  colTarget: 'コマンドまたは URL',
  colTools: 'ツール',
  disabled: '無効',
  state: {
    stopped: '停止',
    starting: '起動中',
    running: '実行中',
    restarting: '再起動中',
    errored: 'エラー',
  },
  restartCount: (n) => `${n} 回目`,
};
