import { describe, expect, it } from 'vitest';
import { en, ja } from './messages';
import { detectLocale, resolveLocale } from '.';

// Walks a message table: strings, nested tables, and functions (called with
// sample arguments so their output can be checked too).
function flatten(table: Record<string, unknown>, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of Object.entries(table)) {
    const key = prefix + k;
    if (typeof v === 'string') out.set(key, v);
    else if (typeof v === 'function') out.set(key, String((v as (...a: unknown[]) => unknown)(2, 3, 'x')));
    else if (typeof v === 'object' && v !== null) flatten(v as Record<string, unknown>, `${key}.`).forEach((s, kk) => out.set(kk, s));
    else out.set(key, '');
  }
  return out;
}

describe('message tables', () => {
  const e = flatten(en);
  const j = flatten(ja);

  it('have the same keys', () => {
    expect([...j.keys()].sort()).toEqual([...e.keys()].sort());
  });

  it('have no empty values', () => {
    for (const [k, v] of [...e, ...j]) expect(v.trim(), k).not.toBe('');
  });

  it('are translated (Japanese differs from English for most strings)', () => {
    let same = 0;
    for (const [k, v] of e) if (j.get(k) === v) same++;
    // Product names and a few shared labels (URL, SSE, HTTP, ms) may match.
    expect(same).toBeLessThan(15);
  });
});

describe('locale', () => {
  it('follows the system language unless the setting says otherwise', () => {
    expect(detectLocale(['ja-JP', 'en'])).toBe('ja');
    expect(detectLocale(['en-US'])).toBe('en');
    expect(detectLocale([])).toBe('en');
    expect(resolveLocale('system', ['ja'])).toBe('ja');
    expect(resolveLocale('en', ['ja'])).toBe('en');
    expect(resolveLocale('ja', ['en'])).toBe('ja');
  });
});
