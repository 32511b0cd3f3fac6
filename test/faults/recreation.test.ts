import { describe, expect, it } from 'vitest';
import { DATABASE, databaseScenario, judgeDatabase } from '../../examples/fault-targets/recreation/database.js';
import { databaseBuggy } from '../../examples/fault-targets/recreation/buggy.js';
import { databaseCorrect } from '../../examples/fault-targets/recreation/correct.js';
import { recreation } from '../../faults/recreation.js';
import { defineController, isStoreError } from '../../src/index.js';
import { faultLaws, runCase, type FaultLawCase } from '../helpers/fault-laws.js';

const lawCase: FaultLawCase = {
  fault: recreation,
  label: 'memory keyed by name vs by uid',
  scenario: databaseScenario,
  buggy: databaseBuggy,
  correct: databaseCorrect,
  judge: judgeDatabase,
  breaking: { events: [{ kind: 'recreation', at: 3000, params: { pick: 0, gapMs: 0 } }], background: [] },
  gen: { controllers: ['x'], kinds: [DATABASE], keys: ['default/orders'], faultWindowMs: 10_000, maxNth: 4 },
  minimalEvent: { kind: 'recreation', at: 0, params: { pick: 0, gapMs: 0 } },
  search: { numRuns: 50, shrinksTo: 1 },
};

faultLaws(lawCase);

describe('recreation', () => {
  it('deletes and recreates under the same name with the same spec and a new uid', async () => {
    const run = await runCase(lawCase, databaseCorrect, { events: [{ kind: 'recreation', at: 3000, params: { gapMs: 250 } }], background: [] });
    const mine = run.writes.filter((w) => w.actor === 'environment:recreation');
    expect(mine.map((w) => [w.verb, w.t, w.key])).toEqual([
      ['delete', 3000, 'default/orders'],
      ['create', 3250, 'default/orders'],
    ]);
    expect(mine[1]!.uid).not.toBe(mine[0]!.uid);
    const db = run.finalObjects.find((o) => o.kind === DATABASE)!;
    expect(db.spec).toEqual({ version: '16' });
  });

  it('waits for finalizers: the new object appears only once the old one is gone', async () => {
    const finalizing = defineController({
      name: 'finalizing',
      for: DATABASE,
      async reconcile(ctx) {
        const db = await ctx.client.tryGet(DATABASE, ctx.key);
        if (!db) return;
        if (db.metadata.deletionTimestamp !== undefined) {
          await ctx.clock.sleep(500); // cleanup takes a while
          try {
            await ctx.client.patch(DATABASE, ctx.key, { metadata: { finalizers: [] } });
          } catch (err) {
            if (!isStoreError(err, 'NotFound')) throw err;
          }
          return;
        }
        if (!db.metadata.finalizers.includes('example.dev/cleanup')) await ctx.client.patch(DATABASE, ctx.key, { metadata: { finalizers: ['example.dev/cleanup'] } });
      },
    });
    const run = await runCase(lawCase, finalizing, lawCase.breaking);
    const removed = run.writes.find((w) => w.removed && w.kind === DATABASE)!;
    const created = run.writes.find((w) => w.actor === 'environment:recreation' && w.verb === 'create')!;
    expect(removed.t).toBeGreaterThanOrEqual(3500);
    expect(created.t).toBe(removed.t);
  });
});
