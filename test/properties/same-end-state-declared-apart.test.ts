import { describe, expect, it } from 'vitest';
import { sameEndState } from '../../properties/same-end-state.js';
import { declaredApart, refusedObjects } from '../../properties/_internals/refused-in-twin.js';
import type { StateDifference } from '../../properties/_internals/normalize.js';
import { sandboxController } from '../../examples/false-positives/sandbox-ttl.js';
import { podLifecycle, type RunRecord, type Scenario } from '../../src/index.js';
import type { TraceEntry } from '../../src/sim/trace.js';
import { judgeScenario } from '../helpers/property-laws.js';

describe('same-end-state: objects the two runs declared differently are not compared', () => {
  it('a TTL extension refused in the fault-free run (the Sandbox had expired there) and accepted under faults passes', async () => {
    // found by bench/hunt-fp-rate.ts on the corpus' sandbox-ttl (seed 1, run 511): the Sandbox's
    // ADDED event is lost, so the controller first sees it after the user extended its TTL at 30 s;
    // fault-free it expired at 20.9 s and the user's update was answered NotFound
    const s = {
      seed: 27,
      controllers: [{ name: 'sandbox' }],
      environment: [{ name: 'pod-lifecycle' }],
      initialObjects: [],
      workload: [
        { at: 900, type: 'create', object: { kind: 'Sandbox', metadata: { name: 'pr-0', namespace: 'default' }, spec: { image: 'preview:1', ttlMs: 20000 } } },
        { at: 30000, kind: 'Sandbox', key: 'default/pr-0', type: 'update', spec: { image: 'preview:2', ttlMs: 120000 } },
      ],
      faults: {
        events: [{ kind: 'list-order', nth: 10, params: { order: 65 } }, { kind: 'environment-pod-never-ready', nth: 0 }, { kind: 'environment-pvc-never-binds', nth: 1 }, { kind: 'environment-slow-rollout', params: { delayMs: 6381 } }],
        background: [{ kind: 'event-loss', rate: 0.31 }, { kind: 'crash-restart', rate: 0.044 }, { kind: 'environment-pod-never-ready', rate: 0.04 }, { kind: 'environment-pvc-never-binds', rate: 0.27 }, { kind: 'environment-slow-rollout', rate: 0.12, params: { delayMs: 1000 } }],
      },
    } as Scenario;
    const { verdict, run, twin } = await judgeScenario(sameEndState(), s, { controllers: [sandboxController], options: { environment: [podLifecycle] } });
    expect(refusedObjects(twin!).get('Sandbox default/pr-0')).toBe('NotFound');
    expect(refusedObjects(run).size).toBe(0);
    expect(run.settledObjects.some((o) => o.kind === 'Sandbox')).toBe(true);
    expect(verdict.ok).toBe(true);
    if (!verdict.ok) return;
    expect(verdict.stats?.['declaredApart']).toEqual(['Pod default/pr-0-env (owned by Sandbox default/pr-0)', "Sandbox default/pr-0 (the user's last action on it was refused in the fault-free run: NotFound)"]);
  });

  // synthetic runs: what the rule keeps and what it leaves out
  const sandbox = { kind: 'Sandbox', apiVersion: 'v1', metadata: { name: 'a', namespace: 'default', uid: 'u1', ownerReferences: [], labels: {}, annotations: {}, finalizers: [] }, spec: {}, status: {} };
  const pod = { ...sandbox, kind: 'Pod', metadata: { ...sandbox.metadata, name: 'a-env', uid: 'u2', ownerReferences: [{ apiVersion: 'v1', kind: 'Sandbox', name: 'a', uid: 'u1', controller: true }] } };
  const action = (error?: string): TraceEntry => ({ t: 5, type: 'user:action', action: 'update', kind: 'Sandbox', key: 'default/a', ...(error ? { error } : {}) });
  const record = (trace: TraceEntry[], objects: unknown[], writes: unknown[] = []) => ({ trace, writes, settledObjects: objects }) as unknown as RunRecord;
  const deleteBy = (actor: string, kind = 'Sandbox', key = 'default/a') => ({ t: 3, actor, verb: 'delete', kind, key, changed: [], noop: false });
  const diff = (id: string): StateDifference => ({ id, change: 'extra', paths: [], leaves: [], expected: undefined, actual: {} });

  it('a refusal only under faults stays compared when someone but the user deleted the object or its namespace (a wrong delete makes the user\'s update fail: a bug)', () => {
    for (const del of [deleteBy('controller:sandbox/0'), deleteBy('gc'), deleteBy('controller:tenant/0', 'Namespace', 'default')]) {
      const { kept, left } = declaredApart([diff('Sandbox default/a'), diff('Pod default/a-env')], record([action('NotFound')], [], [del]), record([action()], [sandbox, pod]));
      expect(kept.map((d) => d.id)).toEqual(['Sandbox default/a', 'Pod default/a-env']);
      expect(left).toEqual([]);
    }
  });

  it('a refusal only under faults that no one\'s delete explains leaves the object and what it owns uncompared (a resize refused while a fault kept the claim unbound)', () => {
    const { kept, left } = declaredApart([diff('Sandbox default/a'), diff('Pod default/a-env'), diff('Sandbox default/b')], record([action('Invalid')], [], [deleteBy('user')]), record([action()], [sandbox, pod]));
    expect(kept.map((d) => d.id)).toEqual(['Sandbox default/b']);
    expect(left).toEqual(["Sandbox default/a (the user's last action on it was refused in this run: Invalid)", 'Pod default/a-env (owned by Sandbox default/a)']);
  });

  it('a refusal in both runs, or in neither, stays compared; other objects stay compared', () => {
    expect(declaredApart([diff('Sandbox default/a')], record([action('NotFound')], []), record([action('NotFound')], [])).left).toEqual([]);
    expect(declaredApart([diff('Sandbox default/a')], record([action()], [sandbox]), record([action()], [])).left).toEqual([]);
    const { kept } = declaredApart([diff('Sandbox default/b'), diff('Pod default/a-env')], record([action()], [sandbox, pod]), record([action('NotFound')], []));
    expect(kept.map((d) => d.id)).toEqual(['Sandbox default/b']);
  });
});
