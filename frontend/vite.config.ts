import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vitest/config';

// Vite empties dist/ before each build, which deletes the committed
// dist/.gitkeep. Go's `//go:embed all:frontend/dist` needs the folder to exist
// on a fresh clone, so put the file back after every build.
function keepDistGitkeep(): Plugin {
  let outDir = '';
  return {
    name: 'keep-dist-gitkeep',
    apply: 'build',
    configResolved(config) {
      outDir = resolve(config.root, config.build.outDir);
    },
    closeBundle() {
      writeFileSync(resolve(outDir, '.gitkeep'), '');
    },
  };
}

// monaco-editor's entry registers ~80 languages plus the CSS/HTML language
// services and an LSP client. The hook editor needs JavaScript (with the
// TypeScript service), JSON and YAML (process definitions) only: drop the rest from the entry so they are
// not bundled at all.
const MONACO_KEEP = /languages\/definitions\/(javascript|typescript|yaml)\/|languages\/features\/(json|typescript)\//;
export function monacoOnlyNeededLanguages(): Plugin {
  return {
    name: 'monaco-only-needed-languages',
    enforce: 'pre',
    transform(code, id) {
      if (!/monaco-editor[\\/]esm[\\/]vs[\\/]index\.js$/.test(id)) return null;
      const kept = code
        .split('\n')
        .filter((line) => {
          if (/monaco-lsp-client|as lsp\b/.test(line)) return false;
          if (/languages\/(definitions|features)\//.test(line)) return MONACO_KEEP.test(line);
          if (/__src_languages_features_(css|html)_register_ts/.test(line)) return false;
          return true;
        })
        .join('\n');
      return { code: kept, map: null };
    },
  };
}

export default defineConfig({
  // Relative asset URLs: the same build works in the Wails window and when
  // `mcp-router serve` serves it under /ui/.
  base: './',
  plugins: [react(), keepDistGitkeep(), monacoOnlyNeededLanguages()],
  // Monaco's workers are classic (iife) workers, built from the bundle: the
  // widest support, WebKitGTK in the desktop window included.
  worker: {
    format: 'iife',
  },
  // `npm run dev` in a browser talks to a running `mcp-router serve`. The
  // page's Host goes through unchanged (the string shorthand would rewrite
  // it to the target's): the UI API answers only an Origin that names the
  // Host it was sent to, and the page's Origin is this dev server's.
  server: {
    proxy: { '/ui/api': { target: 'http://127.0.0.1:3282', changeOrigin: false } },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // Monaco's TypeScript worker alone is several MB; it loads only with the editor.
    chunkSizeWarningLimit: 8000,
  },
  test: {
    environment: 'jsdom',
    globals: true,
    setupFiles: ['./src/test/setup.ts'],
    // Tests assert on text and roles, never on styles.
    css: false,
    // Two cores shared with other builds: typing tests can take seconds.
    testTimeout: 20_000,
  },
});
