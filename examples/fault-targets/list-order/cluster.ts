import type { FaultPlan, RunRecord, Scenario, StoredObject } from '../../../src/index.js';

/**
 * The cluster fixture: a `Cluster` runs `spec.members` `Member` objects named by ordinal
 * (`db-0`, `db-1`, …; StatefulSet style). Member 0 is the seed that holds the data, so scaling
 * down must remove the highest ordinals first.
 */
export const CLUSTER = 'Cluster';
export const MEMBER = 'Member';

export interface ClusterSpec {
  members: number;
}

/** The ordinal of a member name (`db-2` → 2). */
export function ordinalOf(name: string): number {
  return Number(name.slice(name.lastIndexOf('-') + 1));
}

/** A Cluster of 3 created at t=100, scaled down to 1 at t=2000. */
export function clusterScenario(controller: string, faults: FaultPlan, seed = 1): Scenario {
  return {
    seed,
    controllers: [{ name: controller }],
    initialObjects: [],
    workload: [
      { at: 100, type: 'create', object: { kind: CLUSTER, metadata: { name: 'db', namespace: 'default' }, spec: { members: 3 } } },
      { at: 2000, type: 'update', kind: CLUSTER, key: 'default/db', spec: { members: 1 } },
    ],
    faults,
    options: { faultWindowMs: 10_000, settleMs: 10_000 },
  };
}

/** Healthy when the members are exactly ordinals 0..n-1, and member 0 was never deleted. */
export function judgeCluster(run: RunRecord): true | string {
  const c = run.finalObjects.find((o) => o.kind === CLUSTER) as unknown as StoredObject<ClusterSpec> | undefined;
  if (!c) return 'the Cluster is gone';
  const names = run.finalObjects.filter((o) => o.kind === MEMBER).map((o) => o.metadata.name).sort();
  const want = Array.from({ length: c.spec.members }, (_, i) => `${c.metadata.name}-${i}`);
  const seedDeleted = run.writes.find((w) => w.kind === MEMBER && w.verb === 'delete' && w.key.endsWith(`/${c.metadata.name}-0`));
  if (seedDeleted) return `the seed member ${c.metadata.name}-0 was deleted by ${seedDeleted.actor} at t=${seedDeleted.t} (members now: ${names.join(', ') || 'none'})`;
  if (names.join() !== want.join()) return `members are [${names.join(', ')}], expected [${want.join(', ')}]`;
  return true;
}
