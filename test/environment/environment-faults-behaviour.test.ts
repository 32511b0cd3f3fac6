import { describe, expect, it } from 'vitest';
import { condition, create, find, obj, ofKind, pod, runEnv, statusAt, stepTimes, watchStatus } from './helpers.js';

const kubelet = [{ name: 'pod-lifecycle' }];
const plan = (events: { kind: string; [k: string]: unknown }[]) => ({ events: events as never, background: [] });

describe('environment-pod-never-ready', () => {
  it('keeps the picked pod Running but not Ready until faults stop, and leaves the others alone', async () => {
    const { run } = await runEnv({ environment: kubelet, workload: [create(0, pod('a')), create(0, pod('b'))], faults: plan([{ kind: 'environment-pod-never-ready', nth: 1 }]) });
    expect(stepTimes(run, 'pod:ready', 'default/a')).toEqual([2100]);
    expect(stepTimes(run, 'pod:ready', 'default/b')).toEqual([10_000]);
    expect(run.trace.filter((e) => e.type === 'fault:inject')).toEqual([expect.objectContaining({ kind: 'environment-pod-never-ready', key: 'default/b', nth: 1, step: 'pod:ready' })]);
  });

  it('with `at`, takes readiness away from pods that already had it (target narrows by key prefix)', async () => {
    const { run } = await runEnv({
      environment: kubelet,
      workload: [create(0, pod('web-1')), create(0, pod('db-1'))],
      faults: plan([{ kind: 'environment-pod-never-ready', at: 5000, target: 'default/web-' }]),
      options: { probes: [watchStatus('Pod', 'default/web-1', 6000)] },
    });
    expect(stepTimes(run, 'pod:unready', 'default/web-1')).toEqual([5000]);
    expect(statusAt(run, 'Pod', 'default/web-1', 6000)).toMatchObject({ phase: 'Running', conditions: expect.arrayContaining([expect.objectContaining({ type: 'Ready', status: 'False' })]) });
    expect(stepTimes(run, 'pod:ready', 'default/web-1')).toEqual([2100, 10_000]);
    expect(stepTimes(run, 'pod:unready', 'default/db-1')).toEqual([]);
  });
});

describe('environment-crash-looping-pod', () => {
  it('crashes the pod at its readiness step, restarts it with back-off in phase Running, and lets it recover when faults stop', async () => {
    const { run } = await runEnv({ environment: [{ name: 'pod-lifecycle', params: { crashBackoffMs: 2000 } }], workload: [create(0, pod('a'))], faults: plan([{ kind: 'environment-crash-looping-pod', nth: 0 }]), options: { probes: [watchStatus('Pod', 'default/a', 9000)] } });
    // back-off 2 s, then 4 s: crashes at its readiness step 1 s after each start
    expect(stepTimes(run, 'pod:crash', 'default/a')).toEqual([2100, 5100]);
    const during = statusAt(run, 'Pod', 'default/a', 9000)!;
    expect(during['phase']).toBe('Running');
    expect(during['containerStatuses']).toEqual([expect.objectContaining({ ready: false, restartCount: 2, state: { waiting: expect.objectContaining({ reason: 'CrashLoopBackOff' }) }, lastState: { terminated: expect.objectContaining({ exitCode: 1, message: 'injected by steadystate' }) } })]);
    // faults stop at 10 s, before its third readiness step: that one passes
    expect(stepTimes(run, 'pod:running', 'default/a')).toEqual([1100, 4100, 9100]);
    expect(stepTimes(run, 'pod:ready', 'default/a')).toEqual([10_100]);
    expect(run.trace.filter((e) => e['step'] === 'pod:ready' && e['decision'] === 'fail').map((e) => e.t)).toEqual([2100, 5100]);
  });

  it('with `at`, a Ready pod starts crashing; a crash the fault caused does not outlast it', async () => {
    const { run } = await runEnv({ environment: kubelet, workload: [create(0, pod('a'))], faults: plan([{ kind: 'environment-crash-looping-pod', at: 4000 }]) });
    expect(stepTimes(run, 'pod:crash', 'default/a')).toEqual([4000]);
    // kubelet's 10 s back-off would end at 14 s; the settle phase at 10 s restarts it at once
    expect(stepTimes(run, 'pod:running', 'default/a')).toEqual([1100, 10_000]);
    expect(condition(find(run.finalObjects, 'Pod', 'default/a'), 'Ready')).toEqual({ status: 'True', at: 11_000 });
  });
});

describe('environment-pod-eviction', () => {
  it('evicts every pod on the node at the given time, and only inside the fault window', async () => {
    const { run } = await runEnv({
      environment: [{ name: 'pod-lifecycle', params: { nodes: 2 } }],
      workload: [0, 1, 2, 3, 4, 5].map((i) => create(0, pod(`p${i}`))),
      faults: plan([
        { kind: 'environment-pod-eviction', at: 3000, params: { node: 1 } },
        { kind: 'environment-pod-eviction', at: 12_000, params: { node: 0 } },
      ]),
    });
    const onNode = (n: string) => run.trace.filter((e) => e['step'] === 'pod:scheduled' && e['node'] === n).map((e) => String(e['key'])).sort();
    expect(onNode('node-1').length).toBeGreaterThan(0);
    expect(onNode('node-0').length).toBeGreaterThan(0);
    expect(run.writes.filter((w) => w.actor === 'fault:environment-pod-eviction').map((w) => [w.t, w.verb, w.key])).toEqual(onNode('node-1').map((k) => [3000, 'delete', k]));
    // the second event comes after the fault window (10 s): nothing happens
    expect(ofKind(run.finalObjects, 'Pod').map((p) => `default/${p.metadata.name}`).sort()).toEqual(onNode('node-0'));
    expect(run.trace.filter((e) => e.type === 'fault:inject')).toEqual([expect.objectContaining({ pods: onNode('node-1'), node: 'node-1' })]);
  });

  it('background: every 5 s of the fault window a node fails with the given probability', async () => {
    const { run } = await runEnv({ environment: kubelet, workload: [0, 1, 2, 3, 4, 5].map((i) => create(0, pod(`p${i}`))), faults: { events: [], background: [{ kind: 'environment-pod-eviction', rate: 1 }] }, faultWindowMs: 12_000 });
    const fired = run.trace.filter((e) => e.type === 'fault:inject');
    expect(fired.map((e) => e.t)).toEqual([5000, 10_000]);
    expect(fired.every((e) => e['background'] === true && typeof e['node'] === 'string')).toBe(true);
  });

  it('nth picks one running pod by key order', async () => {
    const { run } = await runEnv({ environment: kubelet, workload: [create(0, pod('b')), create(0, pod('a'))], faults: plan([{ kind: 'environment-pod-eviction', at: 3000, nth: 1 }]) });
    expect(ofKind(run.finalObjects, 'Pod').map((p) => p.metadata.name)).toEqual(['a']);
  });
});

describe('environment-pvc-never-binds', () => {
  it('keeps the claim Pending and its pod unschedulable until faults stop', async () => {
    const { run } = await runEnv({
      environment: [{ name: 'pod-lifecycle' }, { name: 'pvc-binding' }],
      workload: [create(0, obj('PersistentVolumeClaim', 'data')), create(0, pod('db', { volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'data' } }] }))],
      faults: plan([{ kind: 'environment-pvc-never-binds', nth: 0 }]),
      options: { probes: [watchStatus('Pod', 'default/db', 8000)] },
    });
    expect(statusAt(run, 'Pod', 'default/db', 8000)).toMatchObject({ phase: 'Pending', conditions: [expect.objectContaining({ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: 'pod has unbound immediate PersistentVolumeClaims (data)' })] });
    expect(stepTimes(run, 'pvc:bound', 'default/data')).toEqual([10_000]);
    expect(stepTimes(run, 'pod:ready', 'default/db')).toEqual([12_000]);
  });
});

describe('environment-slow-rollout', () => {
  it('delays pod creation and container start by delayMs for the targeted objects', async () => {
    const deploy = (name: string) => obj('Deployment', name, { replicas: 1, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'app', image: 'app:1' }] } } });
    const { run } = await runEnv({
      environment: [{ name: 'pod-lifecycle' }, { name: 'deployment' }],
      workload: [create(0, deploy('slow')), create(0, deploy('fast'))],
      faults: plan([{ kind: 'environment-slow-rollout', target: 'default/slow', params: { delayMs: 3000 } }]),
    });
    const readyAt = (prefix: string) => run.trace.filter((e) => e['step'] === 'pod:ready' && String(e['key']).startsWith(prefix)).map((e) => e.t);
    expect(readyAt('default/fast-')).toEqual([2100]);
    // the ReplicaSet creates its pod 3 s late, and the container starts 3 s late
    expect(readyAt('default/slow-')).toEqual([8100]);
  });
});
