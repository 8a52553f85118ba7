/**
 * Parses JSON with comments and trailing commas (what VS Code and Claude
 * config files contain). Returns the value or an error with its line and
 * column in the text as typed.
 */
export type JSONCResult = { ok: true; value: unknown } | { ok: false; message: string; line: number; column: number };

export function stripJSONC(text: string): string {
  let out = '';
  let i = 0;
  let inString = false;
  while (i < text.length) {
    const c = text[i]!;
    const n = text[i + 1];
    if (inString) {
      out += c;
      if (c === '\\' && n !== undefined) {
        out += n;
        i += 2;
        continue;
      }
      if (c === '"') inString = false;
      i++;
      continue;
    }
    if (c === '"') {
      inString = true;
      out += c;
      i++;
    } else if (c === '/' && n === '/') {
      while (i < text.length && text[i] !== '\n') {
        out += ' ';
        i++;
      }
    } else if (c === '/' && n === '*') {
      out += '  ';
      i += 2;
      while (i < text.length && !(text[i] === '*' && text[i + 1] === '/')) {
        out += text[i] === '\n' ? '\n' : ' ';
        i++;
      }
      out += '  ';
      i += 2;
    } else if (c === ',') {
      // A comma followed only by whitespace/comments and then } or ] is dropped.
      let j = i + 1;
      while (j < text.length && /\s/.test(text[j]!)) j++;
      out += text[j] === '}' || text[j] === ']' ? ' ' : ',';
      i++;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

function position(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - before.lastIndexOf('\n');
  return { line, column };
}

export function parseJSONC(text: string): JSONCResult {
  const stripped = stripJSONC(text);
  try {
    return { ok: true, value: JSON.parse(stripped) };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const m = /position (\d+)/.exec(message);
    const lc = /line (\d+) column (\d+)/.exec(message);
    if (lc) return { ok: false, message, line: Number(lc[1]), column: Number(lc[2]) };
    if (m) return { ok: false, message, ...position(stripped, Number(m[1])) };
    return { ok: false, message, ...position(stripped, stripped.length) };
  }
}
