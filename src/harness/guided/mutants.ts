import fc, { type Arbitrary } from 'fast-check';
import type { FaultGenContext, FaultModule } from '../fault.js';
import type { BackgroundFault, FaultEvent } from '../fault-plan.js';
import type { Scenario, WorkloadAction } from '../scenario.js';

/**
 * One mutation of a pooled scenario, as plain data a fast-check arbitrary generates (so a
 * failing mutant shrinks toward fewer, gentler mutations, as any generated value does):
 * add a fault event drawn from a kind's own generator, drop or nudge one of its events (its
 * `nth`, `at` or a numeric parameter), borrow an event from another pooled scenario (the way two
 * faults of two runs meet), add a fault a systematic strategy derived from the parent's own run
 * (a crash between two steps, a stale read, a permuted list, a failed request… at a point that
 * exists in that run, after the parent's faults: depth-2 systematic mode's pairs, drawn at random),
 * re-seed the run, or move a workload action in time. Indices are taken
 * modulo what the scenario has. A timed fault added or borrowed may be placed right after one of
 * the parent's injections (`after`), so a second fault meets the state the first one left.
 * @internal
 */
export type Mutation =
  | { op: 'add'; event: FaultEvent; at: number; after: number }
  | { op: 'background'; rate: BackgroundFault }
  | { op: 'derived'; s: number; i: number }
  | { op: 'nudge'; i: number; field: number; by: number }
  | { op: 'borrow'; from: number; i: number; after: number }
  | { op: 'drop'; i: number }
  | { op: 'reseed'; seed: number }
  | { op: 'shift'; i: number; by: number };

/** Most fault events a mutant keeps (the oldest are dropped first). */
const MAX_EVENTS = 8;
/** A nudge of a time moves it by this many virtual ms per unit. */
const TIME_STEP_MS = 250;

/** The mutations of a scenario: one or two, each an arbitrary that shrinks toward gentler ones. */
export function mutationsArbitrary(faults: readonly FaultModule[], ctx: FaultGenContext, keepTimes = false): Arbitrary<Mutation[]> {
  const adds = faults.map((m) => m.arbitrary(ctx).filter((es) => es.length > 0).map((es) => es[0]!));
  const rates = faults.flatMap((m) => (m.backgroundArbitrary ? [m.backgroundArbitrary(ctx).map((b) => (b.kind === m.kind ? b : { ...b, kind: m.kind }))] : []));
  const by = fc.integer({ min: -3, max: 3 }).map((n) => (n === 0 ? 1 : n));
  // indices are taken modulo what there is: fast-check's bias toward small numbers would always pick the first
  const index = fc.noBias(fc.nat());
  // weighted toward the mutations that make a second fault meet the state the first one left
  const one: Arbitrary<Mutation> = fc.oneof(
    { weight: 8, arbitrary: fc.record({ op: fc.constant('derived' as const), s: index, i: index }) },
    ...(adds.length > 0 ? [{ weight: 4, arbitrary: fc.record({ op: fc.constant('add' as const), event: fc.oneof(...adds), at: index, after: index.map((n) => n * 2 + 1) }) }] : []),
    { weight: 2, arbitrary: fc.record({ op: fc.constant('borrow' as const), from: index, i: index, after: index }) },
    { weight: 2, arbitrary: fc.record({ op: fc.constant('reseed' as const), seed: index }) },
    { weight: 2, arbitrary: fc.record({ op: fc.constant('nudge' as const), i: index, field: index, by }) },
    ...(rates.length > 0 ? [{ weight: 1, arbitrary: fc.record({ op: fc.constant('background' as const), rate: fc.oneof(...rates) }) }] : []),
    { weight: 1, arbitrary: fc.record({ op: fc.constant('drop' as const), i: index }) },
    // a story's action times are the user's
    ...(keepTimes ? [] : [{ weight: 1, arbitrary: fc.record({ op: fc.constant('shift' as const), i: index, by }) }]),
  );
  return fc.array(one, { minLength: 1, maxLength: 2 });
}

/**
 * The numeric fields of an event a nudge may move: `nth`, `at`, then its numeric parameters that
 * are quantities, in key order (see {@link isQuantity}).
 * @internal
 */
export function numericFields(e: FaultEvent): string[] {
  const out: string[] = [];
  if (e.nth !== undefined) out.push('nth');
  if (e.at !== undefined) out.push('at');
  for (const k of Object.keys(e.params ?? {}).sort()) if (typeof e.params![k] === 'number' && isQuantity(k)) out.push(`params.${k}`);
  return out;
}

/** Counts and indices among fault parameters (durations are named so: `ms`, `…Ms`, `…Seconds`). */
const COUNTS = new Set(['pick', 'order', 'node', 'replay', 'versionsBehind', 'versionsBack']);

/**
 * Whether a fault parameter is a quantity a nudge may move and stay realistic: a duration, a count
 * or an index. Anything else is a choice among the values the fault's generator draws: a status
 * code moved by 250 became a 400, a decline no server answers a valid request with by chance (a
 * payments controller rightly gave up on it: guided hunt seed 77, corpus payout-transfer). A new
 * numeric parameter is left alone until it is named here.
 */
function isQuantity(param: string): boolean {
  return /^ms$|Ms$|Seconds$/.test(param) || COUNTS.has(param);
}

function nudged(e: FaultEvent, field: string, by: number, windowMs: number): FaultEvent {
  if (field === 'nth') return { ...e, nth: Math.max(0, e.nth! + by) };
  if (field === 'at') return { ...e, at: Math.min(Math.max(0, windowMs - 1), Math.max(0, e.at! + by * TIME_STEP_MS)) };
  const k = field.slice('params.'.length);
  const v = e.params![k] as number;
  // a time-like parameter moves in steps of 250 ms, a small count by one
  const step = Math.abs(v) >= 100 ? TIME_STEP_MS : 1;
  return { ...e, params: { ...e.params, [k]: Math.max(0, v + by * step) } };
}

/**
 * Applies mutations to a scenario (a fresh copy; `others` are the pool's scenarios, for
 * borrowing; `place` moves an added or borrowed event right after one of the parent's faults,
 * when its `after` asks for it).
 * @internal
 */
export function applyMutations(
  s: Scenario,
  mutations: readonly Mutation[],
  others: readonly Scenario[],
  place: (e: FaultEvent, after: number) => FaultEvent,
  derived: readonly (readonly FaultEvent[])[],
  windowMs: number,
  near: readonly (readonly (readonly FaultEvent[])[])[] = [],
): Scenario {
  let events = s.faults.events.map((e) => ({ ...e }));
  let workload: WorkloadAction[] = s.workload.map((a) => ({ ...a }));
  let seed = s.seed;
  let background = s.faults.background.map((b) => ({ ...b }));
  for (const m of mutations) {
    switch (m.op) {
      case 'add':
        events.splice(m.at % (events.length + 1), 0, place(m.event, m.after));
        break;
      case 'background':
        background = [...background.filter((b) => b.kind !== m.rate.kind), m.rate];
        break;
      case 'derived': {
        // half the time one of those right after one of the parent's faults, else any
        const after = m.s % 2 === 0 && near.length > 0 ? near[Math.floor(m.s / 2) % near.length]! : undefined;
        const from = after ?? derived;
        const plan = from.length > 0 ? from[m.i % from.length] : undefined;
        if (plan) for (const e of plan) events.push({ ...e });
        break;
      }
      case 'nudge': {
        if (events.length === 0) break;
        const i = m.i % events.length;
        const fields = numericFields(events[i]!);
        if (fields.length > 0) events[i] = nudged(events[i]!, fields[m.field % fields.length]!, m.by, windowMs);
        break;
      }
      case 'borrow': {
        const from = others[m.from % Math.max(1, others.length)];
        const pick = from?.faults.events[m.i % Math.max(1, from.faults.events.length)];
        if (pick) events.push(place({ ...pick }, m.after));
        break;
      }
      case 'drop':
        if (events.length > 0) events.splice(m.i % events.length, 1);
        break;
      case 'reseed':
        seed = m.seed;
        break;
      case 'shift': {
        // the creates stay first: only later actions move
        const movable = workload.map((a, i) => (a.type === 'create' ? -1 : i)).filter((i) => i >= 0);
        if (movable.length === 0) break;
        const i = movable[m.i % movable.length]!;
        const a = workload[i]!;
        workload[i] = { ...a, at: Math.min(Math.max(0, windowMs - 1), Math.max(0, a.at + m.by * TIME_STEP_MS)) };
        workload = [...workload].sort((x, y) => x.at - y.at);
        break;
      }
    }
  }
  if (events.length > MAX_EVENTS) events = events.slice(events.length - MAX_EVENTS);
  return { ...s, seed, workload, faults: { events, background } };
}

/**
 * Places an event right after one of the faults of a parent run (odd `after`; even leaves it as
 * drawn): a timed event 1 ms to 2 s after the injection, a counted one at the first occurrence of
 * its counter at or after it (plus 0 to 2), so the second fault meets the state the first left.
 * @internal
 */
export function placeAfter(injections: readonly number[], nthAt: (e: FaultEvent, t: number) => number | undefined, windowMs: number): (e: FaultEvent, after: number) => FaultEvent {
  return (e, after) => {
    if (injections.length === 0 || after % 2 === 0) return e;
    const k = Math.floor(after / 2);
    const t = injections[k % injections.length]!;
    if (e.at !== undefined) return { ...e, at: Math.min(Math.max(0, windowMs - 1), t + 1 + (k % 2000)) };
    if (e.nth === undefined) return e;
    const n = nthAt(e, t);
    return n === undefined ? e : { ...e, nth: n + (k % 3) };
  };
}
