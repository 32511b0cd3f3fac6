import { describe, expect, it } from 'vitest';
import { APP, judgeSingleChild, singleChildScenario } from '../../examples/fault-targets/single-child/app.js';
import { singleChildBuggy } from '../../examples/fault-targets/single-child/buggy.js';
import { singleChildCorrect } from '../../examples/fault-targets/single-child/correct.js';
import { drift } from '../../faults/drift.js';
import { ORDER, judgeShop, shopDownstream, shopScenario } from '../../examples/fault-targets/flaky-downstream/shop.js';
import { shopBuggy } from '../../examples/fault-targets/flaky-downstream/buggy.js';
import { shopCorrect } from '../../examples/fault-targets/flaky-downstream/correct.js';
import { faultLaws, runCase, type FaultLawCase } from '../helpers/fault-laws.js';

const lawCase: FaultLawCase = {
  fault: drift,
  label: 'create-once vs level-triggered repair (owned objects)',
  scenario: singleChildScenario,
  buggy: singleChildBuggy,
  correct: singleChildCorrect,
  judge: judgeSingleChild,
  // someone deletes a Pod: the buggy controller's status says "done", so it never recreates it
  breaking: { events: [{ kind: 'drift', at: 1000, params: { action: 'delete', pick: 0 } }], background: [] },
  gen: { controllers: ['x'], kinds: [APP], keys: ['default/web', 'default/api'], faultWindowMs: 10_000, maxNth: 8 },
  minimalEvent: { kind: 'drift', at: 0, params: { action: 'delete', pick: 0, external: false } },
  search: { numRuns: 50, shrinksTo: 1 },
};

faultLaws(lawCase);

describe('drift of owned objects', () => {
  it('kubectl set image on a Pod is repaired by the correct reconciler and left alone by the buggy one', async () => {
    const plan = { events: [{ kind: 'drift', at: 1000, params: { action: 'image', pick: 1 } }], background: [] };
    const buggy = await runCase(lawCase, singleChildBuggy, plan);
    expect(judgeSingleChild(buggy)).toMatch(/runs nginx:1-drifted, App web wants nginx:1/);
    const correct = await runCase(lawCase, singleChildCorrect, plan);
    expect(judgeSingleChild(correct)).toBe(true);
    const edit = correct.writes.find((w) => w.actor === 'environment:drift')!;
    expect(edit).toMatchObject({ verb: 'patch', kind: 'Pod', changed: ['spec.containers'] });
    const repair = correct.writes.find((w) => w.t >= edit.t && w.actor.startsWith('controller:') && w.kind === 'Pod');
    expect(repair).toMatchObject({ verb: 'patch', key: edit.key, changed: ['spec.containers'] });
  });

  it('changes only what the API server accepts: labels, annotations, replicas, images, ConfigMap and Secret data', async () => {
    const { ObjectStore } = await import('../../src/store/store.js');
    const { VirtualClock } = await import('../../src/sim/clock.js');
    const { driftStored } = await import('../../faults/_internals/drift-edits.js');
    const store = new ObjectStore({ clock: new VirtualClock() });
    const owner = store.create('user', { kind: 'App', metadata: { name: 'a', namespace: 'ns' }, spec: {} });
    const ref = [{ kind: 'App', name: 'a', uid: owner.metadata.uid, controller: true }];
    store.create('controller:c/0', { kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'ns', labels: { app: 'a' }, ownerReferences: ref }, data: { 'k.conf': 'x' } });
    store.create('controller:c/0', { kind: 'Secret', metadata: { name: 's', namespace: 'ns', ownerReferences: ref }, data: { token: btoa('t') } });
    store.create('controller:c/0', { kind: 'ConfigMap', metadata: { name: 'frozen', namespace: 'ns', ownerReferences: ref }, data: { a: '1' }, immutable: true });
    // a copy the controller created in another namespace: no owner, still managed
    store.create('controller:c/0', { kind: 'Secret', metadata: { name: 'copy', namespace: 'other' }, data: { token: btoa('t') } });
    store.create('controller:c/0', { kind: 'Deployment', metadata: { name: 'd', namespace: 'ns', ownerReferences: ref }, spec: { replicas: 2, selector: { matchLabels: { app: 'a' } }, template: { metadata: { labels: { app: 'a' } }, spec: { containers: [{ name: 'c', image: 'web:1' }] } } } });
    const writes: { uid?: string; rv?: number; verb: string; actor: string }[] = [
      ...['cm', 's', 'frozen', 'd'].map((n) => ({ verb: 'create', actor: 'controller:c/0', rv: 1, uid: store.peekAll(n === 'd' ? 'Deployment' : n === 's' ? 'Secret' : 'ConfigMap').find((o) => o.metadata.name === n)!.metadata.uid })),
      { verb: 'create', actor: 'controller:c/0', rv: 1, uid: store.peek('Secret', 'other/copy')!.metadata.uid },
    ];
    const world = { store, writes } as unknown as Parameters<typeof driftStored>[0];
    const at = (kind: string, key: string) => store.peek(kind, key)!;
    expect(driftStored(world, 'data', 0, {})).toMatchObject({ objectKind: 'ConfigMap', key: 'ns/cm' });
    expect(at('ConfigMap', 'ns/cm')['data']).toEqual({ 'k.conf': 'x-drifted' });
    // the immutable ConfigMap is picked next: the store refuses, nothing drifted
    expect(driftStored(world, 'data', 1, {})).toBeUndefined();
    expect(driftStored(world, 'data', 2, {})).toMatchObject({ objectKind: 'Secret', key: 'ns/s' });
    expect(atob((at('Secret', 'ns/s')['data'] as Record<string, string>)['token']!)).toBe('t-drifted');
    expect(driftStored(world, 'data', 3, {})).toMatchObject({ key: 'other/copy' });
    expect(driftStored(world, 'scale', 0, {})).toMatchObject({ objectKind: 'Deployment' });
    expect(at('Deployment', 'ns/d').spec['replicas']).toBe(3);
    expect(driftStored(world, 'image', 0, {})).toMatchObject({ objectKind: 'Deployment' });
    expect(at('Deployment', 'ns/d').spec).toMatchObject({ template: { spec: { containers: [{ image: 'web:1-drifted' }] } } });
    expect(driftStored(world, 'label', 0, {})).toMatchObject({ key: 'ns/cm' });
    expect(at('ConfigMap', 'ns/cm').metadata.labels).toEqual({ app: 'a', 'drift.steadystate.dev/edited': 'true' });
    expect(driftStored(world, 'annotation', 0, {})).toMatchObject({ key: 'ns/cm' });
    expect(at('ConfigMap', 'ns/cm').metadata.annotations).toEqual({ 'drift.steadystate.dev/edited': 'true' });
  });

  it("never deletes a claim a running Pod mounts (the API server's pvc-protection keeps it until the Pod goes); a claim no Pod uses, it may", async () => {
    const { ObjectStore } = await import('../../src/store/store.js');
    const { VirtualClock } = await import('../../src/sim/clock.js');
    const { driftStored } = await import('../../faults/_internals/drift-edits.js');
    const store = new ObjectStore({ clock: new VirtualClock() });
    const owner = store.create('user', { kind: 'StatefulSet', metadata: { name: 'db', namespace: 'ns' }, spec: { serviceName: 'db', selector: { matchLabels: { app: 'db' } }, template: { metadata: { labels: { app: 'db' } }, spec: { containers: [{ name: 'db', image: 'db:1' }] } } } });
    const ref = [{ kind: 'StatefulSet', name: 'db', uid: owner.metadata.uid, controller: true }];
    const claim = (name: string) => store.create('controller:c/0', { kind: 'PersistentVolumeClaim', metadata: { name, namespace: 'ns', ownerReferences: ref }, spec: { resources: { requests: { storage: '1Gi' } } } });
    const pod = (name: string, claimName: string) => store.create('controller:c/0', { kind: 'Pod', metadata: { name, namespace: 'ns', ownerReferences: ref }, spec: { containers: [{ name: 'db', image: 'db:1' }], volumes: [{ name: 'data', persistentVolumeClaim: { claimName } }] } });
    claim('data-db-0');
    claim('data-db-1');
    pod('db-0', 'data-db-0');
    const world = { store, writes: [] } as unknown as Parameters<typeof driftStored>[0];
    // the candidates are the claims and the Pod, by kind then key: with data-db-0 mounted, pick 0 is data-db-1
    expect(driftStored(world, 'delete', 0, {})).toMatchObject({ objectKind: 'PersistentVolumeClaim', key: 'ns/data-db-1' });
    expect(store.peek('PersistentVolumeClaim', 'ns/data-db-0')).toBeDefined();
    // only the Pod and its claim are left: the Pod is the one candidate, whatever the pick
    expect(driftStored(world, 'delete', 1, {})).toMatchObject({ objectKind: 'Pod', key: 'ns/db-0' });
    expect(store.peek('PersistentVolumeClaim', 'ns/data-db-0')).toBeDefined();
    // once no Pod mounts it, it may go
    expect(driftStored(world, 'delete', 0, {})).toMatchObject({ objectKind: 'PersistentVolumeClaim', key: 'ns/data-db-0' });
  });

  it('is a no-op when there is nothing to drift yet', async () => {
    const run = await runCase(lawCase, singleChildBuggy, { events: [{ kind: 'drift', at: 0, params: { action: 'delete' } }], background: [] });
    expect(run.trace.some((e) => e.type === 'fault:inject')).toBe(false);
  });
});

const lawCaseExternal: FaultLawCase = {
  fault: drift,
  label: 'record-once vs periodic re-check (external resources)',
  scenario: shopScenario,
  buggy: shopBuggy,
  correct: shopCorrect,
  judge: judgeShop,
  // someone cancels alice's order in the shop's console: no event tells the controller
  breaking: { events: [{ kind: 'drift', at: 3000, params: { action: 'delete', pick: 0, external: true } }], background: [] },
  gen: { controllers: ['x'], kinds: [ORDER], keys: ['default/alice', 'default/bob'], faultWindowMs: 10_000, maxNth: 8 },
  minimalEvent: { kind: 'drift', at: 0, params: { action: 'delete', pick: 0, external: false } },
  options: { downstream: shopDownstream },
};

faultLaws(lawCaseExternal);

describe('drift of external resources', () => {
  it('an edit in the external service is found by the periodic re-check and patched back', async () => {
    const run = await runCase(lawCaseExternal, shopCorrect, { events: [{ kind: 'drift', at: 3000, params: { action: 'modify', pick: 1, external: true } }], background: [] });
    expect(run.trace.find((e) => e.type === 'fault:inject')).toMatchObject({ external: true, service: 'shop', collection: 'orders' });
    const patch = run.requests.find((r) => r.method === 'PATCH');
    expect(patch).toMatchObject({ status: 200 });
    expect(patch!.t).toBeGreaterThan(3000);
    expect(judgeShop(run)).toBe(true);
  });

  it("leaves the fields a service declares immutable (no console changes a record's zone), and edits the rest", async () => {
    const { fakeRestService } = await import('../../src/index.js');
    const { SHOP } = await import('../../examples/fault-targets/flaky-downstream/shop.js');
    const immutable = () => ({ services: [fakeRestService({ baseUrl: SHOP, name: 'shop', idempotencyKeyHeader: 'Idempotency-Key', collections: ['orders'], immutableFields: ['item'] })], timeoutMs: 5000 });
    const run = await runCase({ ...lawCaseExternal, options: { ...lawCaseExternal.options, downstream: immutable } }, shopCorrect, { events: [{ kind: 'drift', at: 3000, params: { action: 'modify', pick: 1, external: true } }], background: [] });
    const edits = (run.downstream as { services: { edits: { via: string; fields: string[] }[] }[] }).services[0]!.edits.filter((e) => e.via === 'out-of-band');
    expect(edits.length).toBe(1);
    expect(edits[0]!.fields).not.toContain('item');
  });
});
