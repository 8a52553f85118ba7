// The Electron MCP Router import's strings (Servers → Add → Import); spread
// into en and ja (messages.ts).
export const electronEn = {
  electronTitle: 'Electron MCP Router',
  electronIntro:
    'Bring over the servers, per-tool toggles and Projects (as profiles) of the Electron MCP Router. Its database is read from a copy: the original is never changed.',
  electronFound: (path: string) => `Found its database at ${path}`,
  electronNotFound: (path: string) => `No database at ${path}. Give the path of its database or of a file its Export wrote.`,
  electronKindDatabase: 'Database (mcprouter.db)',
  electronKindExport: 'Export file (.json)',
  electronPath: 'File',
  electronPreview: 'Preview',
  electronImport: 'Import',
  electronPreviewTitle: 'An import would:',
  electronDoneTitle: 'Imported:',
  electronSource: (path: string, workspace: string) => (workspace ? `From ${path} (workspace “${workspace}”)` : `From ${path}`),
  electronServers: (n: number) => `${n} server(s)`,
  electronProfiles: (n: number) => `${n} profile(s), one per Project`,
  electronFrom: (name: string) => `from “${name}”`,
  electronDisabled: 'disabled',
  electronToolsOff: (n: number, tools: string) => `${n} tool(s) off: ${tools}`,
  electronSecrets: (names: string) => `to the keychain: ${names}`,
  electronProject: (name: string) => `project “${name}”`,
  electronSkipped: (n: number) => `${n} skipped`,
  electronNothing: 'Nothing to import: everything is here already or was skipped.',
  electronNotes: 'Not carried over',
  electronTokens: (n: number) =>
    `${n} access token(s) of the Electron app cannot be carried over (it stores them hashed). Create new tokens for your clients:`,
  electronNewTokens: 'Create tokens on the Connect page',
};

export type ElectronMessages = typeof electronEn;

export const electronJa: ElectronMessages = {
  electronTitle: 'Electron 版 MCP Router',
  electronIntro:
    'Electron 版 MCP Router のサーバー、ツールごとのオン/オフ、プロジェクト（プロファイルとして）を取り込みます。データベースはコピーから読み、元のファイルは変更しません。',
  electronFound: (path: string) => `データベースが見つかりました: ${path}`,
  electronNotFound: (path: string) => `${path} にデータベースがありません。データベースか、エクスポートしたファイルのパスを入力してください。`,
  electronKindDatabase: 'データベース (mcprouter.db)',
  electronKindExport: 'エクスポートファイル (.json)',
  electronPath: 'ファイル',
  electronPreview: 'プレビュー',
  electronImport: '取り込む',
  electronPreviewTitle: '取り込むと次のようになります:',
  electronDoneTitle: '取り込みました:',
  electronSource: (path: string, workspace: string) => (workspace ? `${path}（ワークスペース「${workspace}」）から` : `${path} から`),
  electronServers: (n: number) => `サーバー ${n} 件`,
  electronProfiles: (n: number) => `プロファイル ${n} 件（プロジェクトごとに 1 つ）`,
  electronFrom: (name: string) => `元の名前「${name}」`,
  electronDisabled: '無効',
  electronToolsOff: (n: number, tools: string) => `オフのツール ${n} 件: ${tools}`,
  electronSecrets: (names: string) => `キーチェーンへ: ${names}`,
  electronProject: (name: string) => `プロジェクト「${name}」`,
  electronSkipped: (n: number) => `${n} 件をスキップ`,
  electronNothing: '取り込むものはありません（すべて取り込み済みか、スキップされました）。',
  electronNotes: '引き継がれないもの',
  electronTokens: (n: number) =>
    `Electron 版のアクセストークン ${n} 件は引き継げません（ハッシュで保存されているため）。クライアント用に新しいトークンを作成してください:`,
  electronNewTokens: '接続ページでトークンを作成',
};
