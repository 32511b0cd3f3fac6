import { describe, expect, it } from 'vitest';
import { defineEnvironmentActor } from '../../src/environment/define-environment-actor.js';
import { ScenarioError } from '../../src/harness/simulate.js';
import { fromVirtualTimestamp, type JsonObject } from '../../src/store/object.js';
import { create, envScenario, find, obj, runEnv } from './helpers.js';
import { simulate } from '../../src/simulate.js';

/** The TSDoc example: a Certificate issued issueMs after it is created. */
const certIssuer = defineEnvironmentActor<{ issueMs: number }>({
  name: 'cert-issuer',
  description: 'issues a Certificate some time after it is created',
  defaults: { issueMs: 2000 },
  for: 'Certificate',
  sync(ctx) {
    const cert = ctx.object;
    if (!cert || cert.status['ready'] === true) return;
    const due = fromVirtualTimestamp(cert.metadata.creationTimestamp) + ctx.params.issueMs;
    if (ctx.now() < due) return { afterMs: due - ctx.now() };
    ctx.patchStatus('Certificate', ctx.key, { status: { ready: true } });
    ctx.record('certificate:issued', { key: ctx.key });
    return undefined;
  },
});

describe('defineEnvironmentActor', () => {
  it('runs a user-written actor: level-triggered syncs, timers, writes recorded as environment:<name>', async () => {
    const { run } = await runEnv({ actors: [certIssuer], environment: [{ name: 'cert-issuer', params: { issueMs: 1500 } }], workload: [create(500, obj('Certificate', 'web'))] });
    expect(run.writes.filter((w) => w.kind === 'Certificate').map((w) => [w.t, w.actor, w.verb])).toEqual([
      [500, 'user', 'create'],
      [2000, 'environment:cert-issuer', 'patchStatus'],
    ]);
    expect(run.trace.filter((e) => e.type === 'environment:step').map((e) => [e.t, e['step']])).toEqual([
      [0, 'actor:start'],
      [2000, 'certificate:issued'],
    ]);
  });

  it('sees and keeps every top-level field: an actor reads ConfigMap data and patches it', async () => {
    const bumper = defineEnvironmentActor({
      name: 'bumper',
      description: 'copies data.source into data.copy',
      defaults: {},
      for: 'ConfigMap',
      sync(ctx) {
        const cm = ctx.object;
        if (!cm) return undefined;
        const data = (cm['data'] ?? {}) as Record<string, string>;
        if (data['copy'] !== data['source']) ctx.patch('ConfigMap', ctx.key, { data: { copy: data['source'] ?? '' } });
        return undefined;
      },
    });
    const cm = { kind: 'ConfigMap', metadata: { name: 'app', namespace: 'default', labels: { a: '1' } }, data: { source: 'x' }, binaryData: { b: 'AA==' } };
    const { run } = await runEnv({ actors: [bumper], environment: [{ name: 'bumper' }], workload: [create(100, cm)] });
    const final = run.finalObjects.find((o) => o.kind === 'ConfigMap')!;
    expect(final['data']).toEqual({ source: 'x', copy: 'x' });
    expect(final['binaryData']).toEqual({ b: 'AA==' });
  });

  it('skips writes that change nothing (a level-triggered actor may write what it wants on every sync)', async () => {
    let syncs = 0;
    const stamper = defineEnvironmentActor({
      name: 'stamper',
      description: 'writes the same status on every sync',
      defaults: {},
      for: 'Thing',
      sync(ctx) {
        syncs++;
        if (ctx.object) ctx.patchStatus('Thing', ctx.key, { status: { seen: true } });
        return { afterMs: 1000 };
      },
    });
    const { run } = await runEnv({ actors: [stamper], environment: [{ name: 'stamper' }], workload: [create(0, obj('Thing', 'a'))], faultWindowMs: 5000, settleMs: 0 });
    expect(run.writes.filter((w) => w.actor === 'environment:stamper')).toHaveLength(1);
    expect(syncs).toBeGreaterThan(4);
  });

  it('is deterministic: the same scenario gives the same trace hash', async () => {
    const r = { environment: [{ name: 'cluster' }], workload: [create(0, obj('Deployment', 'web', { replicas: 3, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'web:1' }] } } }))], faults: { events: [{ kind: 'environment-crash-looping-pod', nth: 1 }], background: [{ kind: 'environment-slow-rollout', rate: 0.3 }] } };
    const a = await runEnv(r);
    const b = await runEnv(r);
    expect(a.run.hash).toBe(b.run.hash);
    expect(a.run.writes.length).toBeGreaterThan(20);
  });

  it('names the actor and the fix when its sync throws or loops', async () => {
    const thrower = defineEnvironmentActor({ name: 'thrower', description: 'throws', defaults: {}, for: 'Thing', sync: () => { throw new Error('boom'); } });
    await expect(runEnv({ actors: [thrower], environment: [{ name: 'thrower' }], workload: [create(0, obj('Thing', 'a'))] })).rejects.toThrow('steadystate.environment(thrower): sync of Thing default/a threw at t=0 ms: boom');
    let n = 0;
    const looper = defineEnvironmentActor({
      name: 'looper',
      description: 'writes something new every time',
      defaults: {},
      for: 'Thing',
      sync: (ctx) => void ctx.patchStatus('Thing', ctx.key, { status: { n: n++ } }),
    });
    await expect(runEnv({ actors: [looper], environment: [{ name: 'looper' }], workload: [create(0, obj('Thing', 'a'))] })).rejects.toThrow(/steadystate\.environment\(looper\): Thing default\/a was synced 200 times at t=0 ms without virtual time passing/);
  });

  it('rejects an actor listed twice (directly and through the cluster bundle)', async () => {
    await expect(runEnv({ environment: [{ name: 'pod-lifecycle' }, { name: 'cluster' }], workload: [] })).rejects.toThrow(/steadystate\.environment\(pod-lifecycle\): this actor is installed twice/);
  });

  it('the cluster bundle takes each member\'s parameters under its name', async () => {
    const { run } = await runEnv({ environment: [{ name: 'cluster', params: { 'pod-lifecycle': { readyMs: 10 } } }], workload: [create(0, obj('Pod', 'p', { containers: [{ name: 'c', image: 'i' }] }))] });
    expect(find(run.finalObjects, 'Pod', 'default/p')!.status['phase']).toBe('Running');
    expect(run.trace.find((e) => e['step'] === 'pod:ready')!.t).toBe(1110);
    await expect(runEnv({ environment: [{ name: 'cluster', params: { kubelet: {} } }], workload: [] })).rejects.toThrow(/"kubelet" is not a member of the cluster \(members: pod-lifecycle, pvc-binding, deployment, stateful-set, job, disruption\)/);
  });

  it('the public simulate knows the built-in actors by name; an unknown name is a ScenarioError', async () => {
    const s = envScenario({ environment: [{ name: 'pvc-binding' }], workload: [create(0, obj('PersistentVolumeClaim', 'd'))] });
    const { run } = await simulate(s, { controllers: [], tailMs: 0 });
    expect(find(run.finalObjects, 'PersistentVolumeClaim', 'default/d')!.status['phase']).toBe('Bound');
    await expect(simulate({ ...s, environment: [{ name: 'kubelet' }] }, { controllers: [] })).rejects.toThrow(ScenarioError);
  });

  it('validates its definition with messages that name the field', () => {
    expect(() => defineEnvironmentActor({ name: 'Bad Name', description: '', defaults: {}, for: 'X', sync: () => undefined })).toThrow(/name must be kebab-case/);
    expect(() => defineEnvironmentActor({ name: 'x', description: '', defaults: {}, sync: () => undefined })).toThrow(/"for" must name the kind the actor drives/);
    expect(() => defineEnvironmentActor({ name: 'x', description: '', defaults: {} })).toThrow(/an actor with nothing to run does nothing/);
    expect(() => defineEnvironmentActor({ name: 'x', description: '', defaults: [] as unknown as JsonObject, for: 'X', sync: () => undefined })).toThrow(/defaults must be an object/);
  });
});
