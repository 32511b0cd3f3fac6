import { describe, expect, it } from 'vitest';
import { convergence } from '../../properties/convergence.js';
import { defineController, isStoreError, type ControllerDefinition, type FaultPlan, type Scenario, type WorkloadAction } from '../../src/index.js';
import { expectFailure, expectQuiet, judgeScenario } from '../helpers/property-laws.js';

/**
 * The default convergence judgement (Anvil's ESR) in its three parts, and the verdict for a
 * desired state the API never accepted. Each case: the old false alarm now passes, and a buggy
 * twin still fails, naming the part that failed.
 */
const APP = 'App';
const FINALIZER = 'example.dev/cleanup';

interface AppStatus {
  observedGeneration?: number;
  ready?: boolean;
  conditions?: { type: string; status: string; observedGeneration?: number }[];
}

/** How a test controller reports and finishes; everything else is a plain level-triggered reconcile. */
interface Style {
  name: string;
  /** The status it writes for the object, or undefined to write none. */
  status?: (generation: number) => AppStatus | undefined;
  /** After converging: what the reconcile returns (or throws). */
  after?: 'done' | 'throw' | 'requeueAfter' | 'requeue';
  /** Uses a finalizer, removed on deletion. */
  finalizer?: boolean;
  /** Also creates a copy of its object (of its own kind), which it never reports on. */
  copies?: boolean;
}

function app(style: Style): ControllerDefinition {
  return defineController({
    name: style.name,
    for: APP,
    resyncPeriodMs: 0,
    async reconcile(ctx) {
      const o = await ctx.client.tryGet<Record<string, unknown>, AppStatus>(APP, ctx.key, { live: true });
      if (!o) return;
      if (o.metadata.name.endsWith('-copy')) return;
      if (o.metadata.deletionTimestamp !== undefined) {
        if (o.metadata.finalizers.includes(FINALIZER)) await ctx.client.patch(APP, ctx.key, { metadata: { finalizers: [] } });
        return;
      }
      if (style.finalizer && !o.metadata.finalizers.includes(FINALIZER)) {
        await ctx.client.patch(APP, ctx.key, { metadata: { finalizers: [FINALIZER] } });
        return;
      }
      if (style.copies) {
        try {
          await ctx.client.create({ kind: APP, metadata: { name: `${o.metadata.name}-copy`, namespace: o.metadata.namespace ?? 'default' }, spec: o.spec });
        } catch (err) {
          if (!isStoreError(err, 'AlreadyExists')) throw err;
        }
      }
      const want = style.status?.(o.metadata.generation);
      if (want !== undefined && JSON.stringify(want) !== JSON.stringify(o.status)) await ctx.client.updateStatus({ ...o, status: want });
      if (style.after === 'throw') throw new Error('still waiting for the database');
      if (style.after === 'requeue') return { requeue: true };
      if (style.after === 'requeueAfter') return { requeueAfter: 500 };
      return undefined;
    },
  });
}

const create = (at: number, spec: Record<string, unknown> = { image: 'nginx:1' }, name = 'web', once = false): WorkloadAction => ({ at, type: 'create', object: { kind: APP, metadata: { name, namespace: 'default' }, spec: spec as never }, ...(once ? { retry: false as const } : {}) });
const update = (at: number, spec: Record<string, unknown>): WorkloadAction => ({ at, type: 'update', kind: APP, key: 'default/web', spec: spec as never });
const del = (at: number): WorkloadAction => ({ at, type: 'delete', kind: APP, key: 'default/web' });

function scenario(c: ControllerDefinition, workload: WorkloadAction[], faults: FaultPlan = { events: [], background: [] }): Scenario {
  return { seed: 1, controllers: [{ name: c.name }], initialObjects: [], workload, faults, options: { faultWindowMs: 5_000, settleMs: 10_000 } };
}

async function verdictOf(c: ControllerDefinition, workload: WorkloadAction[], faults?: FaultPlan, p = convergence()) {
  return (await judgeScenario(p, scenario(c, workload, faults), { controllers: [c] })).verdict;
}

const reportsGeneration = (g: number): AppStatus => ({ observedGeneration: g, ready: true });

describe('convergence (ESR) part (c): the reported generation, only where the controller reports it', () => {
  it('a controller that never writes observedGeneration converges (the old default failed it: "observedGeneration unset")', async () => {
    expectQuiet(await verdictOf(app({ name: 'silent', status: () => ({ ready: true }) }), [create(0), update(1000, { image: 'nginx:2' })]));
    expectQuiet(await verdictOf(app({ name: 'no-status' }), [create(0)]));
  });

  it('a controller that reports observedGeneration and leaves it behind the generation fails (c)', async () => {
    const stale = app({ name: 'stale', status: () => reportsGeneration(1) });
    const v = expectFailure(await verdictOf(stale, [create(0), update(1000, { image: 'nginx:2' })]));
    expect(v.summary).toContain('(c) App default/web has status.observedGeneration 1 ≠ generation 2');
    expect(v.explanation).toContain('the part that failed is (c)');
    expect(v.evidence['part']).toBe('reported');
  });

  it('a condition that reports an old generation fails (c); conditions that report the current one pass', async () => {
    const conditions = (fresh: boolean) => (g: number): AppStatus => ({ conditions: [{ type: 'Ready', status: 'True', observedGeneration: fresh ? g : 1 }] });
    expectQuiet(await verdictOf(app({ name: 'cond-ok', status: conditions(true) }), [create(0), update(1000, { image: 'nginx:2' })]));
    const v = expectFailure(await verdictOf(app({ name: 'cond-stale', status: conditions(false) }), [create(0), update(1000, { image: 'nginx:2' })]));
    expect(v.summary).toContain('conditions Ready observed another generation');
  });
});

describe('convergence (ESR) part (b): the world is quiet', () => {
  // found on the kube-rest example (conformance test): a controller that saw its object late
  // reached the state just before a check; that check starts the stable streak, the later ones
  // must be quiet since the check before
  const late = (c: ControllerDefinition): Scenario => ({ ...scenario(c, [create(5_500)]), options: { faultWindowMs: 5_000, settleMs: 3_000 } });
  it('the writes that reach the state may come just before the first of the stable checks', async () => {
    const c = app({ name: 'late', status: reportsGeneration });
    const { verdict, run } = await judgeScenario(convergence(), late(c), { controllers: [c] });
    // the converging write in (5 s, 6 s], checks at 6, 7 and 8 s before the tail
    expect(run.writes.some((w) => w.verb === 'updateStatus' && w.t > 5_000 && w.t < 6_000)).toBe(true);
    expectQuiet(verdict);
  });
  it('a controller that writes on every check is still not quiet', async () => {
    const stamping = defineController({
      name: 'stamping',
      for: APP,
      resyncPeriodMs: 0,
      async reconcile(ctx) {
        const o = await ctx.client.tryGet<Record<string, unknown>, AppStatus & { at?: number }>(APP, ctx.key);
        if (!o) return;
        await ctx.client.updateStatus({ ...o, status: { observedGeneration: o.metadata.generation, ready: true, at: Math.floor(ctx.clock.now() / 900) } });
        return { requeueAfter: 900 };
      },
    });
    const v = expectFailure((await judgeScenario(convergence(), late(stamping), { controllers: [stamping] })).verdict);
    expect(v.summary).toContain('(b) the world never stayed quiet');
  });

  it('requeueAfter that writes nothing is quiet', async () => {
    expectQuiet(await verdictOf(app({ name: 'poller', status: reportsGeneration, after: 'requeueAfter' }), [create(0)]));
  });

  it('a reconcile that keeps failing after the state looks converged is not quiet, and the verdict says so', async () => {
    const v = expectFailure(await verdictOf(app({ name: 'erring', status: reportsGeneration, after: 'throw' }), [create(0)]));
    expect(v.summary).toContain('(b) the world never stayed quiet');
    expect(v.explanation).toContain('the part that failed is (b)');
    expect(v.explanation).toMatch(/failed reconciles of default\/web by controller erring\/0 \(Error: still waiting for the database\), one every [\d.]+ (ms|s) on average, t=[\d.]+–[\d.]+ s/);
    expect(v.explanation).toContain("(a) and (c) held");
  });

  it('immediate requeues forever are not quiet', async () => {
    const v = expectFailure(await verdictOf(app({ name: 'requeuer', status: reportsGeneration, after: 'requeue' }), [create(0)]));
    expect(v.evidence['part']).toBe('quiet');
    expect(v.explanation).toContain('immediate requeues of default/web');
  });
});

describe('convergence (ESR) part (a): only what the user declared carries an obligation', () => {
  it('objects of the primary kind the controller created itself carry none', async () => {
    // the copy never gets a status; the old default failed the run on it
    expectQuiet(await verdictOf(app({ name: 'copier', status: reportsGeneration, copies: true }), [create(0)]));
    const v = expectFailure(await verdictOf(app({ name: 'copier-stale', status: () => reportsGeneration(1), copies: true }), [create(0), update(1000, { image: 'nginx:2' })]));
    expect(v.summary).toContain('App default/web has status.observedGeneration 1 ≠ generation 2');
    expect(v.explanation).toContain('(a) App default/web-copy carries no obligation: the user did not declare it');
  });
});

describe("convergence: the user's desired state was never accepted", () => {
  // the controller removes its finalizer only after a watch delay, so the old incarnation is
  // still terminating when the user creates the object again: the create is answered AlreadyExists
  const finalizing = (name: string, ready: boolean) => app({ name, finalizer: true, status: (g) => (ready ? reportsGeneration(g) : { observedGeneration: g }) });
  // one attempt (`retry: false`): the user does not retry like kubectl apply, so the last attempt's error stands
  const recreate = [create(0), del(1000), create(1200, { image: 'nginx:2' }, 'web', true)];
  const delayed: FaultPlan = { events: [{ kind: 'delay', nth: 3, params: { ms: 2000 } }], background: [] };
  const isReady = convergence({ converged: (view) => (view.get(APP, 'default/web')?.status['ready'] === true ? true : 'App default/web is not ready') });

  it('a create answered AlreadyExists under faults (the old incarnation still terminating) is the user\'s, not the controller\'s', async () => {
    const c = finalizing('finalizing', true);
    const { run, verdict } = await judgeScenario(isReady, scenario(c, recreate, delayed), { controllers: [c] });
    const actions = run.trace.filter((e) => e.type === 'user:action' && e['key'] === 'default/web' && e.t < run.timing.tailStart);
    expect(actions.at(-1)).toMatchObject({ action: 'create', error: 'AlreadyExists' });
    // before: "not converged within 10.0 s after faults stopped: App default/web is not ready"
    expect(verdict).toMatchObject({ ok: true, judged: false, why: expect.stringContaining("the user's desired state was never accepted: the create of App default/web at t=1.2 s was answered AlreadyExists") });
    // the default judgement says so too
    const d = await verdictOf(c, recreate, delayed);
    expect(d).toMatchObject({ ok: true, stats: { note: expect.stringContaining("the user's desired state was never accepted") } });
  });

  it('the same controller is judged as usual when the create is accepted, and a buggy twin still fails', async () => {
    expectQuiet((await judgeScenario(isReady, scenario(finalizing('finalizing', true), recreate), { controllers: [finalizing('finalizing', true)] })).verdict);
    const buggy = finalizing('never-ready', false);
    const v = expectFailure((await judgeScenario(isReady, scenario(buggy, recreate), { controllers: [buggy] })).verdict);
    expect(v.summary).toContain('App default/web is not ready');
  });
});
