import { defineProperty, nothingToJudge, type LearnedMasks, type RunRecord, type Verdict } from '../src/harness/property.js';
import type { Json } from '../src/store/object.js';
import { explanation, fmtList, fmtTime, letFacts } from '../src/report/explain.js';
import { declaredApart } from './_internals/refused-in-twin.js';
import { fixedAtCreation } from './_internals/fixed-at-creation.js';
import { lastActions } from './_internals/last-actions.js';
import { acceptedAlternative, applyLearned, droppedDefaultsNote, CONDITION_MASKS, learnAlternatives, fmtDiff, fmtLearned, learnStateMasks, masksProblem, tallyOf, type MaskTally } from './_internals/masks.js';
import { compareStates, fmtDifference, leafSides, normalizeState, stateIdOf, statefulSetClaims, uidAliases, interchangeableOf, type NormalizeOptions, type StateDifference } from './_internals/normalize.js';
import { driftMarks, type DriftMark } from './_internals/drift-marks.js';
import { DEFAULT_HISTORY, historyExcess, historyProblem, type HistoryExcess, type HistorySelector } from './_internals/history.js';
import { firedKinds, healedAt, RECORD_KINDS, skipped, stillStalled, WORLD_CHANGING_FAULTS } from './_internals/skip.js';
import { timelineOf } from './_internals/timeline.js';
import { settledDownstream } from './_internals/downstream-state.js';
import { acceptedPacedFields, learnPacedFields, PACED_FIELDS } from './_internals/paced-fields.js';

/** Options of {@link sameEndState}. @public */
export interface SameEndStateOptions {
  /** Fault kinds after which the comparison is skipped: they change the world itself. @defaultValue ['drift', 'recreation', 'environment-pod-eviction', 'environment-crash-looping-pod'] */
  skipUnderFaults: string[];
  /**
   * Field paths left out of the comparison: dotted, `*` for any one key or element, `[*]` for any
   * array element, `[type=Ready]` for the elements whose `type` is `Ready`, `["a.b/c"]` for a key
   * with dots; `downstream.<service>.<field>` for fake-service resources. A mask that matches no
   * path in any state compared makes `check` throw, naming the nearest path. The defaults are
   * counters of the path, not the state (a controller that repairs an owned object bumps its
   * generation without ending anywhere else) and the standard condition fields; keep them when you
   * add your own. Paths that differ between benign fault-free runs are masked on top (learned).
   * @defaultValue ['metadata.generation', 'status.observedGeneration', 'status.conditions[*].lastTransitionTime', 'status.conditions[*].lastHeartbeatTime', 'status.conditions[*].observedGeneration']
   */
  masks: string[];
  /**
   * Kinds left out: leader-election Leases differ by timing, and core/v1 Events are a best-effort
   * record the API documents as lossy (a recorder drops one whose create failed, a retry records it
   * twice), not state a controller converges to. @defaultValue ['Lease', 'Event']
   */
  ignoreKinds: string[];
  /**
   * Objects that record history (revisions kept for rollback), left out of the comparison: which
   * of them exist depends on which declarations the controller happened to observe. Each is held
   * to its `limit` instead, in every settled state. Add your own (hash-named ConfigMap revisions,
   * a hand-rolled Deployment's ReplicaSets); keep the defaults when you do. A `kind` of the form
   * `service/collection` names a downstream collection that is history (an ACME server's orders,
   * which nobody deletes): left out of the comparison, with no limit held.
   * @defaultValue [{ kind: 'ControllerRevision' }, { kind: 'Secret', type: 'helm.sh/release.v1', labels: ['name'] }]
   */
  history: HistorySelector[];
  /** Treat RFC 3339 timestamps anywhere as equal. @defaultValue true */
  normalizeTimestamps: boolean;
  /** Compare the fake downstream services' resources too (ids ignored). @defaultValue true */
  downstream: boolean;
  /** Learn masks from benign variations of the fault-free twin when the twin and the run differ. @defaultValue true */
  learn: boolean;
  /**
   * Kinds whose end depends, by their design, on how far their controller had got when the user
   * changed them: a pause that freezes a rollout where it stands (Deployment's `paused`, a wave of
   * shards). For these, an object (and what it owns) may also end as in a fault-free run whose
   * controller came to it later, until one of the user's changes of it at most 30 s on, or that
   * saw each of the user's changes of it only when the next one came, or that first looked at it
   * only after the user created the next object of its kind; and, where this run's controller was
   * idle, cut short or late (a crash between two writes of one reconcile, a decision refused
   * once and retried seconds later, a reconcile whose slow calls decided late, a rollout crash
   * loops kept a step behind when its user changed it), as in a fault-free
   * run (in a world as slow as this run's, when the world was slowed) whose controller was held
   * there, or whose write was answered that much later. For a hosted program (`defineProgram`,
   * declared by its `for` kind), which cannot be held per key: also as in a fault-free run whose
   * program was restarted right after the last write the two runs share, where this run's crashed
   * between two writes of one burst (one sync's grants), its new incarnation's answers held until
   * this run's came back: it looks afresh then, but lost no event (src/harness/twin.ts
   * `restartPoints`). Its memory is lost there as in a crash, so for such a program this property
   * no longer tells a crash that lost memory from a slow restart. Objects such a kind's controller writes
   * without owning them, and that no controller reconciles (the Nodes an upgrade plan cordons and
   * asks for a version), are judged field by field: each field that differs ends, on both sides,
   * with a value it has in such a later fault-free run (properties/_internals/paced-fields.ts). Declare
   * only such a design: for any other kind, an end that depends on when the controller first saw
   * its object (a default written from the engine it saw first) is a bug this property reports.
   * @defaultValue []
   */
  timingDependent: string[];
  /**
   * Kinds whose objects are interchangeable by design: how many there are is the state, which of
   * them is the path's business (a CI runner pool named by ordinal: the runners a shrunk pool
   * keeps are the ones that happened to be idle). Their objects compare by content whatever their
   * names, as generated names do, and a value that is one of their names (a build's
   * `status.runner`) compares as "one of them", unless an object of another kind has that name
   * too. Declare only kinds whose members your design treats alike: where a name matters (a
   * StatefulSet's ordinals), this would hide a real difference. Where even the count follows the
   * path (an autoscaler's Nodes), leave the kind out (`ignoreKinds`) and say what is promised in
   * `convergence`.
   * @defaultValue []
   */
  interchangeable: string[];
  /**
   * In runs where drift is the only world-changing fault that fired, judge what drift changed
   * instead of skipping the run: an object a controller made that drift deleted, a field of one
   * it edited (not labels or annotations) and an external resource it deleted or edited must end
   * as in the fault-free run (SPEC §3: drift is survived by level-triggered repair). Fields drift
   * added (a person's label of their own) are not compared, nor is a mark whose owner's periodic
   * re-check (`requeueAfter`) was still to come. A field your design leaves to people (replicas
   * an autoscaler or a person sets after creation) is left out with `masks`. @defaultValue true
   */
  judgeDrift: boolean;
  /**
   * What is made once for a moment's content, so a correct controller does not make it again when
   * drift deletes it: kinds (`'Backup'`), and external collections as `'<service>/<collection>'`
   * (`'storage/snapshots'`: a point-in-time snapshot made again would hold other data; report the
   * loss instead). Drift deleting one is not judged. Jobs and Pods that run to completion are
   * made once already. @defaultValue []
   */
  madeOnce: string[];
  /**
   * Downstream collections that are ledgers, as `'<service>/<collection>'` (or a whole service):
   * append-only records such as charges and refunds, whose records of an owner gone by the end are
   * not compared. An order the user cancelled before the saga charged it, and one charged then
   * refunded, both moved no money; judge the net in a property of your own. The records of live
   * owners stay compared. @defaultValue []
   */
  ledgers: string[];
}

const DEFAULT_MASKS = ['metadata.generation', 'status.observedGeneration', ...CONDITION_MASKS];
const tallies = new WeakMap<object, MaskTally>();

function stateOf(r: RunRecord, o: SameEndStateOptions, tally?: MaskTally) {
  const norm: NormalizeOptions = { ignoreKinds: o.ignoreKinds, history: o.history, masks: o.masks, timestamps: o.normalizeTimestamps, downstream: o.downstream, uidAliases: uidAliases(r.writes), interchangeable: interchangeableOf(r.writes, o.interchangeable), statefulSetClaims: statefulSetClaims(r.writes), ledgers: o.ledgers, ...(tally ? { tally } : {}) };
  return normalizeState(r.settledObjects, settledDownstream(r, timelineOf(r).requests), norm);
}

/**
 * `masks` and what differs between the fault-free run and the same control plane in a world as
 * slow as the run's (`world`, see {@link BenignRuns.world}), for the objects of the
 * timing-dependent kinds and those they own only: how far a StatefulSet's rollout had got when
 * its user re-partitioned it follows how fast its Pods became Ready, and a slow world is no fault
 * of the control plane. A difference in such an object's status masks its whole status: its
 * counters are one measure of progress, and a third pace moves the ones two runs agreed on. Objects of other kinds stay compared: a controller that turns a slow
 * rollout into a permanent failure of its own object is still caught there.
 */
function withPaceMasks(masks: LearnedMasks, twinState: ReturnType<typeof stateOf>, twin: RunRecord, world: readonly RunRecord[], o: SameEndStateOptions): LearnedMasks {
  const kinds = new Set(o.timingDependent);
  const paced = new Set<string>();
  for (const obj of twin.settledObjects) {
    if (kinds.has(obj.kind) || (obj.metadata.ownerReferences ?? []).some((r) => kinds.has(r.kind))) paced.add(stateIdOf(obj));
  }
  const learned = learnStateMasks([twinState, ...world.map((r) => stateOf(r, o))]);
  const idOf = (e: string) => (e.includes(': ') ? e.slice(0, e.indexOf(': ')) : e);
  const out: LearnedMasks = { ...masks };
  for (const [field, entries] of Object.entries(learned)) {
    // a timing-dependent object's status is its progress: when the pace moved one counter, the others move with it
    const mine = entries.filter((e) => paced.has(idOf(e))).map((e) => (field === 'paths' && kinds.has(idOf(e).split(' ')[0]!) && /^[^:]+: status[.[]/.test(e) ? `${idOf(e)}: status` : e));
    if (mine.length > 0) out[field] = [...new Set([...(out[field] ?? []), ...mine])].sort();
  }
  return out;
}

/**
 * Same end state as fault-free (SPEC §5): after faults stop and the world settles, it equals the
 * end state of the fault-free twin run of the same scenario, with uids, resourceVersions,
 * timestamps and generated names normalized. Faults a correct reconciler survives change the
 * path, never the destination. Only what the fault-free twin reproduces is compared: when the
 * run differs, the twin is run again under benign variations (other event timings and list
 * orders, an extra resync), and every path whose value differs between those fault-free runs is
 * masked (lists whose members only permute compare as sets), cached per scenario shape and named
 * in the verdict and the check result. An object that ends exactly as in a fault-free run whose
 * controller was busy (its keys waiting in the workqueue) while its user replaced a world within
 * seconds is accepted too: the end state of an allocator depends on what it saw, and a busy
 * controller misses a short-lived declaration as a fault does. So is one that ends exactly as in
 * a fault-free run of a slow controller, one of whose decisions by the clock (it sets
 * `requeueAfter` timers: a schedule, a deadline) came a few seconds later: a slot missed past its
 * starting deadline, or started with the spec of that later moment, is where a fault that cost
 * the controller a second leads too. Objects the two runs' users declared differently (the
 * user's last action on one refused fault-free, accepted here) and what they own are not compared.
 * Nor is an object that ends exactly as in the fault-free run of the user's actions as this
 * run's API server accepted them (a retry after a refusal a fault caused, at its time and in its
 * order, so that what failed here because of it fails there too: src/harness/twin.ts
 * `userAcceptedLate`), whatever it depends on by name (an HTTPRoute's backend Service).
 * A run in which drift is the only world-changing fault is judged by what drift changed (was it
 * repaired? see {@link SameEndStateOptions.judgeDrift} and drift-marks.ts).
 * @example properties.sameEndState({ masks: ['metadata.generation', 'status.observedGeneration', 'status.conditions[type=Ready].message'] })
 * @public
 */
export const sameEndState = defineProperty<SameEndStateOptions>({
  name: 'same-end-state',
  description: 'the settled state equals that of the fault-free twin run (uids, versions, timestamps normalized; what fault-free runs disagree on masked)',
  defaults: { skipUnderFaults: [...WORLD_CHANGING_FAULTS], masks: DEFAULT_MASKS, ignoreKinds: [...RECORD_KINDS], history: [...DEFAULT_HISTORY], normalizeTimestamps: true, downstream: true, learn: true, timingDependent: [], interchangeable: [], judgeDrift: true, madeOnce: [], ledgers: [] },
  needsTwin: true,
  validate: (o) =>
    masksProblem(o.masks) ??
    (!Array.isArray(o.ignoreKinds) ? 'ignoreKinds must be an array of kind names' : undefined) ??
    (!Array.isArray(o.timingDependent) || o.timingDependent.some((k) => typeof k !== 'string') ? 'timingDependent must be an array of kind names, e.g. ["Wave"]' : undefined) ??
    (!Array.isArray(o.interchangeable) || o.interchangeable.some((k) => typeof k !== 'string' || k === '') ? 'interchangeable must be an array of kind names, e.g. ["Node"]' : undefined) ??
    (!Array.isArray(o.ledgers) || o.ledgers.some((k) => typeof k !== 'string' || k === '') ? 'ledgers must be an array of "<service>/<collection>", e.g. ["payments/charges"]' : undefined) ??
    (!Array.isArray(o.madeOnce) || o.madeOnce.some((k) => typeof k !== 'string' || k === '') ? 'madeOnce must be an array of kind names or "<service>/<collection>", e.g. ["storage/snapshots"]' : undefined) ??
    historyProblem(o.history),
  learnsFromBusy: true,
  learnsFromSlow: true,
  timingDependent: (o) => o.timingDependent,
  learn: (benign, o) => {
    if (!o.learn) return {};
    const states = benign.twin.map((r) => stateOf(r, o));
    const masks = learnStateMasks(states);
    // ends a busy controller reaches when it never acted on a world its user soon replaced, and ends a slow controller
    // reaches when one of its decisions by the clock came later (whole objects, not masks)
    // and ends the fault-free control plane reaches in a world as slow as the run's (a snapshot of a claim the user
    // deleted before it ever bound is never cut): the world's pace is no fault of the control plane
    const late = [...(benign.slow ?? []), ...(benign.world ?? [])].map((record) => ({ record, state: stateOf(record, o) }));
    const busyStates = (benign.busy ?? []).map((r) => stateOf(r, o));
    const alternatives = states[0] ? learnAlternatives(states[0], [...busyStates, ...late.map((l) => l.state)], masks) : [];
    const all = benign.world && benign.world.length > 0 && states[0] ? withPaceMasks(masks, states[0], benign.twin[0]!, benign.world, o) : masks;
    // objects a timing-dependent kind's controller walks through without owning them: field by field as in a later fault-free run
    const paced = states[0] ? learnPacedFields({ record: benign.twin[0]!, state: states[0] }, late, new Set(o.timingDependent)) : [];
    return { ...all, ...(alternatives.length > 0 ? { alternatives } : {}), ...(paced.length > 0 ? { [PACED_FIELDS]: paced } : {}) };
  },
  problems: (o) => tallyOf(tallies, o, DEFAULT_MASKS).problems(o.masks, DEFAULT_MASKS),
  judge: (run, o, twin, _extras, learned): Verdict => {
    const excess = historyExcess(run.settledObjects, o.history);
    if (excess.length > 0) return overLimit(run, excess);
    if (!twin) return nothingToJudge('no fault-free twin run was given');
    const changed = firedKinds(run, o.skipUnderFaults);
    // drift alone: what it changed is judged (was it repaired?), the rest of the world is not comparable
    const driftOnly = o.judgeDrift && changed.length > 0 && changed.every((k) => k === 'drift');
    if (changed.length > 0 && !driftOnly) return skipped(changed);
    if (healedAt(run) > run.timing.tailStart) return stillStalled(run.timing.tailStart);
    const tally = tallyOf(tallies, o, DEFAULT_MASKS);
    // fields the API never lets change, of objects made under another declaration of their owner: fixed by when they were made
    const { kept: fixedKept, left } = fixedAtCreation(compareStates(applyLearned(stateOf(twin, o, tally), learned), applyLearned(stateOf(run, o, tally), learned)), run, twin);
    // objects the fault-free run's user could not declare as this run's user did
    const { kept: notApart, left: apart } = declaredApart(fixedKept, run, twin);
    // objects that end exactly as in a fault-free run of a busy controller (a short-lived world it never acted on) or
    // of a slow one (a decision by the clock made later): a destination, not a fault's mark
    const busy: string[] = [];
    const diffs = notApart.filter((d) => {
      const ok = acceptedAlternative(d.id, d.change === 'extra' ? undefined : d.expected, d.change === 'missing' ? undefined : d.actual, learned) || acceptedPacedFields(d, learned);
      if (ok) busy.push(d.id);
      return !ok;
    });
    const masked = fmtLearned(learned);
    if (driftOnly) return driftVerdict(run, twin, diffs, masked ?? '', o.interchangeable, o.madeOnce);
    const fixed = { ...(left.length > 0 ? { fixedAtCreation: left } : {}), ...(apart.length > 0 ? { declaredApart: apart } : {}), ...(busy.length > 0 ? { asWhenBusy: busy } : {}) };
    if (diffs.length === 0) return { ok: true, ...(masked || left.length > 0 || apart.length > 0 || busy.length > 0 ? { stats: { ...(masked ? { learned: masked } : {}), ...fixed } } : {}) };
    const at = run.timing.tailStart;
    const expectedName = 'the fault-free run';
    const then = [`at ${fmtTime(at)}, after the settle phase, the state differed from the fault-free run's: ${diffs.slice(0, 3).map((d) => fmtDifference(d, expectedName)).join('; ')}${diffs.length > 3 ? `; and ${diffs.length - 3} more differences` : ''}`];
    const d0 = diffs[0]!;
    const m = /^(\S+) (\S+)$/.exec(d0.id);
    if (m && m[1] !== 'downstream' && !m[2]!.includes('*')) then.push(lastActions(timelineOf(run), m[1]!, m[2]!.replace(/ #\d+$/, ''), at, run));
    if (masked) then.push(`${masked}, so they are not compared`);
    if (apart.length > 0) then.push(`not compared, because the two runs' users declared them differently (the user's last action on them refused in one run and accepted in the other): ${fmtList(apart, 3)}`);
    if (busy.length > 0) then.push(`not compared, because they end as in a fault-free run whose controller was busy while its user replaced a short-lived declaration, or slow to make a decision by the clock, or late to an object whose end is timing dependent, or whose user's actions took effect when and in the order this run's did: ${fmtList(busy, 3)}`);
    if (left.length > 0) then.push(`not compared, because they were fixed when the object was made under another declaration of its owner and the API refuses to change them: ${fmtList(left, 3)}`);
    {
      const note = droppedDefaultsNote(o.masks, DEFAULT_MASKS, diffs.flatMap((d) => d.paths));
      if (note) then.push(note);
    }
    then.push('a reconciler that decides from current state (not from the events it happened to see) ends in the same state whatever faults it met');
    const sides = leafSides(d0);
    then.push(`${d0.id}, - the fault-free run, + this run:\n${fmtDiff(sides.expected, sides.actual, expectedName, 'this run')}\n`);
    return {
      ok: false,
      summary: `end state differs from the fault-free run: ${fmtDifference(d0, expectedName)}`,
      explanation: explanation(letFacts(run.trace, { until: at }), then),
      evidence: {
        differences: diffs.slice(0, 10).map((d) => ({ id: d.id, change: d.change, paths: d.paths, expected: toJson(d.expected), actual: toJson(d.actual) })),
        learnedMasks: Object.fromEntries(Object.entries(learned ?? {}).map(([k, v]) => [k, v])),
      },
    };
  },
});

/** Drift runs: only the marks drift left are judged; were they repaired? */
function driftVerdict(run: RunRecord, twin: RunRecord, diffs: readonly StateDifference[], masked: string, interchangeable: readonly string[], madeOnce: readonly string[]): Verdict {
  const { marks, pending, judged } = driftMarks(run, twin, diffs, uidAliases(run.writes), interchangeableOf(run.writes, interchangeable), new Set(madeOnce));
  const stats = { judged: judged > 0 ? 'what drift changed' : false, ...(judged === 0 ? { reason: 'drift changed nothing a controller made' } : {}), ...(pending.length > 0 ? { periodicCheckDue: pending } : {}), ...(masked ? { learned: masked } : {}) };
  if (marks.length === 0) return { ok: true, stats };
  const at = run.timing.tailStart;
  const m0 = marks[0]!;
  const fmtMark = (m: DriftMark) =>
    m.paths.length === 0 ? `at ${fmtTime(m.at)} drift ${m.what}, and at ${fmtTime(at)} it was still gone (the fault-free run ends with ${m.id})` : `at ${fmtTime(m.at)} drift ${m.what}: at ${fmtTime(at)} ${m.paths.map((p) => `${p} still held ${JSON.stringify(m.actual[p])} (the fault-free run ends with ${JSON.stringify(m.expected[p])})`).join(', ')}`;
  const then = [`${marks.slice(0, 3).map(fmtMark).join('; ')}${marks.length > 3 ? `; and ${marks.length - 3} more changes drift made were never repaired` : ''}`];
  const tl = timelineOf(run);
  const reconciled = tl.reconciles.filter((s) => s.start > m0.at && s.start < at).length;
  then.push(
    tl.reconciles.length === 0
      ? 'the program never put it back: handlers that act on changes of what it reads from, not of what it made, never hear of the drift (watch what you make and repair it, or re-check it periodically)'
      : reconciled > 0
      ? `the controllers reconciled ${reconciled === 1 ? 'once' : `${reconciled} times`} after the drift and never put it back: they decided from their own bookkeeping (status, memory, "already created") instead of comparing desired with actual`
      : 'no controller reconciled after the drift: nothing it watches told it (watch what you own, or re-check external state periodically with requeueAfter)',
  );
  if (masked) then.push(`${masked}, so they are not compared`);
  then.push('a level-triggered reconciler compares desired with actual on every pass and repairs what a person, another controller or a cloud console changed');
  return {
    ok: false,
    summary: `drift was never repaired: ${m0.paths.length === 0 ? `${m0.what}, still gone at the end` : `${m0.what}, ${m0.paths.join(', ')} still as drift left ${m0.paths.length === 1 ? 'it' : 'them'}`}`,
    explanation: explanation(letFacts(run.trace, { until: at }), then),
    evidence: { unrepaired: marks.slice(0, 10).map((m) => ({ at: m.at, action: m.action, id: m.id, what: m.what, paths: m.paths, expected: toJson(m.expected), actual: toJson(m.actual) })), ...(pending.length > 0 ? { periodicCheckDue: pending } : {}) },
  };
}

/** A history that holds more than its declared limit once the world settled. */
function overLimit(run: RunRecord, excess: readonly HistoryExcess[]): Verdict {
  const at = run.timing.tailStart;
  const fmt = (e: HistoryExcess) => `the ${e.kind} history of ${e.of} holds ${e.names.length} objects, more than its limit of ${e.limit} (${fmtList(e.names, 4)})`;
  const e0 = excess[0]!;
  return {
    ok: false,
    summary: `end state keeps too much history: ${fmt(e0)}`,
    explanation: explanation(letFacts(run.trace, { until: at }), [
      `at ${fmtTime(at)}, after the settle phase, ${excess.slice(0, 3).map(fmt).join('; ')}`,
      'history that is never pruned grows with every declaration; delete the oldest beyond the limit (as a Deployment does beyond revisionHistoryLimit), or raise the limit declared in the history option',
    ]),
    evidence: { history: excess.slice(0, 10).map((e) => ({ kind: e.kind, of: e.of, limit: e.limit, names: e.names })) },
  };
}

function toJson(v: unknown): Json {
  return v === undefined ? null : (JSON.parse(JSON.stringify(v)) as Json);
}
