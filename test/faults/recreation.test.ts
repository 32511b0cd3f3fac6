import { describe, expect, it } from 'vitest';
import { DATABASE, databaseScenario, judgeDatabase } from '../../examples/fault-targets/recreation/database.js';
import { databaseBuggy } from '../../examples/fault-targets/recreation/buggy.js';
import { databaseCorrect } from '../../examples/fault-targets/recreation/correct.js';
import { recreation } from '../../faults/recreation.js';
import { defineController, isStoreError, simulate, type Scenario, type WorkloadAction } from '../../src/index.js';
import { faultLaws, runCase, type FaultLawCase } from '../helpers/fault-laws.js';
import { manifestViolations } from '../helpers/realism.js';
import { CERT_REQUEST, certChain } from '../../examples/false-positives/cert-chain.js';
import type { WriteRecord } from '../../src/store/write-record.js';

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

describe('recreation re-applies only what a person declared', () => {
  it('over a chain whose requests are both a controller\'s children and other controllers\' primaries, it recreates a Certificate, never a request, and the realism law (g) holds', async () => {
    const cert = (name: string): WorkloadAction => ({ at: 0, type: 'create', object: { kind: 'Certificate', metadata: { name, namespace: 'default' }, spec: { dnsName: 'web.example.com' } } });
    // picks 0..3 over 2 Certificates and their 2 requests (sorted by kind): the old pick took a request for 2 and 3
    for (const pick of [0, 1, 2, 3]) {
      const s: Scenario = { seed: 0, controllers: certChain.controllers.map((c) => ({ name: c.name })), initialObjects: [], workload: [cert('web-0'), cert('web-1')], faults: { events: [{ kind: 'recreation', at: 2, params: { pick, gapMs: 0 } }], background: [] } };
      const { run } = await simulate(s, { controllers: [...certChain.controllers], faults: [recreation] });
      expect(run.writes.filter((w) => w.actor === 'environment:recreation' && w.verb === 'create').map((w) => w.kind)).toEqual(['Certificate']);
      expect(manifestViolations(run.writes)).toEqual([]);
    }
  });

  it('applies the manifest the person declared (their patch included), never a spec field or label a controller added (a scheduler\'s binding)', async () => {
    const binder = defineController({
      name: 'binder',
      for: DATABASE,
      async reconcile(ctx) {
        const db = await ctx.client.tryGet<{ version: string; node?: string }>(DATABASE, ctx.key);
        if (!db || db.metadata.deletionTimestamp !== undefined || db.spec.node !== undefined) return;
        await ctx.client.update({ ...db, metadata: { ...db.metadata, labels: { ...db.metadata.labels, bound: 'yes' } }, spec: { ...db.spec, node: 'node-a' } });
      },
    });
    const s: Scenario = {
      seed: 0,
      controllers: [{ name: 'binder' }],
      initialObjects: [{ kind: DATABASE, metadata: { name: 'orders', namespace: 'default', labels: { team: 'shop' } }, spec: { version: '15' } }],
      workload: [{ at: 1000, type: 'patch', kind: DATABASE, key: 'default/orders', patch: { spec: { version: '16' } } }],
      faults: { events: [{ kind: 'recreation', at: 3000, params: { gapMs: 100 } }], background: [] },
      options: { faultWindowMs: 5000, settleMs: 5000 },
    };
    const { run } = await simulate(s, { controllers: [binder], faults: [recreation], tailMs: 0 });
    const created = run.writes.find((w) => w.actor === 'environment:recreation' && w.verb === 'create')!;
    expect(created.t).toBe(3100);
    // the binder binds the new incarnation again: the manifest carried neither its field nor its label
    const rebind = run.writes.filter((w) => w.actor.startsWith('controller:binder') && w.t >= created.t);
    expect(rebind.map((w) => [...w.changed].sort())).toEqual([['metadata.labels.bound', 'spec.node']]);
    const db = run.finalObjects.find((o) => o.kind === DATABASE)!;
    expect(db.spec).toEqual({ version: '16', node: 'node-a' });
    expect(db.metadata.labels).toEqual({ team: 'shop', bound: 'yes' });
  });

  it('law (g) names a fault that creates again an object a controller made', () => {
    const w = (t: number, actor: string, key: string): WriteRecord => ({ t, actor, verb: 'create', kind: CERT_REQUEST, key, changed: ['.'], noop: false });
    expect(manifestViolations([w(1, 'controller:certificates/0', 'default/web-0-1'), w(5, 'environment:recreation', 'default/web-0-1')])).toEqual([
      '(g) environment:recreation created CertificateRequest default/web-0-1 again at t=5 from a manifest, but controller:certificates/0 had made it: nobody holds a manifest of it',
    ]);
    expect(manifestViolations([w(1, 'user', 'default/mine'), w(5, 'environment:recreation', 'default/mine')])).toEqual([]);
  });
});
