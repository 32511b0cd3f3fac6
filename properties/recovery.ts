import { defineProperty, type RunRecord, type Verdict } from '../src/harness/property.js';
import type { Scenario } from '../src/harness/scenario.js';
import type { StoredObject } from '../src/store/object.js';
import { explanation, fmtObject, fmtTime, fmtValue, letFacts } from '../src/report/explain.js';
import { jsonEq, mergePatch } from './_internals/json.js';
import { lastActions } from './_internals/last-actions.js';
import { compareStates, fmtDifference, normalizeState } from './_internals/normalize.js';
import { keyOfObject } from './_internals/primary.js';
import { firedKinds, healedAt, skipped, stillStalled, WORLD_CHANGING_FAULTS } from './_internals/skip.js';
import { timelineOf } from './_internals/timeline.js';

/** Options of {@link recovery}. @public */
export interface RecoveryOptions {
  /** Fault kinds after which the comparison is skipped: they change the world itself. @defaultValue ['drift', 'recreation'] */
  skipUnderFaults: string[];
  /** Field paths ignored when comparing (see same-end-state). @defaultValue ['metadata.generation', 'status.observedGeneration'] */
  masks: string[];
  /** Treat RFC 3339 timestamps as equal. @defaultValue true */
  normalizeTimestamps: boolean;
}

/** A spec change that the workload later takes back. @public */
export interface Revert {
  kind: string;
  key: string;
  /** The first update away from `spec`. */
  awayAt: number;
  /** The update back to `spec`. */
  backAt: number;
  spec: unknown;
  awaySpec: unknown;
}

/** Name of the extra run recovery asks for. */
const BEFORE = 'recovery:before';

/**
 * The first revert in a scenario's workload: an `update` (or spec `patch`) of an object away
 * from its spec, followed later by one that restores exactly that spec.
 * @public
 */
export function findRevert(scenario: Scenario): Revert | undefined {
  const history = new Map<string, { at: number; spec: unknown }[]>();
  const push = (kind: string, key: string, at: number, spec: unknown) => {
    const id = `${kind} ${key}`;
    let h = history.get(id);
    if (!h) history.set(id, (h = []));
    h.push({ at, spec });
  };
  const specOf = (kind: string, key: string) => history.get(`${kind} ${key}`)?.at(-1)?.spec;
  for (const o of scenario.initialObjects) push(o.kind, keyOf(o.metadata), 0, o.spec ?? {});
  let best: Revert | undefined;
  for (const a of [...scenario.workload].sort((x, y) => x.at - y.at)) {
    if (a.type === 'create') push(a.object.kind, keyOf(a.object.metadata), a.at, a.object.spec ?? {});
    else if (a.type === 'delete') history.delete(`${a.kind} ${a.key}`);
    else if (a.type === 'update' || (a.type === 'patch' && a.patch['spec'] !== undefined)) {
      const spec = a.type === 'update' ? a.spec : mergePatch(specOf(a.kind, a.key) ?? {}, a.patch['spec']);
      const h = history.get(`${a.kind} ${a.key}`) ?? [];
      // the earliest version equal to the new spec, followed by a different one: a revert
      const i = h.findIndex((v, n) => jsonEq(v.spec, spec) && h[n + 1] !== undefined && !jsonEq(h[n + 1]!.spec, spec));
      if (i >= 0 && (!best || a.at < best.backAt)) best = { kind: a.kind, key: a.key, awayAt: h[i + 1]!.at, backAt: a.at, spec, awaySpec: h[i + 1]!.spec };
      push(a.kind, a.key, a.at, spec);
    }
  }
  return best;
}

function keyOf(m: { namespace?: string | undefined; name?: string | undefined }): string {
  return m.namespace ? `${m.namespace}/${m.name ?? ''}` : (m.name ?? '');
}

/** The object and everything it owns, transitively (by ownerReference uid). */
function subtree(objects: readonly StoredObject[], kind: string, key: string): StoredObject[] {
  const root = objects.find((o) => o.kind === kind && keyOfObject(o) === key);
  if (!root) return [];
  const out = [root];
  const uids = new Set([root.metadata.uid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const o of objects) {
      if (uids.has(o.metadata.uid) || !o.metadata.ownerReferences.some((r) => uids.has(r.uid))) continue;
      uids.add(o.metadata.uid);
      out.push(o);
      grew = true;
    }
  }
  return out;
}

/**
 * Recovery (SPEC §5): reverting the spec to an earlier value restores the earlier end state.
 * It judges runs whose workload updates an object's spec and later updates it back (see
 * {@link findRevert}); other runs pass untouched. The earlier end state comes from an extra,
 * fault-free run of the workload up to the first update (`extraRuns`); the object and what it
 * owns are compared after settle, normalized as in same-end-state. Catches high-water marks,
 * resources created on scale-up and never removed, and state kept in memory.
 * @example properties.recovery({ masks: ['metadata.generation', 'status.observedGeneration', 'status.history'] })
 * @public
 */
export const recovery = defineProperty<RecoveryOptions>({
  name: 'recovery',
  description: 'reverting the spec to an earlier value restores the earlier end state',
  defaults: { skipUnderFaults: [...WORLD_CHANGING_FAULTS], masks: ['metadata.generation', 'status.observedGeneration'], normalizeTimestamps: true },
  validate: (o) => (!Array.isArray(o.masks) ? 'masks must be an array of dotted field paths' : undefined),
  extraRuns: (scenario) => {
    const r = findRevert(scenario);
    if (!r) return {};
    return { [BEFORE]: { ...scenario, workload: scenario.workload.filter((a) => a.at < r.awayAt), faults: { events: [], background: [] } } };
  },
  judge: (run, o, _twin, extras): Verdict => {
    const r = findRevert(run.scenario);
    if (!r) return { ok: true, stats: { judged: false, reason: 'the workload reverts no spec' } };
    const changed = firedKinds(run, o.skipUnderFaults);
    if (changed.length > 0) return skipped(changed);
    if (healedAt(run) > run.timing.tailStart) return stillStalled(run.timing.tailStart);
    const before = extras[BEFORE];
    if (!before) return { ok: true, stats: { judged: false, reason: `the harness did not run the extra run "${BEFORE}"` } };
    return compare(run, before, r, o);
  },
});

function compare(run: RunRecord, before: RunRecord, r: Revert, o: RecoveryOptions): Verdict {
  const norm = { ignoreKinds: ['Lease'], masks: o.masks, timestamps: o.normalizeTimestamps, downstream: false };
  const diffs = compareStates(normalizeState(subtree(before.settledObjects, r.kind, r.key), null, norm), normalizeState(subtree(run.settledObjects, r.kind, r.key), null, norm));
  if (diffs.length === 0) return { ok: true, stats: { judged: true, revertedAt: r.backAt } };
  const at = run.timing.tailStart;
  const earlier = 'the earlier end state';
  const letPart = [`the user changed the spec of ${fmtObject(r.kind, r.key)} at ${fmtTime(r.awayAt)} from ${fmtValue(r.spec, 60)} to ${fmtValue(r.awaySpec, 60)} and set it back at ${fmtTime(r.backAt)}`, ...letFacts(run.trace, { until: at, userActions: false })];
  const then = [
    `at ${fmtTime(at)}, after the settle phase, ${fmtObject(r.kind, r.key)} and what it owns did not match ${earlier} (a fault-free run of the workload before ${fmtTime(r.awayAt)}): ${diffs.slice(0, 3).map((d) => fmtDifference(d, earlier)).join('; ')}${diffs.length > 3 ? `; and ${diffs.length - 3} more` : ''}`,
    lastActions(timelineOf(run), r.kind, r.key, at),
    'reconcile toward the current spec from observed state: undo what the old spec needed (delete extra resources), keep no high-water marks',
  ];
  return {
    ok: false,
    summary: `no recovery: reverting ${fmtObject(r.kind, r.key)} at ${fmtTime(r.backAt)} did not restore the earlier state (${fmtDifference(diffs[0]!, earlier)})`,
    explanation: explanation(letPart, then),
    evidence: { kind: r.kind, key: r.key, awayAt: r.awayAt, backAt: r.backAt, differences: diffs.slice(0, 10).map((d) => ({ id: d.id, change: d.change, paths: d.paths })) },
  };
}
