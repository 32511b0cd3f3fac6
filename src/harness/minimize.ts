import type { JsonObject, NewObject } from '../store/object.js';
import type { BackgroundFault, FaultEvent } from './fault-plan.js';
import type { RunRecord } from './property.js';
import type { Scenario, WorkloadAction } from './scenario.js';

/** Options of {@link minimize}. @public */
export interface MinimizeOptions {
  /** Runs a candidate; returns its run when it still fails the same way, undefined otherwise. */
  stillFails: (scenario: Scenario) => Promise<RunRecord | undefined>;
  /** Most candidates to run. @defaultValue 400 */
  maxTests?: number;
  /** Finally try every user action at t=0 (readability of generated workloads). @defaultValue true */
  earlyActions?: boolean;
}

/** What {@link minimize} found. @public */
export interface MinimizeResult {
  scenario: Scenario;
  /** The run of the minimal scenario. */
  run: RunRecord;
  /** Candidates run. */
  tests: number;
  /** Accepted reductions. */
  reductions: number;
}

type Unit =
  | { type: 'event'; value: FaultEvent }
  | { type: 'background'; value: BackgroundFault }
  | { type: 'action'; value: WorkloadAction }
  | { type: 'initial'; value: NewObject };

/**
 * Turns background-rate injections that actually fired (trace `fault:inject` entries with
 * `background: true` and an `nth`) into concrete fault events, and drops those rates. A rate is
 * an opaque stream of decisions; concrete events can be removed one by one, which is what lets
 * a failure shrink to "this one dropped event". Kinds whose injections carry no `nth` keep
 * their rate. Returns undefined when there is nothing to concretize.
 * @public
 */
export function concretize(scenario: Scenario, run: RunRecord): Scenario | undefined {
  if (scenario.faults.background.length === 0) return undefined;
  const fired = run.trace.filter((e) => e.type === 'fault:inject' && e['background'] === true);
  const kinds = new Set(scenario.faults.background.map((b) => b.kind));
  const convertible = new Set([...kinds].filter((k) => fired.every((e) => e['kind'] !== k || typeof e['nth'] === 'number')));
  if (convertible.size === 0) return undefined;
  const events = [...scenario.faults.events];
  const seen = new Set(events.map((e) => `${e.kind}#${e.nth ?? ''}`));
  for (const e of fired) {
    const kind = String(e['kind']);
    if (!convertible.has(kind)) continue;
    const nth = e['nth'] as number;
    if (seen.has(`${kind}#${nth}`)) continue;
    seen.add(`${kind}#${nth}`);
    const bg = scenario.faults.background.find((b) => b.kind === kind);
    const params = isJsonObject(e['params']) ? e['params'] : bg?.params;
    events.push({ kind, nth, ...(typeof e['target'] === 'string' ? { target: e['target'] } : {}), ...(params ? { params } : {}) });
  }
  return { ...scenario, faults: { events, background: scenario.faults.background.filter((b) => !convertible.has(b.kind)) } };
}

/**
 * Shrinks a failing scenario further than fast-check's structural shrink can: first
 * {@link concretize}s background injections, then delta-debugs (ddmin, Zeller & Hildebrandt)
 * the set of concrete fault events, background rates, workload actions and initial objects
 * down to a 1-minimal set that still fails: removing any single one makes the failure go away.
 * Between rounds it lowers each event's `nth` to the smallest that still fails, and tries removing
 * an action while moving an `nth` down, because removing an action shifts the occurrences a fault
 * counts (a crash at call #6 becomes one at call #2). Where the failure still needs several
 * concrete events of one kind made from a rate, the scenario with its rates is shrunk too, and the
 * one with fewer parts kept (a retry storm needs five failures in a row: one rate, not five events).
 * @public
 */
export async function minimize(scenario: Scenario, run: RunRecord, options: MinimizeOptions): Promise<MinimizeResult> {
  const maxTests = options.maxTests ?? 400;
  let tests = 0;
  let reductions = 0;
  let best = { scenario, run };

  const concrete = concretize(scenario, run);
  if (concrete) {
    tests++;
    const r = await options.stillFails(concrete);
    if (r) {
      best = { scenario: concrete, run: r };
      reductions++;
    }
  }

  const main = await shrinkRounds(best, options.stillFails, maxTests - tests);
  tests += main.tests;
  reductions += main.reductions;
  best = main.best;

  // a failure that needs many injections of one kind (a key failing five times in a row) may be
  // smaller as the rate they came from than as one event per injection: shrink the scenario with
  // its rates too, and keep whichever has fewer parts
  if (concrete && tests < maxTests) {
    const rated = new Set(scenario.faults.background.filter((b) => !concrete.faults.background.some((c) => c.kind === b.kind)).map((b) => b.kind));
    const made = best.scenario.faults.events.filter((e) => rated.has(e.kind)).length;
    if (made >= 2) {
      const alt = await shrinkRounds({ scenario, run }, options.stillFails, maxTests - tests);
      tests += alt.tests;
      if (unitCount(alt.best.scenario) < unitCount(best.scenario)) {
        best = alt.best;
        reductions += alt.reductions;
      }
    }
  }
  // readability: user actions as early as the failure allows (all at t=0 when it does not care)
  if (options.earlyActions !== false && best.scenario.workload.some((a) => a.at > 0) && tests < maxTests) {
    tests++;
    const early: Scenario = { ...best.scenario, workload: best.scenario.workload.map((a) => ({ ...a, at: 0 })) };
    const r = await options.stillFails(early);
    if (r) best = { scenario: early, run: r };
  }
  return { scenario: best.scenario, run: best.run, tests, reductions };
}

interface Best {
  scenario: Scenario;
  run: RunRecord;
}

/** ddmin, then lower each event's nth, then remove-and-renumber, in rounds while any step helps. */
async function shrinkRounds(start: Best, stillFails: MinimizeOptions['stillFails'], budget: number): Promise<{ best: Best; tests: number; reductions: number }> {
  let best = start;
  let tests = 0;
  let reductions = 0;
  // ddmin, then lower each event's nth (removing an action shifts the occurrences a fault counts,
  // so a smaller nth may now hit the same spot), and again while either step helps
  for (let round = 0; round < 3; round++) {
    const before = unitCount(best.scenario);
    const r = await ddminScenario(best, stillFails, budget - tests);
    tests += r.tests;
    if (r.reduced) {
      best = r.best;
      reductions++;
    }
    const l = await lowerNths(best, stillFails, budget - tests);
    tests += l.tests;
    if (l.lowered) {
      best = l.best;
      reductions++;
    }
    const m = await removeAndRenumber(best, stillFails, budget - tests);
    tests += m.tests;
    if (m.reduced) {
      best = m.best;
      reductions++;
    }
    if (!l.lowered && !m.reduced && unitCount(best.scenario) === before) break;
  }
  return { best, tests, reductions };
}

async function ddminScenario(start: Best, stillFails: MinimizeOptions['stillFails'], budget: number): Promise<{ best: Best; reduced: boolean; tests: number }> {
  let best = start;
  let tests = 0;
  let reduced = false;
  const units: Unit[] = [
    ...start.scenario.faults.events.map((value): Unit => ({ type: 'event', value })),
    ...start.scenario.faults.background.map((value): Unit => ({ type: 'background', value })),
    ...start.scenario.workload.map((value): Unit => ({ type: 'action', value })),
    ...start.scenario.initialObjects.map((value): Unit => ({ type: 'initial', value })),
  ];
  const cache = new Map<string, boolean>();
  const test = async (subset: readonly number[]): Promise<boolean> => {
    const id = subset.join(',');
    const hit = cache.get(id);
    if (hit !== undefined) return hit;
    if (subset.length === units.length) return true;
    if (tests >= budget) return false;
    tests++;
    const candidate = rebuild(start.scenario, subset.map((i) => units[i]!));
    const r = await stillFails(candidate);
    cache.set(id, r !== undefined);
    if (r && subset.length < unitCount(best.scenario)) {
      best = { scenario: candidate, run: r };
      reduced = true;
    }
    return r !== undefined;
  };
  await ddmin(
    units.map((_, i) => i),
    test,
  );
  return { best, reduced, tests };
}

/** For each fault event with an `nth`, the smallest nth that still fails (tried upward from 0). */
async function lowerNths(start: Best, stillFails: MinimizeOptions['stillFails'], budget: number): Promise<{ best: Best; lowered: boolean; tests: number }> {
  let best = start;
  let tests = 0;
  let lowered = false;
  for (let j = 0; j < best.scenario.faults.events.length; j++) {
    const e = best.scenario.faults.events[j]!;
    if (e.nth === undefined || e.nth === 0) continue;
    for (let v = 0; v < e.nth && tests < budget; v++) {
      tests++;
      const events = best.scenario.faults.events.map((x, i) => (i === j ? { ...x, nth: v } : x));
      const candidate: Scenario = { ...best.scenario, faults: { ...best.scenario.faults, events } };
      const r = await stillFails(candidate);
      if (r) {
        best = { scenario: candidate, run: r };
        lowered = true;
        break;
      }
    }
  }
  return { best, lowered, tests };
}

/**
 * Removes one fault event, workload action or initial object together with moving another event's `nth` down by
 * up to {@link RENUMBER_SPAN}: the pair of changes ddmin cannot make one at a time, since the
 * action alone is needed for the old nth to land on the right occurrence.
 */
async function removeAndRenumber(start: Best, stillFails: MinimizeOptions['stillFails'], budget: number): Promise<{ best: Best; reduced: boolean; tests: number }> {
  let tests = 0;
  const s = start.scenario;
  const events = s.faults.events;
  if (!events.some((e) => e.nth !== undefined && e.nth > 0)) return { best: start, reduced: false, tests };
  // an earlier fault event shifts the counts too (a crash's retry makes calls of its own)
  const removals: Scenario[] = [
    ...events.map((_, i) => ({ ...s, faults: { ...s.faults, events: events.filter((__, k) => k !== i) } })),
    ...s.workload.map((_, i) => ({ ...s, workload: s.workload.filter((__, k) => k !== i) })),
    ...s.initialObjects.map((_, i) => ({ ...s, initialObjects: s.initialObjects.filter((__, k) => k !== i) })),
  ];
  for (const without of removals) {
    const left = without.faults.events;
    for (let j = 0; j < left.length; j++) {
      const nth = left[j]!.nth;
      if (nth === undefined || nth === 0) continue;
      for (let v = nth - 1; v >= Math.max(0, nth - RENUMBER_SPAN); v--) {
        if (tests >= budget) return { best: start, reduced: false, tests };
        tests++;
        const events = left.map((x, i) => (i === j ? { ...x, nth: v } : x));
        const candidate: Scenario = { ...without, faults: { ...without.faults, events } };
        const r = await stillFails(candidate);
        if (r) return { best: { scenario: candidate, run: r }, reduced: true, tests };
      }
    }
  }
  return { best: start, reduced: false, tests };
}

/** How far `removeAndRenumber` moves an nth: the occurrences one action causes, generously. */
const RENUMBER_SPAN = 6;

function unitCount(s: Scenario): number {
  return s.faults.events.length + s.faults.background.length + s.workload.length + s.initialObjects.length;
}

function rebuild(base: Scenario, units: Unit[]): Scenario {
  const events: FaultEvent[] = [];
  const background: BackgroundFault[] = [];
  const workload: WorkloadAction[] = [];
  const initialObjects: NewObject[] = [];
  for (const u of units) {
    if (u.type === 'event') events.push(u.value);
    else if (u.type === 'background') background.push(u.value);
    else if (u.type === 'action') workload.push(u.value);
    else initialObjects.push(u.value);
  }
  return { ...base, initialObjects, workload, faults: { events, background } };
}

/**
 * Delta debugging: the smallest subset (1-minimal) of `items` for which `fails` holds, given
 * that it holds for all of them. Tries the empty set first (some failures need nothing),
 * then halves, then complements, refining the granularity as in Zeller's ddmin.
 * @internal
 */
export async function ddmin<T>(items: readonly T[], fails: (subset: readonly T[]) => Promise<boolean>): Promise<T[]> {
  let cur = [...items];
  if (cur.length === 0) return cur;
  if (await fails([])) return [];
  let n = 2;
  while (cur.length >= 2) {
    const chunks = split(cur, Math.min(n, cur.length));
    let reduced = false;
    for (const c of chunks) {
      if (c.length < cur.length && (await fails(c))) {
        cur = c;
        n = 2;
        reduced = true;
        break;
      }
    }
    if (!reduced && chunks.length > 2) {
      for (let i = 0; i < chunks.length; i++) {
        const complement = chunks.filter((_, j) => j !== i).flat();
        if (await fails(complement)) {
          cur = complement;
          n = Math.max(n - 1, 2);
          reduced = true;
          break;
        }
      }
    }
    if (!reduced) {
      if (n >= cur.length) break;
      n = Math.min(cur.length, n * 2);
    }
  }
  return cur;
}

function split<T>(items: T[], n: number): T[][] {
  const out: T[][] = [];
  const size = items.length / n;
  for (let i = 0; i < n; i++) {
    const part = items.slice(Math.round(i * size), Math.round((i + 1) * size));
    if (part.length > 0) out.push(part);
  }
  return out;
}

function isJsonObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
