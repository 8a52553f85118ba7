// No module of src/ may import itself through others (issue 27 item 7: types.ts
// and about/approvals/chat.ts imported each other). Imports are read by the
// TypeScript compiler's own scanner, type-only and lazy ones included: a
// circle of types is still a circle a reader has to untangle.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = dirname(fileURLToPath(import.meta.url));
const SOURCE = /\.(ts|tsx)$/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return sourceFiles(p);
    return SOURCE.test(name) && !name.endsWith('.d.ts') ? [p] : [];
  });
}

/** The file a relative specifier names, as Vite resolves it; null for a package or a non-TS file. */
function resolveImport(from: string, spec: string): string | null {
  if (!spec.startsWith('.')) return null;
  const base = resolve(dirname(from), spec);
  for (const p of [base, `${base}.ts`, `${base}.tsx`, join(base, 'index.ts'), join(base, 'index.tsx')]) {
    if (SOURCE.test(p) && existsSync(p) && statSync(p).isFile()) return p;
  }
  return null;
}

/** Module → the modules of src/ it imports (static, type-only, re-exports and import()). */
function importGraph(files: string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const f of files) {
    const info = ts.preProcessFile(readFileSync(f, 'utf8'), true, true);
    const deps = info.importedFiles.map((i) => resolveImport(f, i.fileName)).filter((p): p is string => p !== null);
    graph.set(f, [...new Set(deps)]);
  }
  return graph;
}

/** Every circle a depth-first walk meets, each as the path that closes it (first module repeated at the end). */
function findCycles(graph: Map<string, string[]>): string[][] {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const visit = (n: string) => {
    state.set(n, 'open');
    stack.push(n);
    for (const d of graph.get(n) ?? []) {
      const s = state.get(d);
      if (s === 'open') cycles.push([...stack.slice(stack.indexOf(d)), d]);
      else if (s === undefined) visit(d);
    }
    stack.pop();
    state.set(n, 'done');
  };
  for (const n of [...graph.keys()].sort()) if (!state.has(n)) visit(n);
  return cycles;
}

describe('import cycles', () => {
  it('finds a circle in a graph that has one, and none in one that has none', () => {
    const circle = new Map([
      ['types', ['about']],
      ['about', ['types']],
      ['client', ['types', 'about']],
    ]);
    expect(findCycles(circle)).toEqual([['about', 'types', 'about']]);
    const oneWay = new Map([
      ['types', ['about']],
      ['about', ['base']],
      ['base', []],
      ['client', ['types', 'about', 'base']],
    ]);
    expect(findCycles(oneWay)).toEqual([]);
  });

  it('reads the imports of src/: type-only ones and re-exports too', () => {
    const graph = importGraph(sourceFiles(SRC));
    const deps = (f: string) => (graph.get(join(SRC, f)) ?? []).map((p) => relative(SRC, p));
    expect(graph.size).toBeGreaterThan(50);
    expect(deps('api/client.ts')).toContain('api/about.ts'); // import { createAboutApi } from './about'
    expect(deps('api/transport.ts')).toContain('api/base.ts'); // import type { Unsubscribe } from './base'
    expect(deps('api/index.ts')).toContain('api/chat.ts'); // export * from './chat'
  });

  it('no module of src/ imports itself through others', () => {
    const cycles = findCycles(importGraph(sourceFiles(SRC))).map((c) => c.map((p) => relative(SRC, p)).join(' → '));
    expect(cycles).toEqual([]);
  });
});
