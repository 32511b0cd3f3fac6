import { defineProperty, type Verdict } from '../src/harness/property.js';
import { explanation, fmtActor, fmtList, fmtObject, fmtTime, letFacts } from '../src/report/explain.js';
import { primaryKindOf, timelineOf, type TimelineWrite } from './_internals/timeline.js';
import { alternatingValues, keyFightHint } from './_internals/key-fight.js';
import { electionWrites, type ElectionScan } from './_internals/election.js';
import { groupBy } from './_internals/windows.js';
import { FightScan } from './_internals/fight-scan.js';
import type { LiveRun, RunMonitor } from '../src/harness/property.js';

/** Options of {@link noFighting}. @public */
export interface NoFightingOptions {
  /** Hand-overs of one field between different writers allowed in the window. @defaultValue 2 */
  maxFlips: number;
  /** Where to look: from the settle phase on (`'settle'`) or only in the quiet tail (`'tail'`). @defaultValue 'settle' */
  from: 'settle' | 'tail';
}

/**
 * No fighting (SPEC §1 "controllers fighting", §5): after faults stop, no field keeps changing
 * hands between writers. Two controllers that both believe they own a field flip it back and
 * forth in an event storm; the explanation names the field, the object and the actors. A field
 * fails when it changed hands more than `maxFlips` times from `from` on and still changed hands
 * in the quiet tail: hand-overs that stopped before it are a protocol that ran its course (two
 * controllers that share a field by design, draining a backlog), not a fight.
 * Writers are told apart by actor and, for a controller's writes, by the key its reconcile
 * served: two keys of one controller that set one field in turn (two CronScalers enforcing 3 and
 * 2 replicas on one Deployment) fight as two controllers would, and the story names the keys.
 * Injected writes (`fault:*` actors) never count.
 * @example properties.noFighting({ maxFlips: 0, from: 'tail' })
 * @public
 */
export const noFighting = defineProperty<NoFightingOptions>({
  name: 'no-fighting',
  description: 'after faults stop, no field flips between writers more than N times',
  defaults: { maxFlips: 2, from: 'settle' },
  monitor: (o) => fightMonitor(o),
  validate: (o) => (!(o.maxFlips >= 0) ? `maxFlips must be ≥ 0, got ${String(o.maxFlips)}` : o.from !== 'settle' && o.from !== 'tail' ? `from must be 'settle' or 'tail', got ${JSON.stringify(o.from)}` : undefined),
  judge: (run, o): Verdict => {
    const start = o.from === 'tail' ? run.timing.tailStart : run.timing.settleStart;
    const writes = timelineOf(run).writes.filter((w) => w.t >= start && !w.noop && w.error === undefined && !w.actor.startsWith('fault:') && !w.removed);
    const perField = groupBy(
      writes.flatMap((w) => w.changed.filter((p) => p !== '.').map((path) => ({ path, w }))),
      // per object, not per name: an object deleted and made again under its name starts its fields afresh
      (x) => `${x.w.kind}\u0000${x.w.key}\u0000${x.w.uid ?? ''}\u0000${x.path}`,
    );
    const election = electionWrites(run);
    const writerOf = (w: TimelineWrite) => writerOfWrite(w, election);
    let worst: { path: string; seq: TimelineWrite[]; flips: number } | undefined;
    const tail = run.timing.tailStart;
    // a run the monitor stopped at its guess, before the tail: the fight it saw going on is judged
    // as if it went on into the tail (the check confirms that on the same scenario run on past it)
    const stop = run.timing.stoppedEarly?.property === 'no-fighting' ? run.timing.stoppedEarly : undefined;
    const guessed = stop !== undefined && stop.certain !== true;
    for (const xs of perField.values()) {
      const seq = xs.map((x) => x.w);
      let flips = 0;
      let lastFlip = -Infinity;
      for (let i = 1; i < seq.length; i++) {
        if (writerOf(seq[i]!) === writerOf(seq[i - 1]!)) continue;
        flips++;
        lastFlip = seq[i]!.t;
      }
      // a fight keeps going: a field two writers hand over a few times while a backlog the faults
      // held back drains (an eviction adds a Pod to a budget's disruptedPods, the disruption
      // controller prunes it, for each of two evictions) is a protocol, and it is over before the tail
      if (lastFlip < tail && !guessed) continue;
      if (flips > o.maxFlips && (!worst || flips > worst.flips)) worst = { path: xs[0]!.path, seq, flips };
    }
    if (!worst) return { ok: true, stats: { fieldsWritten: perField.size } };
    const { path, seq, flips } = worst;
    const first = seq[0]!;
    const actors = [...new Set(seq.map((w) => w.actor))];
    // one controller's keys and nobody else: a fight inside the controller, told by its keys
    const keyed = actors.length === 1;
    const kind = keyed ? primaryKindOf(run, actors[0]!) : undefined;
    const keys = keyed ? [...new Set(seq.map((w) => w.reconcile?.key).filter((k) => k !== undefined))].sort() : [];
    const nameOf = (w: TimelineWrite) => (keyed && writerOf(w) !== w.actor ? fmtObject(kind ?? '', w.reconcile!.key) : fmtActor(w.actor));
    const counts = [...groupBy(seq, keyed ? writerOf : (w) => w.actor).values()].map((ws) => `${nameOf(ws[0]!)} (${ws.length}×)`);
    const values = keys.length >= 2 ? alternatingValues(run, first.kind, first.key, path) : undefined;
    const then = [
      `between ${fmtTime(first.t)} and ${fmtTime(seq.at(-1)!.t)} field ${path} of ${fmtObject(first.kind, first.key)} changed hands ${flips} times, written alternately by ${fmtList(counts, 4)}${keys.length >= 2 ? `, ${keys.length === 2 ? 'both' : 'all'} keys of ${fmtActor(actors[0]!)}${values ? `, setting it to ${values.join(', ')}, ${values[0]!}, …` : ''}` : ''}`,
      `the first writes: ${seq
        .slice(0, 4)
        .map((w) => `${nameOf(w)} at ${fmtTime(w.t)}`)
        .join(', then ')}`,
      ...(stop ? [stop.certain === true ? `the run was stopped there (${fmtTime(run.timing.end)}): the field had changed hands more than ${o.maxFlips} times and again in the quiet tail, so every run with this beginning fails` : `the run was stopped there (${fmtTime(run.timing.end)}): ${stop.reason}, with nothing from outside in between (no user action, fault, restart or leader change), so the fight goes on into the quiet tail`] : []),
      keys.length >= 2 ? `each key's reconcile undid the other's write, and neither gave way: ${keyFightHint(kind ?? 'primary object', first.kind)}` : 'two writers both believe they own this field: give it one owner (split the field, or let one controller defer to the other)',
    ];
    const between = keys.length >= 2 ? `${keys.slice(0, 2).map((k) => fmtObject(kind ?? '', k)).join(' and ')}${keys.length > 2 ? ` (and ${keys.length - 2} more)` : ''}, keys of ${actors[0]!}` : actors.join(' and ');
    return {
      ok: false,
      summary: `fighting over ${path} of ${fmtObject(first.kind, first.key)}: ${flips} flips between ${between}`,
      explanation: explanation(letFacts(run.trace, { until: start }), then),
      evidence: {
        kind: first.kind,
        key: first.key,
        path,
        flips,
        actors,
        ...(keys.length >= 2 ? { keys, ...(values ? { values } : {}) } : {}),
        writes: seq.slice(0, 30).map((w) => ({ t: w.t, actor: w.actor, ...(w.reconcile ? { reconcileKey: w.reconcile.key } : {}), verb: w.verb, rv: w.rv ?? null })),
      },
    };
  },
});

/**
 * Who made a write, as a fight tells writers apart: a controller's reconcile of one key is a
 * writer of its own (two keys of one controller setting one field in turn fight as two
 * controllers would: two CronScalers enforcing 3 and 2 replicas on one Deployment, each on its own
 * timer, which no-hot-loop excuses as scheduled work); anything else is its actor. A Lease renewal
 * at an elector's pace is the process's, whichever reconcile it landed in.
 */
function writerOfWrite(w: TimelineWrite, election: ElectionScan): string {
  if (w.reconcile === undefined || (w.kind === 'Lease' && election.has(w.index))) return w.actor;
  return `${w.actor}\u0000${w.reconcile.key}`;
}

/** Hand-overs in a row, in the settle phase or later, that make a fight a guess: far more than any handoff (a leader change, a backlog two writers drain) takes, with nothing from outside to start one. */
export const FIGHT_GUESS_HANDOVERS = 200;

/**
 * Stops a run once a fight's verdict is known, instead of simulating it (tens of thousands of
 * writes) to the end of the run: (1) certain: a field met the judge's rule on the run so far, more
 * than `maxFlips` hand-overs from `from` on and one of them in the quiet tail. Prefix-closed: the
 * judge counts the same writes by the same writers in every run that extends this one (each is
 * decided from what came before it: FightScan), hand-overs only add up and the last one only moves
 * later, so every such run fails. (2) a guess: two writers took turns {@link FIGHT_GUESS_HANDOVERS}
 * times in a row from the settle phase on, with nothing from outside in between. Not certain: the
 * judge fails only a fight still going in the tail, and a writer with a state of its own may give
 * way (a program that backs off after N conflicts); the check confirms it by running the same
 * scenario on, to the certain stop or its end.
 */
function fightMonitor(o: NoFightingOptions): RunMonitor {
  let scan: FightScan | undefined;
  const guessAt = Math.max(FIGHT_GUESS_HANDOVERS, 10 * (o.maxFlips + 1));
  return {
    afterWrite(run: LiveRun) {
      const { settleStart, tailStart } = run.timing;
      scan ??= new FightScan({ maxFlips: o.maxFlips, start: o.from === 'tail' ? tailStart : settleStart, settleStart, tailStart, guessAt });
      scan.scan(run.trace);
      const f = scan.certain ?? scan.guessed;
      if (f === undefined) return undefined;
      const what = `${f.path} of ${fmtObject(f.kind, f.key)}`;
      if (f === scan.certain) return { reason: `${what} changed hands ${f.flips} times, the last in the quiet tail`, from: f.from, certain: true };
      return { reason: `${fmtList(f.writers.map(writerName), 2)} took turns setting ${what} ${f.inARow} times in a row`, from: f.from };
    },
  };
}

/** A writer as FightScan names it: an actor, or an actor and the key its reconcile served. */
function writerName(w: string): string {
  const i = w.indexOf('\u0000');
  return i < 0 ? fmtActor(w) : `${fmtActor(w.slice(0, i))} (reconciling ${w.slice(i + 1)})`;
}
