import { describe, expect, it } from 'vitest';
import { build } from '../../properties/_internals/timeline.js';
import { create, obj, runEnv } from './helpers.js';

/**
 * Each environment sync that writes records why it ran (an `environment:sync` entry before its
 * first write): the resourceVersions of the writes whose events started it, or `external` for the
 * settle, a fault or its start; a sync its own timer started inherits the causes of the sync that
 * set the timer. no-hot-loop follows these causes (scheduled.ts): the
 * environment moves on its own, or only because a controller wrote (h48).
 */
describe('environment:sync causes', () => {
  it("a Deployment's ReplicaSet answers the Deployment's write; a pod turning Running on the kubelet's timer answers what set the timer", async () => {
    const template = { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'web:1' }] } };
    const { run } = await runEnv({ environment: [{ name: 'pod-lifecycle' }, { name: 'deployment' }], workload: [create(0, obj('Deployment', 'web', { replicas: 1, selector: { matchLabels: { app: 'web' } }, template }))], faultWindowMs: 100, settleMs: 3000 });
    const tl = build(run.trace);
    const userCreate = tl.writes.find((w) => w.actor === 'user' && w.kind === 'Deployment')!;
    const rsCreate = tl.writes.find((w) => w.actor === 'environment:deployment' && w.verb === 'create' && w.kind === 'ReplicaSet')!;
    expect(rsCreate.envCause).toEqual({ events: [userCreate.rv], external: false });
    // scheduled at 0.1 s, Running 1 s later (startMs)
    const startedAt = run.trace.find((e) => e.type === 'environment:step' && e['step'] === 'pod:running')!.t;
    const running = tl.writes.find((w) => w.actor === 'environment:pod-lifecycle' && w.t === startedAt && w.changed.includes('status.phase'))!;
    // the kubelet's timer was set by the sync that scheduled the Pod: the Running write inherits that
    // sync's causes (the Pod's own writes, back to its creation by the ReplicaSet), so a Pod a
    // controller's write brought about is no clock of its own (h49)
    expect(running.envCause?.external).toBe(false);
    expect(running.envCause?.events.length).toBeGreaterThan(0);
    expect(running.envCause?.events.every((rv) => tl.writes.some((w) => w.rv === rv && w.kind === 'Pod' && w.key === running.key))).toBe(true);
    // one entry per writing sync, none for a sync that wrote nothing
    const syncs = run.trace.filter((e) => e.type === 'environment:sync');
    expect(syncs.length).toBeGreaterThan(0);
    expect(syncs.length).toBeLessThanOrEqual(tl.writes.filter((w) => w.actor.startsWith('environment:')).length);
  });
});
