// Monaco, bundled with the app: no CDN. The loader of @monaco-editor/react is
// given this package, and the editor's workers are built by Vite (?worker) and
// created from the bundle. vite.config.ts trims the package's entry to the
// languages the app needs (JavaScript/TypeScript and JSON).
import { loader } from '@monaco-editor/react';
import * as monaco from 'monaco-editor';
import EditorWorker from 'monaco-editor/editor/editor.worker.js?worker';
import JsonWorker from 'monaco-editor/languages/features/json/json.worker.js?worker';
import TsWorker from 'monaco-editor/languages/features/typescript/ts.worker.js?worker';
import { HOOK_CONTEXT_DTS } from './hookContext';
import { policyKeysAt, POLICY_MODEL_PATH } from './policyCompletion';

self.MonacoEnvironment = {
  getWorker(_id: string, label: string) {
    if (label === 'typescript' || label === 'javascript') return new TsWorker();
    if (label === 'json') return new JsonWorker();
    return new EditorWorker();
  },
};

const js = monaco.typescript.javascriptDefaults;
js.setCompilerOptions({
  target: monaco.typescript.ScriptTarget.ES2020,
  allowNonTsExtensions: true,
  checkJs: false,
  noLib: false,
  lib: ['es2020'],
});
js.setDiagnosticsOptions({
  noSemanticValidation: true,
  noSyntaxValidation: false,
  // A hook is the body of a function: a top-level `return` is fine (TS1108).
  diagnosticCodesToIgnore: [1108],
});
js.addExtraLib(HOOK_CONTEXT_DTS, 'file:///mcp-router/hook-context.d.ts');

// policy.yaml's keys, where they may go (only in the Policy page's model).
monaco.languages.registerCompletionItemProvider('yaml', {
  provideCompletionItems(model, position) {
    if (model.uri.path !== POLICY_MODEL_PATH) return { suggestions: [] };
    const before = model.getValueInRange({ startLineNumber: 1, startColumn: 1, endLineNumber: position.lineNumber, endColumn: position.column });
    const word = model.getWordUntilPosition(position);
    const range = { startLineNumber: position.lineNumber, endLineNumber: position.lineNumber, startColumn: word.startColumn, endColumn: word.endColumn };
    const childIndent = ' '.repeat(word.startColumn - 1 + 2);
    return {
      suggestions: Object.entries(policyKeysAt(before)).map(([key, d]) => ({
        label: key,
        kind: monaco.languages.CompletionItemKind.Property,
        documentation: d.doc,
        insertText: d.keys ? `${key}:\n${childIndent}` : d.items ? `${key}:\n  - name: ` : `${key}: ${d.value ?? ''}`,
        range,
      })),
    };
  },
});

loader.config({ monaco });

export { monaco };
