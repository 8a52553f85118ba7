// Loaded lazily (React.lazy) so Monaco stays out of the first bundle.
import Editor, { type OnMount } from '@monaco-editor/react';
import { useEffect, useRef } from 'react';
import type { ScriptProblem } from '../api';
import { monaco } from '../lib/monaco';

export interface CodeEditorProps {
  value: string;
  onChange: (v: string) => void;
  language: 'javascript' | 'json' | 'yaml';
  /** Problems from the router's own compiler, shown as markers. */
  problems?: Pick<ScriptProblem, 'line' | 'column' | 'message'>[];
  dark: boolean;
  height?: number | string;
  label: string;
  testId?: string;
  /** Ctrl/Cmd+S inside the editor. */
  onSave?: () => void;
  /** The model's path (a file:// URI's path), for language features keyed on it. */
  path?: string;
}

export default function CodeEditor({ value, onChange, language, problems, dark, height = 320, label, testId, onSave, path }: CodeEditorProps) {
  const editorRef = useRef<Parameters<OnMount>[0] | null>(null);
  const saveRef = useRef(onSave);
  saveRef.current = onSave;

  useEffect(() => {
    const model = editorRef.current?.getModel();
    if (!model) return;
    monaco.editor.setModelMarkers(
      model,
      'mcp-router',
      (problems ?? []).map((p) => ({
        severity: monaco.MarkerSeverity.Error,
        message: p.message,
        startLineNumber: p.line,
        startColumn: p.column,
        endLineNumber: p.line,
        endColumn: model.getLineMaxColumn(Math.min(Math.max(p.line, 1), model.getLineCount())),
      })),
    );
  }, [problems]);

  return (
    <div className="code-editor" data-testid={testId} data-language={language}>
      <Editor
        height={height}
        language={language}
        path={path ? `file://${path}` : undefined}
        // Uncontrolled: a controlled value can arrive a render late while
        // typing fast and undo keystrokes. The editor is remounted for each
        // hook (its parent is keyed), so the first value is the only one.
        defaultValue={value}
        theme={dark ? 'vs-dark' : 'vs'}
        onChange={(v) => onChange(v ?? '')}
        onMount={(ed) => {
          editorRef.current = ed;
          ed.addCommand(monaco.KeyMod.CtrlCmd | monaco.KeyCode.KeyS, () => saveRef.current?.());
        }}
        options={{
          minimap: { enabled: false },
          fontSize: 13,
          scrollBeyondLastLine: false,
          automaticLayout: true,
          tabSize: 2,
          ariaLabel: label,
          fixedOverflowWidgets: true,
          renderValidationDecorations: 'on',
        }}
      />
    </div>
  );
}
