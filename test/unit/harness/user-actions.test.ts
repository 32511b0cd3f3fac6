import { describe, expect, it } from 'vitest';
import { apiConflict } from '../../../faults/api-conflict.js';
import { apiError } from '../../../faults/api-error.js';
import { singleChildCorrect } from '../../../examples/fault-targets/single-child/correct.js';
import { APP, POD } from '../../../examples/fault-targets/single-child/app.js';
import type { FaultPlan } from '../../../src/harness/fault-plan.js';
import type { WorkloadAction } from '../../../src/harness/scenario.js';
import { USER_RETRY } from '../../../src/harness/user-actions.js';
import { defineController } from '../../../src/runtime/define-controller.js';
import type { NewObject } from '../../../src/store/object.js';
import type { TraceEntry } from '../../../src/sim/trace.js';
import { entries, run, scenario } from '../../helpers/fixtures.js';

const FIN = 'example.dev/cleanup';
const app = (image: string, extra: Partial<NewObject['metadata']> = {}): NewObject => ({ kind: APP, metadata: { name: 'web', namespace: 'default', ...extra }, spec: { image } });

/** Removes the finalizers of a deleted App, but not before `holdMs` (a slow cleanup). */
const slowCleanup = (holdMs: number) =>
  defineController({
    name: 'slow-cleanup',
    for: APP,
    async reconcile(ctx) {
      const a = await ctx.client.tryGet(APP, ctx.key);
      if (!a || a.metadata.deletionTimestamp === undefined) return;
      if (ctx.clock.now() < holdMs) return { requeueAfter: holdMs - ctx.clock.now() };
      await ctx.client.update({ ...a, metadata: { ...a.metadata, finalizers: [] } });
      return;
    },
  });

function userActions(trace: readonly TraceEntry[]): TraceEntry[] {
  return entries(trace, 'user:action');
}

async function runWorkload(workload: WorkloadAction[], faults: FaultPlan = { events: [], background: [] }, controller = singleChildCorrect) {
  const { run: r } = await run(scenario({ controllers: [{ name: controller.name }], workload, faults }), [controller], { faults: [apiError, apiConflict] });
  return r;
}

describe('users retry like kubectl apply and GitOps', () => {
  it('a create answered 500 is retried after the backoff and accepted; every attempt is in the trace', async () => {
    const r = await runWorkload([{ at: 100, type: 'create', object: app('nginx:1') }], { events: [{ kind: 'api-error', nth: 0, target: 'user', params: { status: 500 } }], background: [] });
    expect(userActions(r.trace).map((e) => ({ t: e.t, attempt: e['attempt'], error: e['error'] }))).toEqual([
      { t: 100, attempt: 1, error: 'InternalError' },
      { t: 100 + USER_RETRY.firstMs, attempt: 2, error: undefined },
    ]);
    expect(r.finalObjects.some((o) => o.kind === APP && o.metadata.name === 'web')).toBe(true);
    const fired = entries(r.trace, 'fault:inject');
    expect(fired[0]).toMatchObject({ kind: 'api-error', target: 'user', nth: 0, action: 'create', attempt: 1 });
  });

  it('`retry: false` makes one attempt: the rejection is the last word (the desired state was never accepted)', async () => {
    const r = await runWorkload([{ at: 100, type: 'create', object: app('nginx:1'), retry: false }], { events: [{ kind: 'api-error', nth: 0, target: 'user', params: { status: 503 } }], background: [] });
    const acts = userActions(r.trace);
    expect(acts).toHaveLength(1);
    expect(acts[0]).toMatchObject({ action: 'create', key: 'default/web', error: 'ServiceUnavailable' });
    expect(acts[0]!['attempt']).toBeUndefined();
    expect(r.finalObjects.some((o) => o.kind === APP)).toBe(false);
  });

  it('backs off exponentially (1 s, 2 s, 4 s …) and honours Retry-After when longer', async () => {
    const events = [0, 1, 2].map((nth) => ({ kind: 'api-error', nth, target: 'user', params: nth === 2 ? { status: 429, retryAfterSeconds: 7 } : { status: 500 } }));
    const r = await runWorkload([{ at: 0, type: 'create', object: app('nginx:1') }], { events, background: [] });
    expect(userActions(r.trace).map((e) => e.t)).toEqual([0, 1000, 3000, 10_000]);
  });

  it('a create whose timed-out first attempt was applied is accepted on the retry (AlreadyExists of what it made)', async () => {
    const r = await runWorkload([{ at: 100, type: 'create', object: app('nginx:1') }], { events: [{ kind: 'api-error', nth: 0, target: 'user', params: { status: 504, applied: true } }], background: [] });
    const acts = userActions(r.trace);
    expect(acts.map((e) => e['error'])).toEqual(['Timeout', undefined]);
  });

  it('AlreadyExists while the old incarnation terminates is retried until it is gone, then the create is accepted', async () => {
    const hold = 5000;
    const r = await runWorkload(
      [
        { at: 0, type: 'create', object: app('nginx:1', { finalizers: [FIN] }) },
        { at: 1000, type: 'delete', kind: APP, key: 'default/web' },
        { at: 1000, type: 'create', object: app('nginx:2') },
      ],
      undefined,
      slowCleanup(hold),
    );
    const creates = userActions(r.trace).filter((e) => e['action'] === 'create' && e.t >= 1000);
    expect(creates.length).toBeGreaterThan(2);
    expect(creates.slice(0, -1).every((e) => e['error'] === 'AlreadyExists')).toBe(true);
    expect(creates.at(-1)!['error']).toBeUndefined();
    expect(creates.at(-1)!.t).toBeGreaterThanOrEqual(hold);
    expect(creates.map((e) => e['attempt'])).toEqual(creates.map((_, i) => i + 1));
    const web = r.finalObjects.find((o) => o.kind === APP)!;
    expect(web.spec).toEqual({ image: 'nginx:2' });
  });

  it('an update answered 409 (a concurrent writer got in first) is re-read and retried', async () => {
    const r = await runWorkload(
      [
        { at: 0, type: 'create', object: app('nginx:1') },
        { at: 500, type: 'update', kind: APP, key: 'default/web', spec: { image: 'nginx:2' } },
      ],
      { events: [{ kind: 'api-conflict', nth: 1, target: 'user' }], background: [] },
    );
    const updates = userActions(r.trace).filter((e) => e['action'] === 'update');
    expect(updates.map((e) => e['error'])).toEqual(['Conflict', undefined]);
    expect(r.finalObjects.find((o) => o.kind === APP)!.spec).toEqual({ image: 'nginx:2' });
  });

  it('acts on each object in order: a later action waits for a retried earlier one; other objects do not wait', async () => {
    // the create is answered 429 with Retry-After 3 s; the update at 1 s must not run first (NotFound) nor be undone
    const other: NewObject = { kind: APP, metadata: { name: 'api', namespace: 'default' }, spec: { image: 'node:20' } };
    const r = await runWorkload(
      [
        { at: 0, type: 'create', object: app('nginx:1') },
        { at: 1000, type: 'update', kind: APP, key: 'default/web', spec: { image: 'nginx:2' } },
        { at: 1000, type: 'create', object: other },
      ],
      { events: [{ kind: 'api-error', nth: 0, target: 'user', params: { status: 429, retryAfterSeconds: 3 } }], background: [] },
    );
    expect(userActions(r.trace).map((e) => `${e['action']} ${e['key']} at ${e.t}${e['error'] ? ` ${e['error']}` : ''}`)).toEqual([
      'create default/web at 0 TooManyRequests',
      'create default/api at 1000',
      'create default/web at 3000',
      'update default/web at 3000',
    ]);
    expect(r.finalObjects.find((o) => o.kind === APP && o.metadata.name === 'web')!.spec).toEqual({ image: 'nginx:2' });
  });

  it('a rejection that does not pass (NotFound) is not retried', async () => {
    const r = await runWorkload([{ at: 0, type: 'update', kind: APP, key: 'default/none', spec: { image: 'x' } }]);
    expect(userActions(r.trace)).toEqual([expect.objectContaining({ action: 'update', error: 'NotFound' })]);
  });

  it('pending retries run as soon as the fault window closes', async () => {
    // the second attempt would come at 10.5 s; the window closes at 10 s, and faults with it
    const events = [0, 1].map((nth) => ({ kind: 'api-error', nth, target: 'user', params: { status: 500 } }));
    const r = await runWorkload([{ at: 9500, type: 'create', object: app('nginx:1') }], { events, background: [] });
    expect(userActions(r.trace).map((e) => e.t)).toEqual([9500, 10_000]);
    expect(userActions(r.trace).at(-1)!['error']).toBeUndefined();
  });
});

describe('story actions', () => {
  it('apply creates an absent object and updates a live one (spec, labels), like kubectl apply', async () => {
    const r = await runWorkload([
      { at: 0, type: 'apply', object: app('nginx:1') },
      { at: 1000, type: 'apply', object: app('nginx:2', { labels: { tier: 'web' } }) },
    ]);
    const web = r.finalObjects.find((o) => o.kind === APP)!;
    expect(web.spec).toEqual({ image: 'nginx:2' });
    expect(web.metadata.labels).toEqual({ tier: 'web' });
    expect(web.metadata.generation).toBe(2);
    expect(userActions(r.trace).every((e) => e['error'] === undefined)).toBe(true);
  });

  it('recreate deletes and creates the object again under the same name (a new uid)', async () => {
    const r = await runWorkload([
      { at: 0, type: 'create', object: app('nginx:1') },
      { at: 1000, type: 'recreate', kind: APP, key: 'default/web' },
    ]);
    const creates = r.writes.filter((w) => w.kind === APP && w.actor === 'user' && w.verb === 'create');
    expect(creates).toHaveLength(2);
    expect(r.finalObjects.find((o) => o.kind === APP)!.spec).toEqual({ image: 'nginx:1' });
    expect(r.writes.some((w) => w.kind === APP && w.actor === 'user' && w.verb === 'delete')).toBe(true);
  });

  // a scheduler: binds the App (writes spec.node, a field no user declares) and labels it
  const binder = defineController({
    name: 'binder',
    for: APP,
    async reconcile(ctx) {
      const a = await ctx.client.tryGet<{ image: string; node?: string }>(APP, ctx.key);
      if (!a || a.spec.node !== undefined) return;
      await ctx.client.update({ ...a, metadata: { ...a.metadata, labels: { ...a.metadata.labels, bound: 'yes' } }, spec: { ...a.spec, node: 'node-a' } });
    },
  });

  it('update is kubectl apply of the new spec: a field the user declared and dropped goes, one nobody declared (a scheduler\'s) stays', async () => {
    const r = await runWorkload(
      [
        { at: 0, type: 'create', object: { ...app('nginx:1'), spec: { image: 'nginx:1', debug: true } } },
        { at: 2000, type: 'update', kind: APP, key: 'default/web', spec: { image: 'nginx:2' } },
      ],
      undefined,
      binder,
    );
    expect(r.finalObjects.find((o) => o.kind === APP)!.spec).toEqual({ node: 'node-a', image: 'nginx:2' });
    // the update changed what the user said and nothing else: the binding was never undone (nor made again)
    const update = r.writes.find((w) => w.actor === 'user' && w.verb === 'update')!;
    expect([...update.changed].sort()).toEqual(['spec.debug', 'spec.image']);
    expect(r.writes.filter((w) => w.actor.startsWith('controller:binder'))).toHaveLength(1);
  });

  it('apply of a changed manifest keeps a spec field nobody declared, as kubectl apply does', async () => {
    const r = await runWorkload([{ at: 0, type: 'apply', object: app('nginx:1') }, { at: 2000, type: 'apply', object: app('nginx:2') }], undefined, binder);
    const second = r.writes.filter((w) => w.actor === 'user' && w.verb === 'update');
    expect(second.map((w) => w.changed)).toEqual([['spec.image']]);
    expect(r.writes.filter((w) => w.actor.startsWith('controller:binder'))).toHaveLength(1);
    expect(r.finalObjects.find((o) => o.kind === APP)!.spec).toEqual({ node: 'node-a', image: 'nginx:2' });
  });

  it('recreate applies the manifest the user declared again: not the spec field or label a controller added', async () => {
    const r = await runWorkload(
      [
        { at: 0, type: 'create', object: app('nginx:1') },
        { at: 1000, type: 'patch', kind: APP, key: 'default/web', patch: { spec: { image: 'nginx:2' } } },
        { at: 2000, type: 'recreate', kind: APP, key: 'default/web' },
      ],
      undefined,
      binder,
    );
    const recreated = r.writes.filter((w) => w.kind === APP && w.actor === 'user' && w.verb === 'create')[1]!;
    expect(recreated.t).toBe(2000);
    // the binder binds the new object again: the user's create itself carried neither its field nor its label
    const created = r.trace.find((e) => e.type === 'store:write' && e['verb'] === 'create' && e['t'] === 2000 && e['kind'] === APP);
    expect(created).toBeDefined();
    const afterCreate = r.writes.filter((w) => w.kind === APP && w.actor === 'controller:binder/0' && w.t >= 2000);
    expect(afterCreate.map((w) => w.changed)).toEqual([expect.arrayContaining(['spec.node', 'metadata.labels.bound'])]);
    expect(r.finalObjects.find((o) => o.kind === APP)!.spec).toEqual({ image: 'nginx:2', node: 'node-a' });
  });

  it('deleteOwned deletes the objects the owner controls, out of band; the controller makes them again', async () => {
    const r = await runWorkload([
      { at: 0, type: 'create', object: app('nginx:1') },
      { at: 2000, type: 'deleteOwned', kind: POD, owner: { kind: APP, key: 'default/web' } },
    ]);
    const acts = userActions(r.trace).filter((e) => e['action'] === 'deleteOwned');
    expect(acts).toEqual([expect.objectContaining({ kind: POD, key: 'default/web-pod' })]);
    expect(acts[0]!['error']).toBeUndefined();
    expect(r.writes.filter((w) => w.kind === POD && w.verb === 'create').length).toBe(2);
    expect(r.finalObjects.filter((o) => o.kind === POD)).toHaveLength(1);
  });
});
