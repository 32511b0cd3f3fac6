import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { allFaults, faults } from '../../faults/index.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The kinds of SPEC §3, in its order. */
const SPEC_KINDS = [
  'event-loss',
  'watch-event-loss',
  'duplication',
  'reordering',
  'delay',
  'watch-disconnect',
  'stale-snapshot',
  'api-conflict',
  'api-error',
  'flaky-downstream',
  'crash-restart',
  'second-replica',
  'drift',
  'recreation',
  'list-order',
  'coalescing',
];

const camel = (kind: string) => kind.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

describe('the fault catalogue', () => {
  it('has one module per kind of SPEC §3, in order', () => {
    expect(allFaults.map((f) => f.kind).filter((k) => SPEC_KINDS.includes(k))).toEqual(SPEC_KINDS);
  });

  it('names each module after its file and exports it under its camelCase kind', () => {
    for (const f of allFaults) {
      expect(existsSync(join(root, 'faults', `${f.kind}.ts`)), f.kind).toBe(true);
      expect((faults as Record<string, unknown>)[camel(f.kind)], f.kind).toBe(f);
    }
  });

  const mine = allFaults.filter((f) => SPEC_KINDS.includes(f.kind));

  it('documents each kind: what it models and why a correct reconciler survives it', () => {
    for (const f of mine) {
      const text = readFileSync(join(root, 'faults', `${f.kind}.ts`), 'utf8');
      expect(text, f.kind).toMatch(/\/\*\*[\s\S]*survive[\s\S]*\*\/\s*export const/);
      expect(text, f.kind).toMatch(/Events: `\{ kind: '/);
    }
  });

  it('has a law suite for every kind', () => {
    for (const kind of SPEC_KINDS) {
      const file = join(root, 'test', 'faults', `${kind}.test.ts`);
      expect(existsSync(file), kind).toBe(true);
      expect(readFileSync(file, 'utf8'), kind).toMatch(/faultLaws\(/);
    }
  });

  it('keeps each module small (≤ 150 lines)', () => {
    for (const f of mine) expect(readFileSync(join(root, 'faults', `${f.kind}.ts`), 'utf8').split('\n').length, f.kind).toBeLessThanOrEqual(150);
  });
});
