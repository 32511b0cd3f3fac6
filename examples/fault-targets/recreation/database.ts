import type { FaultPlan, RunRecord, Scenario, StoredObject } from '../../../src/index.js';

/**
 * The database fixture: a controller provisions each `Database` (here: reports it Ready for
 * its generation) and remembers, in memory, which generation of which database it already
 * handled, to skip repeated events cheaply.
 */
export const DATABASE = 'Database';

export interface DatabaseSpec {
  version: string;
}
export interface DatabaseStatus {
  phase?: string;
  observedGeneration?: number;
}

/** A Database created at t=100 and upgraded at t=1000 (generation 2). */
export function databaseScenario(controller: string, faults: FaultPlan, seed = 1): Scenario {
  return {
    seed,
    controllers: [{ name: controller }],
    initialObjects: [],
    workload: [
      { at: 100, type: 'create', object: { kind: DATABASE, metadata: { name: 'orders', namespace: 'default' }, spec: { version: '15' } } },
      { at: 1000, type: 'update', kind: DATABASE, key: 'default/orders', spec: { version: '16' } },
    ],
    faults,
    options: { faultWindowMs: 10_000, settleMs: 10_000 },
  };
}

/** Healthy when every Database is Ready at its current generation. */
export function judgeDatabase(run: RunRecord): true | string {
  const dbs = run.finalObjects.filter((o) => o.kind === DATABASE) as unknown as StoredObject<DatabaseSpec, DatabaseStatus>[];
  if (dbs.length === 0) return 'no Database at the end';
  for (const db of dbs) {
    if (db.status.phase !== 'Ready' || db.status.observedGeneration !== db.metadata.generation) {
      return `Database ${db.metadata.name} (uid ${db.metadata.uid}) is ${JSON.stringify(db.status)} at generation ${db.metadata.generation}: it was never provisioned`;
    }
  }
  return true;
}
