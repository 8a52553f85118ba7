/// <reference types="node" />
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ABILITY_KEYS, policyKeysAt, ROOT_KEYS, RULE_KEYS, type KeyDoc } from './policyCompletion';

const keys = (before: string) => Object.keys(policyKeysAt(before)).sort();

describe('policyKeysAt', () => {
  it('offers the keys of the place the cursor is in', () => {
    expect(keys('')).toEqual(['abilities', 'policies']);
    expect(keys('abilities:\n  - name: sum\n    ')).toEqual(Object.keys(ABILITY_KEYS).sort());
    expect(keys('policies:\n  - ')).toEqual(Object.keys(RULE_KEYS).sort());
    expect(keys('policies:\n  - na')).toEqual(Object.keys(RULE_KEYS).sort());
    expect(keys('policies:\n  - name: a\n    ')).toEqual(Object.keys(RULE_KEYS).sort());
    expect(keys('policies:\n  - name: a\n    match:\n      ')).toEqual(['clients', 'permissions', 'profiles', 'servers', 'tools']);
    expect(keys('policies:\n  - name: a\n    match:\n      tools: ["x"]\n    limit:\n      ')).toEqual(['per', 'requests_per_minute']);
    expect(keys('policies:\n  - name: a\n    require:\n      human_approval: true\n      ')).toEqual([
      'approval_timeout_seconds',
      'human_approval',
      'log_level',
    ]);
    expect(keys('policies:\n  - name: a\n    servers:\n      allow: [x]\n  - name: b\n    tools:\n      ')).toEqual(['hide']);
    expect(keys('# comment\npolicies:\n\n  - name: a\n    # note\n    ')).toEqual(Object.keys(RULE_KEYS).sort());
  });

  it('offers nothing for a value, a comment or an unknown place', () => {
    expect(keys('policies:\n  - name: ')).toEqual([]);
    expect(keys('policies:\n  - name: a\n    match:\n      tools:\n        - ')).toEqual([]);
    expect(keys('# po')).toEqual([]);
    expect(keys('policies:\n  - name: a\n    nope:\n      ')).toEqual([]);
  });

  it('agrees with docs/policy.schema.json', () => {
    const schema = JSON.parse(readFileSync(`${process.cwd()}/../docs/policy.schema.json`, 'utf8'));
    const rule = schema.$defs.rule.properties;
    expect(Object.keys(ROOT_KEYS).sort()).toEqual(Object.keys(schema.properties).sort());
    expect(Object.keys(RULE_KEYS).sort()).toEqual(Object.keys(rule).sort());
    expect(Object.keys(ABILITY_KEYS).sort()).toEqual(Object.keys(schema.$defs.ability.properties).sort());
    for (const [k, d] of Object.entries(RULE_KEYS) as [string, KeyDoc][]) {
      const props = rule[k].properties;
      expect(Object.keys(d.keys ?? {}).sort(), k).toEqual(Object.keys(props ?? {}).sort());
    }
  });
});
