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

export default defineConfig({
  plugins: [react(), keepDistGitkeep()],
  // Relative asset URLs: the same build is served at / in the desktop
  // window and at /ui/ by `mcp-router serve` (which adds <base href="/ui/">).
  base: './',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
  },
  test: {
    environment: 'jsdom',
    globals: true,
    setupFiles: ['./src/test/setup.ts'],
    // Tests assert on text and roles, never on styles.
    css: false,
  },
});
