import { defineProperty, nothingToJudge, type Verdict } from '../src/harness/property.js';
import type { WorldView } from '../src/harness/world.js';
import { explanation, fmtTime, fmtWrite, letFacts } from '../src/report/explain.js';
import { fmtReconcile } from './_internals/last-actions.js';
import { timelineOf } from './_internals/timeline.js';

/** A safety predicate: true, or false / a string saying why not. @public */
export type Invariant = (view: WorldView) => boolean | string;

/** Options of {@link safetyInvariants}. @public */
export interface SafetyInvariantsOptions {
  /**
   * Named predicates that must hold after every store write, in every phase.
   * @defaultValue {} (nothing to check)
   * @example { 'at most replicas+1 pods': (view) => view.list('Pod').length <= 4 || 'too many pods' }
   */
  invariants: Record<string, Invariant>;
}

const PREFIX = 'safety-invariants:';
/** Writers that are faults changing the world itself, as another actor would (drift, recreation). */
const WORLD_WRITER = /^environment:(drift|recreation)$/;

/**
 * Safety invariants (SPEC §5): user predicates checked after every store write (a probe with
 * `everyMs: 'write'`), e.g. "never more than replicas+1 pods". The explanation names the write
 * that broke the invariant and the reconcile that made it. A state broken by the write of a fault
 * that changes the world as another actor would (drift, recreation) is not judged until the
 * predicate holds again: the controllers are judged on what they write, and on repairing it
 * (convergence).
 * @example properties.safetyInvariants({ invariants: { 'one leader': (v) => v.list('Lease').length <= 1 } })
 * @public
 */
export const safetyInvariants = defineProperty<SafetyInvariantsOptions>({
  name: 'safety-invariants',
  description: 'user predicates hold after every store write',
  defaults: { invariants: {} },
  validate: (o) => {
    if (o.invariants === null || typeof o.invariants !== 'object' || Array.isArray(o.invariants)) return 'invariants must be an object mapping names to predicates (view) => boolean | string';
    const bad = Object.entries(o.invariants).find(([, f]) => typeof f !== 'function');
    return bad ? `invariant ${JSON.stringify(bad[0])} must be a function (view) => boolean | string` : undefined;
  },
  probes: (o) => Object.entries(o.invariants).map(([name, fn]) => ({ name: `${PREFIX}${name}`, everyMs: 'write' as const, phases: ['faults' as const, 'settle' as const, 'tail' as const], fn })),
  judge: (run, o): Verdict => {
    const tl = timelineOf(run);
    // the k-th sample follows the k-th recorded store write (injected api-error entries never reach the store)
    const storeWrites = tl.writes.filter((w) => w.fault === undefined);
    let checked = 0;
    let excused = 0;
    for (const name of Object.keys(o.invariants)) {
      const samples = run.probes[`${PREFIX}${name}`] ?? [];
      checked += samples.length;
      // the write a sample followed (several share one virtual time: the last of them is not the one that broke it)
      const writeOf = (k: number) => {
        const s = samples[k]!;
        return s.write !== undefined && storeWrites.length === run.writes.length ? storeWrites[s.write] : samples.length === storeWrites.length ? storeWrites[k] : [...storeWrites].reverse().find((x) => x.t <= s.t);
      };
      // A state a world-changing fault's own write broke (drift: a person's `kubectl scale` of a
      // ReplicaSet past its Rollout's surge) is that actor's doing, not the controllers': it is not
      // judged until the predicate holds again (the controllers' repair), then every write is.
      let i = -1;
      let held = true;
      for (let k = 0; k < samples.length; k++) {
        const ok = samples[k]!.ok;
        if (ok) held = true;
        else if (held && WORLD_WRITER.test(writeOf(k)?.actor ?? '')) held = false;
        else if (held) {
          i = k;
          break;
        }
        if (!ok) excused++;
      }
      if (i < 0) continue;
      const s = samples[i]!;
      const w = writeOf(i);
      const why = s.detail ?? 'the predicate returned false';
      const then = [w ? `right after ${fmtWrite(w)}, invariant "${name}" failed: ${why}` : `at ${fmtTime(s.t)} invariant "${name}" failed: ${why}`];
      if (w?.reconcile) then.push(`that write was made by the ${fmtReconcile(w.reconcile)}`);
      const again = samples.slice(i).filter((x) => !x.ok).length;
      then.push(`it failed after ${again} of the ${samples.length - i} writes from then on`);
      return {
        ok: false,
        summary: `invariant "${name}" broken at ${fmtTime(s.t)}: ${why}`,
        explanation: explanation(letFacts(run.trace, { until: s.t }), then),
        evidence: { invariant: name, t: s.t, detail: why, write: w ? { t: w.t, actor: w.actor, verb: w.verb, kind: w.kind, key: w.key, changed: w.changed } : null, failedChecks: again },
      };
    }
    if (checked === 0) return nothingToJudge(Object.keys(o.invariants).length === 0 ? 'no invariant was given (options.invariants is empty)' : 'no invariant was checked: no store write happened after its probe was installed', { checks: 0 });
    return { ok: true, stats: { checks: checked, ...(excused > 0 ? { brokenByFaultWrites: excused } : {}) } };
  },
});
