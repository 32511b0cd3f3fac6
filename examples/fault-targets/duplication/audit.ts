import type { FaultPlan, RunRecord, Scenario, StoredObject } from '../../../src/index.js';

/**
 * The audit fixture: every change to a `Config` must leave exactly one `AuditEntry` (an audit
 * log, a change notification, a billing record: a side effect per change). Events are
 * at-least-once, so "per change" must not mean "per reconcile".
 */
export const CONFIG = 'Config';
export const AUDIT = 'AuditEntry';

export interface ConfigSpec {
  data: string;
}
export interface AuditSpec {
  config: string;
  configUid: string;
  generation: number;
  data: string;
}

/** A Config created at t=100 and changed at t=2000. No resync, so only real changes reconcile. */
export function auditScenario(controller: string, faults: FaultPlan, seed = 1): Scenario {
  return {
    seed,
    controllers: [{ name: controller }],
    initialObjects: [],
    workload: [
      { at: 100, type: 'create', object: { kind: CONFIG, metadata: { name: 'app-config', namespace: 'default' }, spec: { data: 'v1' } } },
      { at: 2000, type: 'update', kind: CONFIG, key: 'default/app-config', spec: { data: 'v2' } },
    ],
    faults,
    options: { faultWindowMs: 10_000, settleMs: 10_000 },
  };
}

/** Healthy when no change was audited twice and the current generation was audited. */
export function judgeAudit(run: RunRecord): true | string {
  const entries = run.finalObjects.filter((o) => o.kind === AUDIT) as unknown as StoredObject<AuditSpec>[];
  const seen = new Set<string>();
  for (const e of entries) {
    const id = `${e.spec.configUid}@${e.spec.generation}`;
    if (seen.has(id)) return `generation ${e.spec.generation} of ${e.spec.config} was audited more than once (${entries.filter((x) => `${x.spec.configUid}@${x.spec.generation}` === id).map((x) => x.metadata.name).join(', ')})`;
    seen.add(id);
  }
  for (const c of run.finalObjects.filter((o) => o.kind === CONFIG)) {
    if (!seen.has(`${c.metadata.uid}@${c.metadata.generation}`)) return `generation ${c.metadata.generation} of ${c.metadata.name} was never audited`;
  }
  return true;
}
