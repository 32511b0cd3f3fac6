import { describe, expect, it } from 'vitest';
import { podLifecycle } from '../../src/environment/pod-lifecycle.js';
import { ScenarioError } from '../../src/harness/simulate.js';
import { condition, create, find, nonEnvironmentWrites, obj, ofKind, pod, runEnv, stepTimes } from './helpers.js';

describe('podLifecycle', () => {
  it('takes a pod Pending → scheduled → Running → Ready on the documented timing, with conditions', async () => {
    const { run } = await runEnv({ environment: [{ name: 'pod-lifecycle' }], workload: [create(1000, pod('web'))] });
    expect(stepTimes(run, 'pod:scheduled', 'default/web')).toEqual([1100]);
    expect(stepTimes(run, 'pod:running', 'default/web')).toEqual([2100]);
    expect(stepTimes(run, 'pod:ready', 'default/web')).toEqual([3100]);
    const p = find(run.finalObjects, 'Pod', 'default/web')!;
    expect(p.status['phase']).toBe('Running');
    expect(p.spec['nodeName']).toMatch(/^node-[012]$/);
    expect(p.status['hostIP']).toBe(`10.0.0.${Number(String(p.spec['nodeName']).slice(5)) + 1}`);
    expect(condition(p, 'PodScheduled')).toEqual({ status: 'True', at: 1100 });
    expect(condition(p, 'Initialized')?.status).toBe('True');
    expect(condition(p, 'ContainersReady')).toEqual({ status: 'True', at: 3100 });
    expect(condition(p, 'Ready')).toEqual({ status: 'True', at: 3100 });
    expect(p.status['containerStatuses']).toEqual([expect.objectContaining({ name: 'app', ready: true, restartCount: 0, state: { running: { startedAt: '2026-01-01T00:00:02.100Z' } } })]);
    // every write is the environment's or the user's, recorded as environment:pod-lifecycle
    expect(nonEnvironmentWrites(run)).toEqual([]);
    expect(new Set(run.writes.filter((w) => w.actor !== 'user').map((w) => w.actor))).toEqual(new Set(['environment:pod-lifecycle']));
  });

  it('binds as kube-scheduler does, through the binding subresource (an update may not set nodeName), and leaves a gated pod unbound until its gates go', async () => {
    const gated = pod('gated', { schedulingGates: [{ name: 'example.com/quota' }] });
    const { run } = await runEnv({ environment: [{ name: 'pod-lifecycle' }], workload: [create(0, pod('web')), create(0, gated), { at: 5000, type: 'patch', kind: 'Pod', key: 'default/gated', patch: { spec: { schedulingGates: null } } }] });
    expect(run.writes.filter((w) => w.changed.includes('spec.nodeName')).map((w) => `${w.verb} ${w.key} ${w.t}`)).toEqual(['bind default/web 100', 'bind default/gated 5000']);
    expect(stepTimes(run, 'pod:scheduled', 'default/gated')).toEqual([5000]);
    const p = find(run.finalObjects, 'Pod', 'default/gated')!;
    expect(p.spec['nodeName']).toMatch(/^node-[012]$/);
    expect(condition(p, 'PodScheduled')).toEqual({ status: 'True', at: 5000 });
    const { run: early } = await runEnv({ environment: [{ name: 'pod-lifecycle' }], workload: [create(0, gated)] });
    const waiting = find(early.finalObjects, 'Pod', 'default/gated')!;
    expect(waiting.spec['nodeName']).toBeUndefined();
    expect(waiting.status['conditions']).toEqual([expect.objectContaining({ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated' })]);
  });

  it('honours its timing parameters', async () => {
    const { run } = await runEnv({ environment: [{ name: 'pod-lifecycle', params: { scheduleMs: 0, startMs: 300, readyMs: 50 } }], workload: [create(0, pod('web'))] });
    expect(stepTimes(run, 'pod:ready', 'default/web')).toEqual([350]);
  });

  it('spreads one owner\'s pods over consecutive nodes, placed by identity rather than history', async () => {
    const web = (extra = {}) => ({ ...pod(''), metadata: { generateName: 'web-', namespace: 'default', ...extra } });
    const placed = async (first: boolean) => {
      const { run } = await runEnv({ environment: [{ name: 'pod-lifecycle' }], workload: [...(first ? [create(0, pod('other'))] : []), create(0, web()), create(0, web()), create(0, web())] });
      return ofKind(run.finalObjects, 'Pod')
        .filter((p) => p.metadata.generateName === 'web-')
        .map((p) => `${String(p.spec['nodeName'])} ${String(p.status['podIP'])}`)
        .sort();
    };
    const a = await placed(false);
    expect(new Set(a.map((x) => x.split(' ')[0]))).toEqual(new Set(['node-0', 'node-1', 'node-2']));
    expect(new Set(a.map((x) => x.split(' ')[1])).size).toBe(3);
    // another pod scheduled first (a different history) changes nothing for these
    expect(await placed(true)).toEqual(a);
  });

  it('keeps a pod whose claim is not Bound unschedulable, then schedules it once the claim binds', async () => {
    const claim = obj('PersistentVolumeClaim', 'data', { resources: { requests: { storage: '5Gi' } } });
    const { run } = await runEnv({
      environment: [{ name: 'pod-lifecycle' }, { name: 'pvc-binding', params: { bindMs: 4000 } }],
      workload: [create(0, claim), create(0, pod('db', { volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data' } }] }))],
    });
    expect(stepTimes(run, 'pod:scheduled', 'default/db')).toEqual([4000]);
    expect(stepTimes(run, 'pod:ready', 'default/db')).toEqual([6000]);
    const w = run.writes.find((x) => x.kind === 'Pod' && x.verb === 'patchStatus')!;
    expect(w.t).toBe(100); // the Unschedulable condition
  });

  it('completes a pod annotated with a run time (Succeeded), or fails it with an exit code under restartPolicy Never', async () => {
    const { run } = await runEnv({
      environment: [{ name: 'pod-lifecycle' }],
      workload: [
        create(0, pod('ok', { restartPolicy: 'Never' }, { annotations: { 'steadystate.dev/run-ms': '500' } })),
        create(0, pod('bad', { restartPolicy: 'Never' }, { annotations: { 'steadystate.dev/run-ms': '500', 'steadystate.dev/exit-code': '3' } })),
      ],
    });
    const ok = find(run.finalObjects, 'Pod', 'default/ok')!;
    expect(ok.status['phase']).toBe('Succeeded');
    expect(condition(ok, 'Ready')?.status).toBe('False');
    expect(stepTimes(run, 'pod:exit', 'default/ok')).toEqual([1600]);
    expect(find(run.finalObjects, 'Pod', 'default/bad')!.status['phase']).toBe('Failed');
  });

  it('restarts an exited container under restartPolicy Always with a doubling back-off', async () => {
    const { run } = await runEnv({
      environment: [{ name: 'pod-lifecycle', params: { crashBackoffMs: 1000 } }],
      workload: [create(0, pod('flaky', {}, { annotations: { 'steadystate.dev/run-ms': '100', 'steadystate.dev/exit-code': '1' } }))],
      faultWindowMs: 10_000,
      settleMs: 0,
    });
    // runs at 1.1 s, exits 0.1 s later; restarts after 1 s, 2 s, 4 s of back-off
    expect(stepTimes(run, 'pod:crash', 'default/flaky')).toEqual([1200, 2300, 4400, 8500]);
    expect(stepTimes(run, 'pod:running', 'default/flaky')).toEqual([1100, 2200, 4300, 8400]);
    const p = find(run.finalObjects, 'Pod', 'default/flaky')!;
    expect(p.status['phase']).toBe('Running');
    expect(p.status['containerStatuses']).toEqual([expect.objectContaining({ restartCount: 4, state: { waiting: expect.objectContaining({ reason: 'CrashLoopBackOff' }) } })]);
  });

  it('rejects unknown and mistyped parameters with a message naming the actor and the fix', () => {
    expect(() => podLifecycle.resolve({ readyMS: 5 })).toThrow(ScenarioError);
    expect(() => podLifecycle.resolve({ readyMS: 5 })).toThrow(/steadystate\.environment\(pod-lifecycle\): "readyMS" is not a parameter of this actor \(known: scheduleMs, startMs, readyMs/);
    expect(() => podLifecycle.resolve({ readyMs: '5' })).toThrow(/params\.readyMs must be a number/);
    expect(() => podLifecycle.resolve({ nodes: 0 })).toThrow(/params\.nodes must be a number ≥ 1/);
    expect(podLifecycle.resolve({ readyMs: 5 })).toMatchObject({ readyMs: 5, startMs: 1000 });
  });
});
