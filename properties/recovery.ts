import { defineProperty, nothingToJudge, type RunRecord, type Verdict } from '../src/harness/property.js';
import type { Scenario } from '../src/harness/scenario.js';
import type { StoredObject } from '../src/store/object.js';
import { explanation, fmtList, fmtObject, fmtTime, fmtValue, letFacts } from '../src/report/explain.js';
import { fixedAtCreation, madeWhileAway } from './_internals/fixed-at-creation.js';
import { heldByOthers } from './_internals/held-by-others.js';
import { scheduledRecords } from './_internals/scheduled-records.js';
import { jsonEq, mergePatch } from './_internals/json.js';
import { lastActions } from './_internals/last-actions.js';
import { applyLearned, droppedDefaultsNote, CONDITION_MASKS, fmtDiff, fmtLearned, learnStateMasks, masksProblem, tallyOf, type MaskTally } from './_internals/masks.js';
import { compareStates, fmtDifference, interchangeableOf, leafSides, normalizeState, tallyObjects, uidAliases } from './_internals/normalize.js';
import { DEFAULT_HISTORY, historyProblem, type HistorySelector } from './_internals/history.js';
import { keyOfObject } from './_internals/primary.js';
import { timelineOf } from './_internals/timeline.js';

/** Options of {@link recovery}. @public */
export interface RecoveryOptions {
  /** Field paths ignored when comparing (see same-end-state). @defaultValue ['metadata.generation', 'status.observedGeneration', 'status.conditions[*].lastTransitionTime', 'status.conditions[*].lastHeartbeatTime', 'status.conditions[*].observedGeneration'] */
  masks: string[];
  /** Treat RFC 3339 timestamps as equal. @defaultValue true */
  normalizeTimestamps: boolean;
  /** Learn masks from benign variations of both fault-free runs when they differ. @defaultValue true */
  learn: boolean;
  /**
   * Objects that record history, left out (see same-end-state's `history`): a revision kept for the
   * spec the workload reverted is history, not a leak.
   * @defaultValue [{ kind: 'ControllerRevision' }, { kind: 'Secret', type: 'helm.sh/release.v1', labels: ['name'] }]
   */
  history: HistorySelector[];
  /**
   * Kinds whose objects are interchangeable by design (see same-end-state's `interchangeable`):
   * they compare by content whatever their names. A ReplicaSet-style controller that adopted a
   * Pod someone else made and deleted it on a scale-down makes a new one after the revert: the
   * adopted one cannot come back, and with `['Pod']` that is no difference (red team rt47 FA-D).
   * Declare only kinds whose members your design treats alike.
   * @defaultValue []
   */
  interchangeable: string[];
}

const DEFAULT_MASKS = ['metadata.generation', 'status.observedGeneration', ...CONDITION_MASKS];
const tallies = new WeakMap<object, MaskTally>();

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
  /**
   * Indices (into the scenario's `workload`) of the spec changes from the one away through the
   * one back: the excursion. Without them the workload never leaves `spec`.
   */
  excursion: number[];
}

/** Name of the extra run recovery asks for. */
const BEFORE = 'recovery:before';

/**
 * The first revert in a scenario's workload: an `update` (or spec `patch`, or `apply` of a
 * manifest to an existing object) away from its spec, followed later by one that restores
 * exactly that spec. Actions run in time
 * order (workload order among equal times); an action on an object that does not exist yet
 * fails and changes nothing. Objects the workload deletes are not considered (their end state
 * is deletion-completes' business), nor excursions holding a patch that also changes more than
 * the spec (leaving it out would change more than the spec).
 * @public
 */
export function findRevert(scenario: Scenario): Revert | undefined {
  interface Version {
    index: number;
    at: number;
    spec: unknown;
    /** Only the spec changes (so the action can be left out of the counterfactual run). */
    specOnly: boolean;
  }
  const history = new Map<string, Version[]>();
  const deleted = new Set<string>();
  const id = (kind: string, key: string) => `${kind} ${key}`;
  for (const o of scenario.initialObjects) history.set(id(o.kind, keyOf(o.metadata)), [{ index: -1, at: 0, spec: o.spec ?? {}, specOnly: false }]);
  const ordered = scenario.workload.map((a, index) => ({ a, index })).sort((x, y) => x.a.at - y.a.at || x.index - y.index);
  for (const { a, index } of ordered) {
    if (a.type === 'create') {
      const k = id(a.object.kind, keyOf(a.object.metadata));
      // a second create of the same name answers AlreadyExists
      if (!history.has(k) && !deleted.has(k)) history.set(k, [{ index, at: a.at, spec: a.object.spec ?? {}, specOnly: false }]);
    } else if (a.type === 'delete' || a.type === 'recreate') deleted.add(id(a.kind, a.key));
    else if (a.type === 'apply') {
      // kubectl apply: creates the object when absent, else sets its spec (a revert when it restores one)
      const k = id(a.object.kind, keyOf(a.object.metadata));
      const h = history.get(k);
      if (!h && !deleted.has(k)) history.set(k, [{ index, at: a.at, spec: a.object.spec ?? {}, specOnly: false }]);
      else if (h && !deleted.has(k) && a.object.spec !== undefined) h.push({ index, at: a.at, spec: a.object.spec, specOnly: appliesOnlySpec(a.object) });
    } else if (a.type === 'update' || (a.type === 'patch' && a.patch['spec'] !== undefined)) {
      const h = history.get(id(a.kind, a.key));
      if (!h || deleted.has(id(a.kind, a.key))) continue;
      const spec = a.type === 'update' ? a.spec : mergePatch(h[h.length - 1]!.spec, a.patch['spec']);
      h.push({ index, at: a.at, spec, specOnly: a.type === 'update' || Object.keys(a.patch).every((k) => k === 'spec') });
    }
  }
  let best: Revert | undefined;
  for (const [k, h] of history) {
    if (deleted.has(k)) continue;
    const [kind, key] = [k.slice(0, k.indexOf(' ')), k.slice(k.indexOf(' ') + 1)];
    for (let j = 1; j < h.length; j++) {
      if (best && h[j]!.at >= best.backAt) break;
      // the earliest version equal to this one and followed by a different one: a revert
      const i = h.findIndex((v, n) => n < j && jsonEq(v.spec, h[j]!.spec) && !jsonEq(h[n + 1]!.spec, v.spec));
      if (i < 0) continue;
      const excursion = h.slice(i + 1, j + 1);
      if (!excursion.every((v) => v.specOnly)) continue;
      best = { kind, key, awayAt: h[i + 1]!.at, backAt: h[j]!.at, spec: h[j]!.spec, awaySpec: h[i + 1]!.spec, excursion: excursion.map((v) => v.index) };
      break;
    }
  }
  return best;
}

/** An applied manifest that sets nothing but the spec (no labels, annotations, finalizers or other fields). */
function appliesOnlySpec(o: Scenario['initialObjects'][number]): boolean {
  const m = o.metadata;
  const extra = Object.keys(o).filter((k) => !['apiVersion', 'kind', 'metadata', 'spec', 'status'].includes(k));
  return extra.length === 0 && Object.keys(m.labels ?? {}).length === 0 && Object.keys(m.annotations ?? {}).length === 0 && (m.finalizers ?? []).length === 0;
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
 * Why the API refused the revert in `run`, if it did: the last answer to the user's action on
 * the object from the revert until its next action (retries included) or the tail. A Pod
 * `update` that leaves out the `spec.nodeName` the scheduler set is `Invalid`, for one: the spec
 * never went back, and the controller has nothing to recover from.
 */
function refusal(run: RunRecord, r: Revert): string | undefined {
  const next = run.scenario.workload
    .filter((a) => a.at > r.backAt && ('key' in a ? a.kind === r.kind && a.key === r.key : 'object' in a && a.object.kind === r.kind && keyOf(a.object.metadata) === r.key))
    .reduce((m, a) => Math.min(m, a.at), Infinity);
  const tail = run.trace.find((e) => e.type === 'run:phase' && e['phase'] === 'tail')?.t ?? Infinity;
  let last: string | undefined | null = null;
  for (const e of run.trace) {
    if (e.t < r.backAt) continue;
    if (e.t >= Math.min(next, tail)) break;
    if (e.type === 'user:action' && e['kind'] === r.kind && e['key'] === r.key) last = typeof e['error'] === 'string' ? e['error'] : undefined;
  }
  return last ?? undefined;
}

/**
 * A user's action on the object before the revert that the API refused in `run`, if any: the
 * spec history {@link findRevert} reads from the workload assumes every action took (node-drainer,
 * hunt seed 64: a patch that also moved a bound Pod's `spec.nodeName` was refused, so the spec
 * "restored" later was never in force).
 */
function refusedBefore(run: RunRecord, r: Revert): { t: number; action: string; error: string } | undefined {
  let refused: { t: number; action: string; error: string; attempt: unknown } | undefined;
  for (const e of run.trace) {
    if (e.t >= r.backAt) break;
    if (e.type !== 'user:action' || e['kind'] !== r.kind || e['key'] !== r.key) continue;
    if (typeof e['error'] === 'string') refused ??= { t: e.t, action: String(e['action']), error: e['error'], attempt: e['attempt'] };
    // a later attempt of a retried action that took: it was not refused after all
    else if (refused !== undefined && typeof refused.attempt === 'number' && typeof e['attempt'] === 'number' && e['attempt'] > refused.attempt) refused = undefined;
  }
  return refused;
}

function hasFaults(s: Scenario): boolean {
  return s.faults.events.length > 0 || s.faults.background.length > 0;
}

/**
 * Recovery (SPEC §5): reverting the spec to an earlier value restores the earlier end state.
 * It judges runs whose workload changes an object's spec and later changes it back (see
 * {@link findRevert}); other runs pass untouched. The earlier end state comes from an extra,
 * fault-free run of the same workload without that excursion (`extraRuns`), so every other
 * action, on this object or another one it depends on, happens in both; the object and what it
 * owns are compared after settle, normalized as in same-end-state. Catches high-water marks,
 * resources created on scale-up and never removed, and state kept in memory.
 *
 * What another object still holds is not compared: an allocator that keeps a slot (an address,
 * a volume) in use when its pool shrinks ends with it granted to a consumer that came while the
 * spec was away, which no revert can take back. A difference whose value in the run names, by
 * uid, an object outside the subtree that both runs end with (and the earlier value does not) is
 * listed in the stats (`heldByOthers`) and left out; what names nobody, or a consumer gone, stays
 * compared (see `_internals/held-by-others.ts`).
 *
 * Nor is a status count of records the controller's scheduled work posted to a downstream log
 * that nobody deletes from (a cron's reports, `_internals/scheduled-records.ts`): a slot fired
 * while the spec asked for more runs stays fired after the revert, and a truthful count says so;
 * the count must equal the object's records in each run, and the earlier end state's run must
 * have made such records by the clock. A high-water mark of the spec counts nothing and stays
 * compared.
 *
 * Nor is a run in which a controller, while the spec was away, deleted objects outside the
 * subtree that the earlier end state still has (a drained node's evicted Pods): it owns none of
 * them, so no revert brings them back, and the object's status may count them. Such a run is
 * left unjudged, with the objects named in the reason.
 *
 * The run compared is the fault-free twin of the one judged (the run itself when it has no
 * faults): whether faults change where a run ends is same-end-state's question, and asking it
 * here again would blame the revert for what a fault did (an id the server handed out in
 * another order, a pod a recreation replaced).
 * @example properties.recovery({ masks: ['metadata.generation', 'status.observedGeneration', 'status.history'] })
 * @public
 */
export const recovery = defineProperty<RecoveryOptions>({
  name: 'recovery',
  description: 'reverting the spec to an earlier value restores the earlier end state',
  defaults: { masks: DEFAULT_MASKS, normalizeTimestamps: true, learn: true, history: [...DEFAULT_HISTORY], interchangeable: [] },
  needsTwin: true,
  validate: (o) =>
    masksProblem(o.masks) ??
    historyProblem(o.history) ??
    (!Array.isArray(o.interchangeable) || o.interchangeable.some((k) => typeof k !== 'string' || k === '') ? 'interchangeable must be an array of kind names, e.g. ["Pod"]' : undefined),
  problems: (o) => tallyOf(tallies, o, DEFAULT_MASKS).problems(o.masks, DEFAULT_MASKS),
  learn: (benign, o) => {
    const r = benign.twin[0] ? findRevert(benign.twin[0].scenario) : undefined;
    if (!o.learn || !r) return {};
    // what differs between benign runs of either side is path: the judged side (the twin) and the earlier end state
    const sides = [benign.twin, benign.extras[BEFORE] ?? []].map((runs) => learnStateMasks(runs.map((x) => subtreeState(x, r, o))));
    const out: Record<string, string[]> = {};
    for (const side of sides) for (const [k, v] of Object.entries(side)) out[k] = [...new Set([...(out[k] ?? []), ...v])].sort();
    return out;
  },
  extraRuns: (scenario) => {
    const r = findRevert(scenario);
    if (!r) return {};
    const drop = new Set(r.excursion);
    return { [BEFORE]: { ...scenario, workload: scenario.workload.filter((_, i) => !drop.has(i)), faults: { events: [], background: [] } } };
  },
  judge: (run, o, twin, extras, learned): Verdict => {
    const r = findRevert(run.scenario);
    if (!r) return nothingToJudge('the workload reverts no spec');
    const judged = hasFaults(run.scenario) ? twin : run;
    if (!judged) return nothingToJudge('no fault-free twin run was given');
    const before = extras[BEFORE];
    if (!before) return nothingToJudge(`the harness did not run the extra run "${BEFORE}"`);
    const early = refusedBefore(judged, r);
    if (early !== undefined) return nothingToJudge(`the user's ${early.action} of ${fmtObject(r.kind, r.key)} at ${fmtTime(early.t)} was refused (${early.error}): the spec the workload returns to at ${fmtTime(r.backAt)} may never have been the object's, so there is no earlier state to restore`);
    const refused = refusal(judged, r);
    if (refused !== undefined) return nothingToJudge(`the revert of ${fmtObject(r.kind, r.key)} at ${fmtTime(r.backAt)} was refused (${refused}): its spec never went back, so there is no earlier state to restore`);
    const invalid = refusedInEarlierRun(before, r);
    if (invalid !== undefined) return nothingToJudge(`in the run without the change, the API refused (Invalid) the ${invalid.verb} of ${fmtObject(invalid.kind, invalid.key)} that a reconcile of ${fmtObject(r.kind, r.key)} made at ${fmtTime(invalid.t)}, its last: the spec the workload returns to is one its controller cannot carry out, so the earlier end state is an error state, not one a revert must restore (a controller that keeps its last valid result is not judged on it)`);
    const lost = removedByControllers(judged, before, r);
    if (lost.length > 0) return nothingToJudge(`while the spec of ${fmtObject(r.kind, r.key)} was away, a controller deleted ${fmtList(lost, 3)}, which the earlier end state still has: it does not own them, so no revert brings them back, and the world the revert returns to is not the earlier one (an eviction, a cleanup of someone else's objects)`);
    return compare(judged, judged !== run, before, r, o, learned);
  },
});

/**
 * The last write a controller's reconcile of the reverted object made in the earlier run, when
 * the API refused it as Invalid (a key the API server does not take, a malformed child): that
 * run ends in an error state. A controller that keeps what it last made from a valid spec (as
 * Flux and Argo CD keep the last applied revision) then ends differently after an excursion
 * through a valid spec, by design (red team rt46 FA-1b, with no fault at all).
 */
function refusedInEarlierRun(before: RunRecord, r: Revert): { t: number; verb: string; kind: string; key: string } | undefined {
  const tl = timelineOf(before);
  const end = before.timing.tailStart;
  let last: (typeof tl.writes)[number] | undefined;
  for (const w of tl.writes) {
    if (w.t >= end) break;
    if (w.reconcile?.key === r.key && w.actor.startsWith('controller:') && w.verb !== 'updateStatus' && w.verb !== 'patchStatus') last = w;
  }
  return last?.error === 'Invalid' ? { t: last.t, verb: last.verb, kind: last.kind, key: last.key } : undefined;
}

/**
 * Objects outside the reverted object's subtree that a controller deleted from the moment its spec
 * went away, which the earlier end state has and `run` ends without: a revert restores what the
 * object owns, not what its controller removed of other people's (a drained node's evicted Pods).
 * Its status may count them, so the two end states need not agree.
 */
function removedByControllers(run: RunRecord, before: RunRecord, r: Revert): string[] {
  const inTree = new Set(subtree(before.settledObjects, r.kind, r.key).map((o) => o.metadata.uid));
  const ended = new Set(run.settledObjects.map((o) => `${o.kind} ${keyOfObject(o)}`));
  const earlier = new Set(before.settledObjects.filter((o) => !inTree.has(o.metadata.uid)).map((o) => `${o.kind} ${keyOfObject(o)}`));
  const out = new Set<string>();
  for (const w of run.writes) {
    if (w.t < r.awayAt || w.verb !== 'delete' || w.error !== undefined || !w.actor.startsWith('controller:')) continue;
    const id = `${w.kind} ${w.key}`;
    if (earlier.has(id) && !ended.has(id)) out.add(id);
  }
  return [...out].sort();
}

/** The reverted object and what it owns, normalized (server-assigned external ids compare by the resource they name, as in same-end-state). */
function subtreeState(run: RunRecord, r: Revert, o: RecoveryOptions, tally?: MaskTally) {
  return normalizeState(subtree(run.settledObjects, r.kind, r.key), run.downstream, { ignoreKinds: ['Lease'], history: o.history, masks: o.masks, timestamps: o.normalizeTimestamps, downstream: false, externalIds: true, uidAliases: uidAliases(run.writes), interchangeable: interchangeableOf(run.writes, o.interchangeable), ...(tally ? { tally } : {}) });
}

function compare(run: RunRecord, isTwin: boolean, before: RunRecord, r: Revert, o: RecoveryOptions, learned: Record<string, string[]> | undefined): Verdict {
  const tally = tallyOf(tallies, o, DEFAULT_MASKS);
  // fields the API never lets change, of objects made while the spec was away: no revert can undo them
  const { kept: unheld, left } = fixedAtCreation(compareStates(applyLearned(subtreeState(before, r, o, tally), learned), applyLearned(subtreeState(run, r, o, tally), learned)), run, before, { run: madeWhileAway(r), twin: madeWhileAway(r, true) });
  // what a consumer both runs end with still holds (a slot granted while the pool was bigger) is history, not a leak
  const ids = new Set([run, before].flatMap((x) => subtree(x.settledObjects, r.kind, r.key).map((s) => `${s.kind} ${keyOfObject(s)}`)));
  const { kept: unclaimed, held } = heldByOthers(unheld, run, before, ids);
  // a status count of records its scheduled work posted to a log nobody deletes from: a run fired while the spec was away stays fired
  const { kept: diffs, counted } = scheduledRecords(unclaimed, run, before, r.kind, r.key);
  tallyObjects(run.settledObjects, o.masks, DEFAULT_MASKS, tally);
  if (diffs.length === 0) return { ok: true, stats: { judged: true, revertedAt: r.backAt, ...(left.length > 0 ? { fixedAtCreation: left } : {}), ...(held.length > 0 ? { heldByOthers: held } : {}), ...(counted.length > 0 ? { scheduledRecords: counted } : {}) } };
  const at = run.timing.tailStart;
  const earlier = 'the earlier end state';
  const letPart = [
    `the user changed the spec of ${fmtObject(r.kind, r.key)} at ${fmtTime(r.awayAt)} from ${fmtValue(r.spec, 60)} to ${fmtValue(r.awaySpec, 60)} and set it back at ${fmtTime(r.backAt)}`,
    // the twin has no faults to list; whether the faults change the end state is same-end-state's question
    ...(isTwin ? ['the run is judged without its faults'] : letFacts(run.trace, { until: at, userActions: false })),
  ];
  const then = [
    `at ${fmtTime(at)}, after the settle phase, ${fmtObject(r.kind, r.key)} and what it owns did not match ${earlier} (a fault-free run of the same workload without the change and its revert): ${diffs.slice(0, 3).map((d) => fmtDifference(d, earlier)).join('; ')}${diffs.length > 3 ? `; and ${diffs.length - 3} more` : ''}`,
    lastActions(timelineOf(run), r.kind, r.key, at, run),
  ];
  const masked = fmtLearned(learned);
  if (masked) then.push(`${masked}, so they are not compared`);
  if (held.length > 0) then.push(`not compared, because another object both runs end with still holds them (granted while the spec was away; a revert does not take back what is in use): ${fmtList(held, 3)}`);
  if (left.length > 0) then.push(`not compared, because they were fixed when the object was made while the spec was away and the API refuses to change them: ${fmtList(left, 3)}`);
  if (counted.length > 0) then.push(`not compared, because they count records the controller's scheduled work posted to a log nobody deletes from (work done while the spec was away stays done): ${fmtList(counted, 3)}`);
  const dropNote = droppedDefaultsNote(o.masks, DEFAULT_MASKS, diffs.flatMap((d) => d.paths));
  if (dropNote) then.push(dropNote);
  then.push(`reconcile toward the current spec from observed state: undo what the old spec needed (delete extra resources), keep no high-water marks${o.interchangeable.length === 0 && diffs.some((d) => d.change !== 'differs') ? '; if the objects that differ are alike members of a pool your design treats as interchangeable (the Pods of a ReplicaSet-style controller), declare their kind: recovery({ interchangeable: ["Pod"] })' : ''}`);
  const sides = leafSides(diffs[0]!);
  then.push(`${diffs[0]!.id}, - ${earlier}, + after the revert:\n${fmtDiff(sides.expected, sides.actual, earlier, 'after the revert')}\n`);
  return {
    ok: false,
    summary: `no recovery: reverting ${fmtObject(r.kind, r.key)} at ${fmtTime(r.backAt)} did not restore the earlier state (${fmtDifference(diffs[0]!, earlier)})`,
    explanation: explanation(letPart, then),
    evidence: { kind: r.kind, key: r.key, awayAt: r.awayAt, backAt: r.backAt, differences: diffs.slice(0, 10).map((d) => ({ id: d.id, change: d.change, paths: d.paths })) },
  };
}
