import { defineProperty, type Verdict } from '../src/harness/property.js';
import type { Json } from '../src/store/object.js';
import { explanation, fmtTime, letFacts } from '../src/report/explain.js';
import { lastActions } from './_internals/last-actions.js';
import { compareStates, fmtDifference, normalizeState, uidAliases } from './_internals/normalize.js';
import { firedKinds, healedAt, skipped, stillStalled, WORLD_CHANGING_FAULTS } from './_internals/skip.js';
import { timelineOf } from './_internals/timeline.js';

/** Options of {@link sameEndState}. @public */
export interface SameEndStateOptions {
  /** Fault kinds after which the comparison is skipped: they change the world itself. @defaultValue ['drift', 'recreation', 'environment-pod-eviction', 'environment-crash-looping-pod'] */
  skipUnderFaults: string[];
  /**
   * Field paths left out of the comparison, dotted, `*` for any one segment; `downstream.<service>.<field>`
   * for fake-service resources. The defaults are counters of the path, not the state: a
   * controller that repairs an owned object, or writes it twice because an event came late,
   * bumps its generation (and what reports it) without ending anywhere else. Keep them when you
   * add your own. @defaultValue ['metadata.generation', 'status.observedGeneration']
   */
  masks: string[];
  /** Kinds left out (leader-election Leases differ by timing). @defaultValue ['Lease'] */
  ignoreKinds: string[];
  /** Treat RFC 3339 timestamps anywhere as equal. @defaultValue true */
  normalizeTimestamps: boolean;
  /** Compare the fake downstream services' resources too (ids ignored). @defaultValue true */
  downstream: boolean;
}

/**
 * Same end state as fault-free (SPEC §5): after faults stop and the world settles, it equals the
 * end state of the fault-free twin run of the same scenario, with uids, resourceVersions,
 * timestamps and generated names normalized. Faults a correct reconciler survives change the
 * path, never the destination.
 * @example properties.sameEndState({ masks: ['metadata.generation', 'status.observedGeneration', 'status.lastProbeTime'] })
 * @public
 */
export const sameEndState = defineProperty<SameEndStateOptions>({
  name: 'same-end-state',
  description: 'the settled state equals that of the fault-free twin run (uids, versions, timestamps normalized)',
  defaults: { skipUnderFaults: [...WORLD_CHANGING_FAULTS], masks: ['metadata.generation', 'status.observedGeneration'], ignoreKinds: ['Lease'], normalizeTimestamps: true, downstream: true },
  needsTwin: true,
  validate: (o) => (!Array.isArray(o.masks) || o.masks.some((m) => typeof m !== 'string' || m === '') ? 'masks must be an array of dotted field paths' : !Array.isArray(o.ignoreKinds) ? 'ignoreKinds must be an array of kind names' : undefined),
  judge: (run, o, twin): Verdict => {
    if (!twin) return { ok: true, stats: { judged: false, reason: 'no fault-free twin run was given' } };
    const changed = firedKinds(run, o.skipUnderFaults);
    if (changed.length > 0) return skipped(changed);
    if (healedAt(run) > run.timing.tailStart) return stillStalled(run.timing.tailStart);
    const norm = { ignoreKinds: o.ignoreKinds, masks: o.masks, timestamps: o.normalizeTimestamps, downstream: o.downstream };
    const diffs = compareStates(normalizeState(twin.settledObjects, twin.downstream, { ...norm, uidAliases: uidAliases(twin.writes) }), normalizeState(run.settledObjects, run.downstream, { ...norm, uidAliases: uidAliases(run.writes) }));
    if (diffs.length === 0) return { ok: true };
    const at = run.timing.tailStart;
    const then = [`at ${fmtTime(at)}, after the settle phase, the state differed from the fault-free run's: ${diffs.slice(0, 3).map((d) => fmtDifference(d, 'the fault-free run')).join('; ')}${diffs.length > 3 ? `; and ${diffs.length - 3} more differences` : ''}`];
    const d0 = diffs[0]!;
    const m = /^(\S+) (\S+)$/.exec(d0.id);
    if (m && m[1] !== 'downstream' && !m[2]!.includes('*')) then.push(lastActions(timelineOf(run), m[1]!, m[2]!.replace(/ #\d+$/, ''), at));
    then.push('a reconciler that decides from current state (not from the events it happened to see) ends in the same state whatever faults it met');
    return {
      ok: false,
      summary: `end state differs from the fault-free run: ${fmtDifference(d0, 'the fault-free run')}`,
      explanation: explanation(letFacts(run.trace, { until: at }), then),
      evidence: { differences: diffs.slice(0, 10).map((d) => ({ id: d.id, change: d.change, paths: d.paths, expected: toJson(d.expected), actual: toJson(d.actual) })) },
    };
  },
});

function toJson(v: unknown): Json {
  return v === undefined ? null : (JSON.parse(JSON.stringify(v)) as Json);
}
