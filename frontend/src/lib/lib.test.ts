import { describe, expect, it } from 'vitest';
import { parseJSONC } from './jsonc';
import { fieldsOf, initialValues, toArguments } from './schemaForm';

const problems = {
  required: 'required',
  notNumber: 'nan',
  notInteger: 'notint',
  badJson: (m: string) => `json: ${m}`,
  badItem: (l: number) => `item ${l}`,
};

describe('parseJSONC', () => {
  it('accepts comments and trailing commas, keeps strings intact', () => {
    const r = parseJSONC('{\n // a comment\n "a": "http://x/*y*/", /* b */ "b": [1, 2,],\n}');
    expect(r).toEqual({ ok: true, value: { a: 'http://x/*y*/', b: [1, 2] } });
  });

  it('reports the line and column of an error', () => {
    const r = parseJSONC('{\n  "a": 1\n  "b": 2\n}');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.line).toBe(3);
  });
});

describe('schema form', () => {
  const schema = {
    type: 'object',
    properties: {
      message: { type: 'string', description: 'what to echo' },
      count: { type: 'integer', default: 2 },
      ratio: { type: 'number' },
      loud: { type: 'boolean' },
      mode: { enum: ['a', 'b', 3] },
      tags: { type: 'array', items: { type: 'string' } },
      nums: { type: 'array', items: { type: 'number' } },
      opts: { type: 'object', properties: { x: { type: 'string' } } },
      maybe: { type: ['string', 'null'] },
    },
    required: ['message', 'count'],
  };
  const fields = fieldsOf(schema);

  it('maps each JSON schema type to a field kind with required marks and defaults', () => {
    expect(fields.map((f) => [f.name, f.kind, f.required])).toEqual([
      ['message', 'string', true],
      ['count', 'integer', true],
      ['ratio', 'number', false],
      ['loud', 'boolean', false],
      ['mode', 'enum', false],
      ['tags', 'array', false],
      ['nums', 'array', false],
      ['opts', 'json', false],
      ['maybe', 'string', false],
    ]);
    expect(initialValues(fields)).toMatchObject({ message: '', count: '2' });
  });

  it('builds typed arguments and leaves out empty optional fields', () => {
    const r = toArguments(
      fields,
      { message: 'hi', count: '3', ratio: '0.5', loud: 'true', mode: '3', tags: 'a\nb\n', nums: '1\n2.5', opts: '{"x":"y"}', maybe: '' },
      problems,
    );
    expect(r).toEqual({ ok: true, args: { message: 'hi', count: 3, ratio: 0.5, loud: true, mode: 3, tags: ['a', 'b'], nums: [1, 2.5], opts: { x: 'y' } } });
  });

  it('reports every bad value per field', () => {
    const r = toArguments(fields, { message: '', count: '1.5', ratio: 'abc', nums: '1\nx', opts: '{bad' }, problems);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.errors.message).toBe('required');
      expect(r.errors.count).toBe('notint');
      expect(r.errors.ratio).toBe('nan');
      expect(r.errors.nums).toBe('item 2');
      expect(r.errors.opts).toMatch(/^json: /);
    }
  });
});
