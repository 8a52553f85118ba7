// Settings → About's strings; spread into en and ja (messages.ts).
export const aboutEn = {
  aboutTitle: 'About',
  aboutVersion: 'Version',
  aboutDevBuild: 'development build',
  aboutCheckToggle: 'Check for updates',
  aboutCheckHint:
    'When Settings opens, ask the project’s GitHub Releases whether a newer version exists (at most every 6 hours). Nothing is downloaded or installed.',
  aboutCheckNow: 'Check now',
  aboutChecking: 'Checking…',
  aboutNewer: (v: string) => `Version ${v} is available.`,
  aboutUpToDate: (v: string) => `You have the latest version (${v}).`,
  aboutDevLatest: (v: string) => `This is a development build; the latest release is ${v}.`,
  aboutOpenRelease: 'Open the release page',
  aboutPublished: (d: string) => `Published ${d}`,
  aboutNotes: 'Release notes',
  aboutCheckFailed: (why: string) => `Could not check for updates: ${why}`,
};

export const aboutJa: typeof aboutEn = {
  aboutTitle: 'このアプリについて',
  aboutVersion: 'バージョン',
  aboutDevBuild: '開発ビルド',
  aboutCheckToggle: 'アップデートを確認する',
  aboutCheckHint:
    '設定を開いたときに、プロジェクトの GitHub Releases に新しいバージョンがあるか問い合わせます(6 時間に 1 回まで)。ダウンロードやインストールは行いません。',
  aboutCheckNow: '今すぐ確認',
  aboutChecking: '確認中…',
  aboutNewer: (v: string) => `バージョン ${v} が利用できます。`,
  aboutUpToDate: (v: string) => `最新のバージョンです(${v})。`,
  aboutDevLatest: (v: string) => `開発ビルドです。最新のリリースは ${v} です。`,
  aboutOpenRelease: 'リリースページを開く',
  aboutPublished: (d: string) => `公開日 ${d}`,
  aboutNotes: 'リリースノート',
  aboutCheckFailed: (why: string) => `アップデートを確認できませんでした: ${why}`,
};
