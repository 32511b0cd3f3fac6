import { DerivationBuilder, type Derivation, type Strategy } from './strategy.js';
import type { TraceIndex } from './trace-index.js';

/**
 * The primary object deleted and recreated under the same name (Acto's "delete and recreate"):
 * right after each reconcile of it that changed something, and right after each crash, while the
 * controller is down (so it never sees the deletion happen). Pruned: reconciles that changed
 * nothing, and points already covered at the same time.
 */
export const recreateBetweenReconciles: Strategy = {
  name: 'recreation',
  kind: 'recreation',
  derive(ix: TraceIndex): Derivation {
    const b = new DerivationBuilder('recreation');
    const primaries = new Set(ix.run.primaryKinds);
    const done = new Set<string>();
    const add = (t: number, key: string, at: number, why: string) => {
      const id = `${t} ${key}`;
      if (done.has(id)) {
        b.prune('the same object at the same time as another plan');
        return;
      }
      done.add(id);
      b.add({ target: `${key} deleted and recreated at t=${t} ms, ${why}`, events: [{ kind: 'recreation', at: t, target: key, params: { pick: 0, gapMs: 0 } }], at });
    };
    for (const r of ix.reconciles) {
      const kind = ix.run.primaryKinds[ix.run.controllers.indexOf(r.controller)];
      if (kind === undefined || !primaries.has(kind)) continue;
      if (r.steps.length === 0 || !r.endEntry) {
        b.prune('a reconcile that changed nothing (or never ended)');
        continue;
      }
      add(r.endEntry.t + 1, r.key, r.endIndex, `right after ${r.controller}'s reconcile of it that ended at t=${r.endEntry.t} ms`);
    }
    for (const c of ix.crashes) {
      const ci = ix.trace.indexOf(c);
      const keys = new Set(ix.reconciles.filter((r) => r.controller === c['controller'] && r.startIndex < ci).map((r) => r.key));
      for (const key of keys) add(c.t + 1, key, ci, `while ${String(c['controller'])} is down after its crash at t=${c.t} ms`);
    }
    return b.result();
  },
};
