import { describe, expect, it } from 'vitest';
import { check } from '../../src/check.js';
import { levelTriggered } from '../../examples/replicas/level-triggered.js';
import { properties } from '../../properties/index.js';

/**
 * The attack list, bad input to the library: each row is a call that must be refused up front
 * with a message naming the option, the bad value and the fix (never a false verdict later).
 */
interface BadInput {
  attack: string;
  call: () => Promise<unknown>;
  /** What the TypeError must say. */
  says: RegExp;
}

const quick = { runs: 1, seed: 1, faults: [], shrink: false, determinism: false } as const;

const rows: BadInput[] = [
  { attack: 'settleMs: 0 (item 5)', call: () => check(levelTriggered, { ...quick, settleMs: 0 }), says: /options\.settleMs is 0 virtual ms, too short to judge: it must be at least 3000 ms, because a replica that crashed .*\(restartDelayMs\).*\(rewatchDelayMs\).* 3 consecutive checks 1000 ms apart/ },
  { attack: 'settleMs: 1 (item 5)', call: () => check(levelTriggered, { ...quick, settleMs: 1 }), says: /at least 3000 ms/ },
  { attack: 'settleMs just under the minimum (item 5)', call: () => check(levelTriggered, { ...quick, settleMs: 2999 }), says: /at least 3000 ms/ },
  {
    attack: 'a settle phase shorter than a configured convergence needs (item 5)',
    call: () => check(levelTriggered, { ...quick, settleMs: 5000, properties: [properties.convergence({ stableFor: 6 })] }),
    says: /at least 6000 ms.* 6 consecutive checks/,
  },
  {
    attack: 'the default settle phase with a restart delay longer than it (item 5)',
    call: () => check(levelTriggered, { ...quick, scenarioOptions: { restartDelayMs: 40_000 } }),
    says: /settleMs is 30000 virtual ms \(the default\), too short to judge: it must be at least 42000 ms/,
  },
];

describe('bad input to check() is refused with a message', () => {
  for (const r of rows) {
    it(r.attack, async () => {
      await expect(r.call()).rejects.toThrow(r.says);
    });
  }

  it('the minimum itself is accepted, and so is any settle without properties (nothing to judge)', async () => {
    expect((await check(levelTriggered, { ...quick, settleMs: 3000 })).runs).toBe(1);
    expect((await check(levelTriggered, { ...quick, settleMs: 0, properties: [] })).runs).toBe(1);
  });
});

describe('input that is fine must not be blamed', () => {
  it('a kind with "_" gets a DNS-style default name prefix instead of an error about objects.name, which the user never gave (item 17)', async () => {
    const { resolveCheckOptions } = await import('../../src/harness/check-options.js');
    const { defineController } = await import('../../src/index.js');
    const c = defineController({ name: 'c', for: 'Web_App', reconcile: () => undefined });
    expect(resolveCheckOptions(c, { objects: { kind: 'Web_App', spec: {} } }).objects[0]!.name).toBe('web-app');
    expect(resolveCheckOptions(c, {}).objects[0]!.name).toBe('web-app');
    expect(() => resolveCheckOptions(c, { objects: { kind: 'Web_App', spec: {}, name: 'Bad_Name' } })).toThrow(/options\.objects\.name must be a DNS-style prefix .* got "Bad_Name"/);
  });
});
