import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { check } from '../../../src/check.js';
import { MODULE_STATE_HINT, checkDeterminism, programStateHint } from '../../../src/harness/determinism.js';
import { defineController, type ControllerDefinition } from '../../../src/runtime/define-controller.js';
import { crashRestart } from '../../../faults/crash-restart.js';
import { delay } from '../../../faults/delay.js';
import { lastSeenGeneration } from '../../../examples/fault-targets/in-memory-state/last-seen.js';
import { entries, run, scenario } from '../../helpers/fixtures.js';
import { fakeRun } from '../harness/helpers.js';

/**
 * Stop 43 (red team, H8): in-memory state per controller incarnation. `defineController({ state })`
 * makes `ctx.state` afresh for every replica incarnation: new in every simulation, lost on a
 * simulated crash, as a process's memory is. Module-level state leaks between the simulations one
 * process runs, and the determinism failure says so.
 */
const thing = (name: string) => ({ kind: 'Thing', metadata: { name, namespace: 'ns' }, spec: { n: 1 } });

/** A controller that counts its reconciles in ctx.state and logs the count (the trace stays the same in every run). */
function counting(name: string, leaderElection?: boolean): { def: ControllerDefinition; made: () => number } {
  let made = 0;
  const def = defineController({
    name,
    for: 'Thing',
    resyncPeriodMs: 0,
    ...(leaderElection !== undefined ? { leaderElection } : {}),
    state: () => ({ made: ++made, reconciles: 0 }),
    reconcile(ctx) {
      ctx.state.reconciles++;
      ctx.log.info('count', { reconciles: ctx.state.reconciles, replica: ctx.replica });
      return ctx.clock.now() < 4_000 ? { requeueAfter: 1_000 } : undefined;
    },
  });
  return { def, made: () => made };
}

const counts = (trace: Parameters<typeof entries>[0]) => entries(trace, 'log').map((e) => (e['fields'] as { reconciles: number; replica: number }));

describe('defineController state: one per replica incarnation', () => {
  it('is made once per incarnation and shared by its reconciles; a crash-restart starts a new one', async () => {
    const { def, made } = counting('counter');
    const { run: r } = await run(
      scenario({ controllers: [{ name: 'counter' }], initialObjects: [thing('a')], faults: { events: [{ kind: 'crash-restart', at: 2_500 }], background: [] } }),
      [def],
      { faults: [crashRestart] },
    );
    expect(entries(r.trace, 'controller:crash').map((e) => e.t)).toEqual([2_500]);
    // t=0,1000,2000 on the first incarnation; the restart (t=3500) lists afresh and counts from 1
    expect(counts(r.trace).map((c) => c.reconciles)).toEqual([1, 2, 3, 1, 2]);
    expect(made()).toBe(2);
  });

  it('each replica has its own', async () => {
    const { def, made } = counting('counter', false);
    const { run: r } = await run(scenario({ controllers: [{ name: 'counter', replicas: 2 }], initialObjects: [thing('a')] }), [def]);
    const byReplica = (k: number) => counts(r.trace).filter((c) => c.replica === k);
    expect(byReplica(0).map((c) => c.reconciles)).toEqual([1, 2, 3, 4, 5]);
    expect(byReplica(1).map((c) => c.reconciles)).toEqual([1, 2, 3, 4, 5]);
    expect(made()).toBe(2);
  });

  it('is fresh in every simulation: two runs of one definition do not share it and give the same trace', async () => {
    const { def, made } = counting('counter');
    const s = scenario({ controllers: [{ name: 'counter' }], initialObjects: [thing('a')] });
    const first = await run(s, [def]);
    const second = await run(s, [def]);
    expect(counts(second.run.trace).map((c) => c.reconciles)).toEqual([1, 2, 3, 4, 5]);
    expect(second.run.hash).toBe(first.run.hash);
    expect(made()).toBe(2);
  });

  it('is undefined without a state option, and a state that is not a function is refused', async () => {
    let seen: unknown = 'unset';
    const plain = defineController({ name: 'plain', for: 'Thing', resyncPeriodMs: 0, reconcile: (ctx) => void (seen = ctx.state) });
    await run(scenario({ controllers: [{ name: 'plain' }], initialObjects: [thing('a')] }), [plain]);
    expect(seen).toBeUndefined();
    const bad = { name: 'bad', for: 'Thing', reconcile: () => undefined, state: new Map() } as unknown as Parameters<typeof defineController>[0];
    expect(() => defineController(bad)).toThrow(/"state" must be a function that makes the in-memory state of one replica/);
  });

  it('a factory that throws fails the reconcile (retried), not the run', async () => {
    let calls = 0;
    const flaky = defineController({
      name: 'flaky',
      for: 'Thing',
      resyncPeriodMs: 0,
      state: () => {
        if (++calls === 1) throw new Error('cold cache');
        return { ok: true };
      },
      reconcile: (ctx) => void ctx.state.ok,
    });
    const { run: r } = await run(scenario({ controllers: [{ name: 'flaky' }], initialObjects: [thing('a')] }), [flaky]);
    expect(entries(r.trace, 'reconcile:end').map((e) => e['result'])).toEqual(['error', 'done']);
    expect(calls).toBe(2);
  });
});

describe('a module-level "last seen" map keyed by uid vs the same map in ctx.state', () => {
  const objects = { kind: 'App', spec: [{ image: 'nginx:1' }, { image: 'node:20' }] };

  it("in ctx.state the check passes, determinism included (a correct controller's memory is no false alarm)", async () => {
    const r = await check(lastSeenGeneration('last-seen-state', 'state'), { objects, runs: 10, seed: 1 });
    expect(r.ok).toBe(true);
    expect(r.determinismChecked).toBeGreaterThan(0);
  });

  it('at module level the determinism re-run diverges, and the explanation points at defineController state', async () => {
    const r = await check(lastSeenGeneration('last-seen-module', 'module'), { objects, runs: 10, seed: 1 });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.property).toBe('determinism');
    expect(r.determinism.explanation).toContain(MODULE_STATE_HINT);
    expect(r.determinism.explanation).toMatch(/survives between steadystate's simulations, because one process runs them all/);
    expect(r.determinism.explanation).toMatch(/Keep it in defineController's `state` option/);
  });
});

describe('the module-state hint', () => {
  const first = fakeRun({ hash: 'aaaa', trace: [{ t: 0, type: 'run:start' }, { t: 5, type: 'log', message: 'x=1' }] });
  const other = async () => fakeRun({ hash: 'bbbb', trace: [{ t: 0, type: 'run:start' }, { t: 5, type: 'log', message: 'x=2' }] });

  it('is given when nothing else nondeterministic was seen, and not when the probe saw Math.random or a run was given up on', async () => {
    expect((await checkDeterminism(first, other)).explanation).toContain(MODULE_STATE_HINT);
    const random = await checkDeterminism(first, other, { start: () => () => ({ 'Math.random()': 2 }) });
    expect(random.explanation).not.toContain(MODULE_STATE_HINT);
    const blocked = await checkDeterminism(first, async () => fakeRun({ hash: 'cccc', trace: [{ t: 0, type: 'run:start' }, { t: 5, type: 'kernel:blocked' }] }));
    expect(blocked.explanation).not.toContain(MODULE_STATE_HINT);
  });

  it('names what a hosted program shares instead (its own modules are fresh per incarnation)', async () => {
    const program = { ...first, controllers: ['p'], programs: ['p'] };
    const r = await checkDeterminism(program, async () => ({ ...(await other()), controllers: ['p'], programs: ['p'] }));
    expect(r.explanation).not.toContain(MODULE_STATE_HINT);
    expect(r.explanation).toContain(programStateHint(['p']));
    expect(r.explanation).toMatch(/p runs as a process of its own\. A hosted program's own modules are loaded afresh for every incarnation/);
  });
});

describe('the README state snippet', () => {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
  const tmp = join(root, 'test', '.tmp-readme-state');
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('runs: one Pod per App through a watch delay and a crash-restart', async () => {
    const m = readFileSync(join(root, 'README.md'), 'utf8').match(/<!-- snippet: state -->\s*```ts\n([\s\S]*?)```/);
    expect(m).not.toBeNull();
    mkdirSync(tmp, { recursive: true });
    const file = join(tmp, 'state.ts');
    writeFileSync(file, m![1]!);
    const { singleton } = (await import(/* @vite-ignore */ file)) as { singleton: ControllerDefinition };
    const app = (name: string) => ({ kind: 'App', metadata: { name, namespace: 'default' }, spec: {} });
    for (const events of [[], [{ kind: 'delay', nth: 1, params: { ms: 3_000 } }], [{ kind: 'crash-restart', nth: 0, params: { point: 'after-write' } }]]) {
      const s = scenario({ controllers: [{ name: 'singleton' }], workload: [{ at: 100, type: 'create', object: app('web') }, { at: 200, type: 'create', object: app('api') }], faults: { events, background: [] } });
      const { run: r } = await run(s, [singleton], { faults: [delay, crashRestart] });
      const pods = r.finalObjects.filter((o) => o.kind === 'Pod');
      expect(pods.map((p) => p.metadata.generateName).sort(), JSON.stringify(events)).toEqual(['api-', 'web-']);
    }
  });
});
