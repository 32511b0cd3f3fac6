import { describe, expect, it } from 'vitest';
import { featureFlags } from '../../examples/false-positives/feature-flags.js';
import { ordinalMembers } from '../../examples/false-positives/ordinal-members.js';
import { defineFault, type FaultModule } from '../../src/harness/fault.js';
import type { World } from '../../src/harness/world.js';
import type { Informer } from '../../src/runtime/informer.js';
import type { WatchEvent } from '../../src/store/watch.js';
import { keyOf } from '../../src/store/object.js';
import fc from 'fast-check';
import { realismCheck, type RealismTarget } from '../helpers/fault-laws.js';
import { livenessViolations, notificationViolations, streamViolations, watchViolations } from '../helpers/realism.js';

/**
 * The realism law cannot pass trivially: fault modules that produce what no real control plane
 * produces (written here on purpose, reaching past the seams into the runtime and the store, as
 * the old fault modules effectively did) fail it, and so do invalid HTTP watch streams.
 */
const target: RealismTarget = { name: ordinalMembers.name, controllers: ordinalMembers.controllers, options: { ...ordinalMembers.options, maxObjects: 1, maxActions: 1 } };

function informers(world: World): Informer[] {
  return world.managers.flatMap((m) => m.instances).flatMap((i) => i.allInformers());
}

/** Delivers an older version of an object after a newer one (the old reordering and stale reads). */
const timeMachine: FaultModule = defineFault({
  kind: 'test-time-machine',
  models: 'an informer that applies an older event after a newer one (unrealistic on purpose)',
  survivedBy: 'nothing: a real control plane never does this',
  actsOn: 'watch',
  arbitrary: () => fc.constant([{ kind: 'test-time-machine' }]),
  install({ world, fired }) {
    const first = new Map<string, WatchEvent>();
    return world.seams.install({
      onWatchEvent(i) {
        const k = `${i.controller}/${i.kind}/${i.event.object.metadata.name}`;
        const old = first.get(k);
        if (!old) {
          first.set(k, i.event);
          return undefined;
        }
        const inf = informers(world).find((x) => x.kind === i.kind)!;
        const raw = inf as unknown as { generation: number; deliver(e: { ev: WatchEvent; seq: number; key: string }, gen: number): void };
        world.kernel.after(50, () => raw.deliver({ ev: old, seq: i.seq, key: keyOf(old.object.metadata) }, raw.generation));
        fired({ key: k });
        return undefined;
      },
    });
  },
});

/** Changes an immutable field of a Pod behind the store's back (the old drift "modify"). */
const forger: FaultModule = defineFault({
  kind: 'test-forger',
  models: 'a write that bypasses validation (unrealistic on purpose)',
  survivedBy: 'nothing',
  actsOn: 'environment',
  arbitrary: () => fc.constant([{ kind: 'test-forger' }]),
  install({ world, fired }) {
    let done = false;
    world.afterWrite.push((w) => {
      if (done || w.kind !== 'Pod' || w.verb === 'create' || w.rv === undefined || w.removed) return;
      const pods = (world.store as unknown as { kinds: Map<string, { objects: Map<string, { spec: Record<string, unknown>; metadata: Record<string, unknown> }> }> }).kinds.get('Pod')!.objects;
      const pod = pods.get(w.key);
      if (!pod) return;
      done = true;
      // a new version of the Pod with its volumes gone: kube-apiserver refuses that update
      pods.set(w.key, { ...pod, spec: { ...pod.spec, volumes: [] }, metadata: { ...pod.metadata, resourceVersion: `${w.rv}-forged` } });
      fired({ key: w.key });
    });
    return () => {
      done = true;
    };
  },
});

/** Loses every notification of the run, whoever it is for (event loss before it learned of predicates). */
const loseAll: FaultModule = defineFault({
  kind: 'test-lose-all',
  models: 'notifications lost between informer and workqueue for any controller (unrealistic on purpose)',
  survivedBy: 'resync, unless a predicate filters it',
  actsOn: 'notify',
  arbitrary: () => fc.constant([{ kind: 'test-lose-all' }]),
  install({ world, fired }) {
    return world.seams.install({
      onNotify(i) {
        fired({ key: i.key });
        return 'drop';
      },
    });
  },
});

/** Ends an informer's watch stream without telling it (the informer holding a dead stream: how a re-watch bug looked). */
const deafener: FaultModule = defineFault({
  kind: 'test-deafener',
  models: 'a watch stream that dies with its informer none the wiser (unrealistic on purpose)',
  survivedBy: 'nothing before the settle phase relists',
  actsOn: 'watch',
  arbitrary: () => fc.constant([{ kind: 'test-deafener' }]),
  install({ world, fired }) {
    let done = false;
    return world.seams.install({
      onWatchEvent(i) {
        if (done || i.kind !== 'Pod') return undefined;
        done = true;
        const inf = informers(world).find((x) => x.kind === i.kind)!;
        (inf as unknown as { watch?: { stop(): void } }).watch?.stop();
        fired({ key: i.event.object.metadata.name });
        return undefined;
      },
    });
  },
});

describe('the realism law fails on unrealistic fault modules', () => {
  it('(f): an informer left holding a dead watch stream, deaf until the settle phase', { timeout: 30_000 }, async () => {
    const r = await realismCheck([deafener], target, { runs: 3, seed: 1 });
    expect(r.failure).toMatch(/^\(f\) informer quorum\/0\/Pod went deaf: nothing reached it on its watch stream and it never listed again by the settle phase at t=30000, though the change of Pod default\/etcd-0-\d stored at t=\d+ \(rv \d+\) had not reached it/);
    // a stream cut again and again is behind, not deaf; a relist or a crash ends the obligation
    const ev = (t: number, rv: number, decision = 'deliver') => ({ t, type: 'watch:event' as const, controller: 'c', replica: 0, kind: 'K', key: 'd/a', event: 'MODIFIED', rv, decision, seq: 0 });
    const write = (t: number, rv: number) => ({ t, type: 'store:write' as const, kind: 'K', key: 'd/a', rv, noop: false });
    const start = [{ t: 0, type: 'informer:list' as const, controller: 'c', replica: 0, kind: 'K', count: 0, rv: 0 }];
    const settle = { t: 30_000, type: 'run:phase' as const, phase: 'settle' };
    expect(livenessViolations([...start, write(1, 2), ev(1000, 2, 'disconnect'), settle])).toHaveLength(1);
    expect(livenessViolations([...start, write(1, 2), ...Array.from({ length: 29 }, (_, i) => ev(1000 * (i + 1), 2, 'disconnect')), settle])).toEqual([]);
    expect(livenessViolations([...start, write(1, 2), ev(1000, 2, 'disconnect'), { t: 2000, type: 'informer:relist' as const, controller: 'c', replica: 0, kind: 'K', count: 1, rv: 2 }, settle])).toEqual([]);
    expect(livenessViolations([...start, write(1, 2), { t: 5, type: 'controller:crash' as const, controller: 'c', replica: 0 }, settle])).toEqual([]);
    // a change stored less than LIVENESS_MS before the settle phase may still be on its way
    expect(livenessViolations([...start, write(20_000, 2), settle])).toEqual([]);
  });

  it('(e): a lost notification that a GenerationChanged predicate never lets resync repair', { timeout: 30_000 }, async () => {
    const ff: RealismTarget = { name: featureFlags.name, controllers: featureFlags.controllers, options: { ...featureFlags.options, maxActions: 1 } };
    const r = await realismCheck([loseAll], ff, { runs: 3, seed: 1 });
    expect(r.failure).toMatch(/^\(e\) the ADDED notification of FeatureFlag default\/checkout-\d to feature-flags was lost at t=\d+, and feature-flags's GenerationChanged predicate filters the resyncs that would repair it/);
    // the same loss is fair for a controller without the predicate (resync repairs it) and for a DELETED
    const notify = (controller: string, event: string, kind = 'K') => ({ t: 1, type: 'informer:notify' as const, controller, replica: 0, kind, key: 'd/a', event, decision: 'drop', seq: 0 });
    const record = { controllers: ['p', 'q'], primaryKinds: ['K', 'K'], resyncFilteredBy: ['p'] };
    expect(notificationViolations({ ...record, trace: [notify('q', 'ADDED'), notify('p', 'DELETED'), notify('p', 'ADDED', 'ConfigMap')] })).toEqual([]);
    expect(notificationViolations({ ...record, trace: [notify('p', 'MODIFIED')] })).toHaveLength(1);
  });


  it('(a)/(b): an informer that applies an older version after a newer one', { timeout: 30_000 }, async () => {
    const r = await realismCheck([timeMachine], target, { runs: 5, seed: 1 });
    expect(r.failure).toMatch(/^\((a|b)\) /);
    expect(r.failure).toMatch(/went from rv \d+ back to rv \d+|after rv \d+ on the same stream/);
  });

  it('(c): an object changed in a way the API server refuses', { timeout: 30_000 }, async () => {
    const r = await realismCheck([forger], target, { runs: 5, seed: 1 });
    expect(r.failure).toMatch(/^\(c\) Pod .* changed in a way the API server refuses .*: spec: Forbidden: pod updates may not change fields/);
  });

  it('(a): a relist that goes back without a recorded time travel', () => {
    const trace = [
      { t: 1, type: 'watch:event' as const, controller: 'c', replica: 0, kind: 'K', key: 'a', event: 'ADDED', rv: 5, decision: 'deliver', seq: 0 },
      { t: 2, type: 'informer:relist' as const, controller: 'c', replica: 0, kind: 'K', count: 1, rv: 3 },
    ];
    expect(watchViolations(trace)).toEqual(['(a) c/0/K relisted at rv 3 at t=2 after it held rv 5, with no time travel recorded']);
    const travel = (extra: Record<string, unknown>) => [trace[0]!, { t: 2, type: 'informer:time-travel' as const, controller: 'c', replica: 0, kind: 'K', fromRv: 6, toRv: 3, cachedRv: 5, ...extra }, trace[1]!];
    // a restarted process's first list, or a resourceVersion=0 list a client asked for over HTTP, may go back
    expect(watchViolations(travel({ reason: 'restart' }))).toEqual([]);
    expect(watchViolations(travel({ reason: 'relist', via: 'http' }))).toEqual([]);
    // a reflector's relist never does: it asks for data not older than what it observed
    expect(watchViolations(travel({ reason: 'relist' }))).toEqual(['(a) c/0/K relisted back in time at t=2 (rv 3 after it held rv 5): a reflector\'s relist is never older than the last resourceVersion it observed']);
  });

  it('(d): HTTP watch streams that kube-apiserver would never send', () => {
    const line = (stream: number, obj: unknown) => ({ stream, actor: 'controller:x/0', kind: 'ConfigMap', text: `${JSON.stringify(obj)}\n` });
    const cm = (name: string, rv: number) => ({ type: 'MODIFIED', object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'd', resourceVersion: String(rv) } } });
    expect(streamViolations([line(1, cm('a', 5)), line(1, cm('b', 3))])).toEqual(['(d) stream 1 (controller:x/0 watching ConfigMap): resourceVersion 3 after 5']);
    expect(streamViolations([line(2, { type: 'ERROR', object: { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 410 } }), line(2, cm('a', 6))])[0]).toMatch(/a line after its ERROR event/);
    expect(streamViolations([line(3, { type: 'ERROR', object: { message: 'oops' } })])[0]).toMatch(/an ERROR event without a Failure Status/);
    expect(streamViolations([{ stream: 4, actor: 'a', kind: 'ConfigMap', text: '{"type":"ADDED"\n' }])[0]).toMatch(/not JSON/);
    expect(streamViolations([line(5, { type: 'SOMETHING', object: {} })])[0]).toMatch(/not a watch event/);
    // valid: initial ADDED events in key order, then events in resourceVersion order, a bookmark, an ERROR last
    const valid = [
      line(6, { ...cm('b', 7), type: 'ADDED' }),
      line(6, { ...cm('a', 9), type: 'ADDED' }),
      line(6, cm('a', 10)),
      line(6, { type: 'BOOKMARK', object: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: '11' } } }),
      line(6, { type: 'ERROR', object: { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 410, reason: 'Expired' } }),
    ];
    expect(streamViolations(valid)).toEqual([]);
  });
});
