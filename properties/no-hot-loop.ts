import { defineProperty, nothingToJudge, type Verdict } from '../src/harness/property.js';
import { explanation, fmtActor, fmtDuration, fmtList, fmtObject, fmtTime, plural } from '../src/report/explain.js';
import { answeredWrite, chainOf, fmtChain, selfTriggering } from './_internals/chain.js';
import type { LiveRun, RunMonitor, RunRecord } from '../src/harness/property.js';
import type { TraceEntry } from '../src/sim/trace.js';
import { convergedAtTail } from './_internals/primary.js';
import { sampleObjects } from './_internals/esr.js';
import { byScheduledWork, scheduledWork } from './_internals/scheduled.js';
import { primaryKindOf, timelineOf, type TimelineWrite } from './_internals/timeline.js';
import { alternatingValues, keyFightHint } from './_internals/key-fight.js';
import { groupBy } from './_internals/windows.js';
import { isRecord } from './_internals/json.js';
import { ElectionScan, electionWrites, leftOut } from './_internals/election.js';
import type { StoredObject } from '../src/store/object.js';
import { FlipFlopScan } from './_internals/flip-flop.js';

/** Times in a row a field set back and forth between two values makes a guess (see {@link FlipFlopScan}). */
export const FLIP_FLOP_GUESS = 200;

/** Options of {@link noHotLoop}. @public */
export interface NoHotLoopOptions {
  /** Controller writes allowed in the quiet tail (a resync of a correct reconciler needs none). @defaultValue 0 */
  maxWrites: number;
  /** The quiet tail starts this long after the tail's extra reconciles were sent (those are idempotence's). @defaultValue 2000 */
  quietAfterMs: number;
  /**
   * Kinds whose writes do not count. A Lease renewed at a leader elector's pace (at most once a
   * second, changing only an elector's fields: see `_internals/election.ts`) never counts; every
   * other Lease write does, unless `'Lease'` is listed here.
   * @defaultValue []
   */
  ignoreKinds: string[];
}

/**
 * No hot loop (SPEC §1, §5): in the quiet tail (converged, no actions, no faults) controllers
 * stay silent. A reconcile that writes unconditionally, typically status, triggers a watch
 * event that triggers the next reconcile: the explanation names that self-triggering chain and
 * the fields each write changed. Fix: compare before writing. A controller that stamps the
 * time on one object again and again, each stamp's event bringing the next, is a loop too while
 * the world is still converging (a rollout waiting for its canary): judged anywhere in the run.
 * @example properties.noHotLoop({ maxWrites: 2 })
 * @public
 */
export const noHotLoop = defineProperty<NoHotLoopOptions>({
  name: 'no-hot-loop',
  description: 'in the quiet tail controllers make at most the allowed number of writes (default none), and nowhere does one stamp the time on an object a thousand times in a row while nothing else happens',
  defaults: { maxWrites: 0, quietAfterMs: 2000, ignoreKinds: [] },
  // liveness: the fault-free twin must meet it too (faults can hide a livelock that needs none: red team rt46 M-2)
  judgesFaultFreeTwin: true,
  monitor: (o, ctx) => loopMonitor(o, ctx?.primaryKinds),
  validate: (o) => (!(o.maxWrites >= 0) ? `maxWrites must be ≥ 0, got ${String(o.maxWrites)}` : !(o.quietAfterMs >= 0) ? `quietAfterMs must be ≥ 0, got ${String(o.quietAfterMs)}` : undefined),
  judge: (run, o): Verdict => {
    // a stamping loop anywhere in the run, converged or not: the time written again and again (the
    // monitor stops a run at one; a run stopped for the other reason is judged on its window)
    const stopped = run.timing.stoppedEarly?.property === 'no-hot-loop';
    // and a growing loop: every write makes one object bigger, with nothing else happening
    const stamping = (): Verdict | undefined => {
      const ignore = new Set(o.ignoreKinds);
      const s = stampingLoop(run, ignore, streakLimitOf(o));
      if (s) return stampingVerdict(run, s);
      const g = growingLoop(run, ignore, streakLimitOf(o));
      return g ? growingVerdict(run, g) : undefined;
    };
    const first = stopped ? stamping() : undefined;
    if (first) return first;
    const tail = tailVerdict(run, o);
    if (!tail.ok || stopped) return tail;
    return stamping() ?? tail;
  },
});

/** The quiet tail's verdict (or, for a run the monitor stopped, the verdict on its window). */
function tailVerdict(run: RunRecord, o: NoHotLoopOptions): Verdict {
  const early = run.timing.stoppedEarly?.property === 'no-hot-loop' ? run.timing.stoppedEarly : undefined;
  const from = early ? early.from : run.timing.tailStart + o.quietAfterMs;
  const to = run.timing.end;
  if (!early && !(to > from)) return nothingToJudge(`the tail is shorter than quietAfterMs (${o.quietAfterMs} ms)`);
  if (!early && !convergedAtTail(run)) return nothingToJudge('the world had not converged when the tail began (convergence reports it)');
  const tl = timelineOf(run);
  const ignore = new Set(o.ignoreKinds);
  // what the controller's own schedule did (a Job per time slot, and what follows from it) is no loop
  const scheduled = scheduledWork(tl, run.timing.tailStart, { election: electionWrites(run) });
  const quiet = tl.writes.filter((w) => w.t >= from && w.t <= to && w.actor.startsWith('controller:') && !leftOut(run, ignore, w));
  const writes = quiet.filter((w) => !byScheduledWork(w, scheduled));
  if (writes.length <= o.maxWrites) return { ok: true, stats: { quietWrites: writes.length, ...(quiet.length > writes.length ? { scheduledWrites: quiet.length - writes.length } : {}) } };

  const byObject = groupBy(writes, (w) => `${w.kind} ${w.key}`);
  const [hottest, hw] = [...byObject].sort((a, b) => b[1].length - a[1].length)[0]!;
  const sample = hw[Math.min(hw.length - 1, 2)]!;
  const chain = chainOf(run, tl, sample);
  const fields = countFields(hw);
  const actors = [...new Set(writes.map((w) => w.actor))];
  const rate = (writes.length * 1000) / Math.max(1, to - from);
  const then: string[] = [
    `between ${fmtTime(from)} and ${fmtTime(to)} ${fmtList(actors, 3)} made ${plural(writes.length, 'write')} (${rate.toFixed(1)}/s) while nothing ${early ? 'else happened' : 'changed'}, ${hw.length} of them to ${hottest}`,
  ];
  if (hw.some((w) => w.error === undefined)) then.push(`they changed ${fmtList(fields.map(([f, n]) => `${f} (${n}×)`), 4)}${hw.some((w) => w.noop) ? `; ${hw.filter((w) => w.noop).length} changed nothing` : ''}`);
  const fight = fightOf(run, hw);
  if (fight) then.push(fight.story);
  if (chain.length > 0) then.push(`${selfTriggering(chain) ? 'the loop feeds itself' : 'the chain'}: ${fmtChain(chain)}`);
  const answer = chain[0]?.trigger.type === 'event' && chain[0].trigger.write ? answeredWrite(tl, chain[0].trigger.write) : undefined;
  if (answer && actors.includes(answer.write.actor)) then.push(environmentStory(chain[0]!.trigger.type === 'event' ? chain[0]!.trigger.write! : answer.write, answer));
  // every stop judged here is a monitor's guess (the certain ones are stamping and growing loops):
  // say so, the check's confirmation follows
  if (early) then.push(`the run was stopped there (${fmtTime(to)}): with nothing else happening the loop goes on, so it was not simulated further (a guess: the same scenario is run on to confirm it)`);
  // writes the API server refused are retried, not repeated: the advice is about the request
  const refused = hw.filter((w) => w.error !== undefined);
  const allRefused = refused.length === hw.length;
  const reasons = allRefused ? [...new Set(refused.map((w) => w.error!))] : [];
  if (allRefused) {
    const said = refused.map((w) => w.reconcile?.error).find((e) => e !== undefined);
    then.push(`every one of them was refused (${fmtList(reasons, 3)}${said !== undefined ? `: ${said.length > 300 ? `${said.slice(0, 300)}…` : said}` : ''}), so the controller retries it on every resync and backoff; the API server will refuse it again: fix what the request sends`);
  } else if (fight) then.push(fight.hint);
  else if (answer && actors.includes(answer.write.actor)) then.push('derive what is written from the declared spec, not from what the environment made of the last write (a value that follows its own effect never settles)');
  else then.push('compare desired with current state before writing (deep-equal, or generation vs observedGeneration)');
  return {
    ok: false,
    summary: fight
      ? `fight: ${fight.keys.map((k) => fmtObject(fight.kind ?? '', k)).join(' and ')} set ${fight.path} of ${hottest} in turn, ${plural(fight.writes, 'write')} in ${fmtDuration(to - from)} ${early ? 'while nothing else happened' : 'of the quiet tail'}${fight.values ? ` (${fight.values.join(', ')}, …)` : ''}`
      : `hot loop: ${plural(writes.length, 'controller write')} in ${fmtDuration(to - from)} ${early ? 'while nothing else happened' : 'of the quiet tail'}, ${hw.length} to ${hottest} (${allRefused ? `refused: ${reasons.join(', ')}` : fields.map(([f]) => f).slice(0, 3).join(', ')})`,
    explanation: explanation(early ? [`the world was converged at ${fmtTime(to)}`, `no user action and no other actor's write came after ${fmtTime(from)}`] : [`the world had converged by ${fmtTime(run.timing.tailStart)}`, `no fault and no user action came after ${fmtTime(from)}`], then),
    evidence: {
      window: { from, to },
      ...(early ? { stoppedEarly: true } : {}),
      writes: writes.length,
      perObject: Object.fromEntries([...byObject].map(([k, v]) => [k, v.length])),
      fields: Object.fromEntries(fields),
      chain: chain.map((l) => ({ t: l.write.t, object: fmtObject(l.write.kind, l.write.key), verb: l.write.verb, changed: l.write.changed, rv: l.write.rv ?? null, trigger: l.trigger.type })),
      first: writes.slice(0, 10).map((w) => ({ t: w.t, actor: w.actor, verb: w.verb, kind: w.kind, key: w.key, changed: w.changed, noop: w.noop })),
      ...(fight ? { fight: { keys: fight.keys, path: fight.path, handOvers: fight.handOvers, ...(fight.values ? { values: fight.values } : {}) } } : {}),
    },
  };
}

/** The environment's write that started the loop's chain answered the controller's own earlier write (scheduled.ts: no schedule, no timer of the environment's own). */
function environmentStory(env: TimelineWrite, answer: { write: TimelineWrite; through: TimelineWrite[] }): string {
  const via = [...new Set(answer.through.map((x) => `${x.kind} ${x.key}`))];
  const w = answer.write;
  return `${fmtActor(env.actor)} wrote ${fmtObject(env.kind, env.key)} at ${fmtTime(env.t)} in answer to ${fmtActor(w.actor)}'s own ${w.verb} of ${fmtObject(w.kind, w.key)} at ${fmtTime(w.t)} (changed ${fmtList(w.changed, 3)})${via.length > 0 ? `, through ${fmtList(via, 4)}` : ''}: the environment moved only because the controller wrote, and each answer brought the next write`;
}

/** Two keys of one controller undoing each other's write to one field (see {@link fightOf}). */
interface Fight {
  /** The keys' kind (the controller's primary kind), when known. */
  kind: string | undefined;
  keys: string[];
  path: string;
  writes: number;
  handOvers: number;
  /** The values they alternate, when the run's recorded states show both (settled and final). */
  values: string[] | undefined;
  story: string;
  hint: string;
}

/**
 * A fight inside one controller: the writes to the hottest object change one field, made in turn
 * by reconciles of two keys of one controller (two Scalers that target one Deployment, one
 * wanting 3 replicas, the other 2): each undoes the other's, and the environment's answer to each
 * (the Deployment's status) brings the next. no-fighting tells writers apart by actor, so one
 * controller's keys are one writer there; here the loop is judged as the controller's own (the
 * world moves only because it writes: scheduled.ts), and the story names the keys (h48).
 */
function fightOf(run: RunRecord, hw: readonly TimelineWrite[]): Fight | undefined {
  const byField = new Map<string, { keys: string[]; writes: number; handOvers: number; actor: string; last: string | undefined }>();
  for (const w of hw) {
    if (w.noop || w.error !== undefined || w.reconcile === undefined) continue;
    for (const f of w.changed) {
      let x = byField.get(f);
      if (x === undefined) byField.set(f, (x = { keys: [], writes: 0, handOvers: 0, actor: w.actor, last: undefined }));
      if (x.actor !== w.actor) continue;
      x.writes++;
      if (!x.keys.includes(w.reconcile.key)) x.keys.push(w.reconcile.key);
      if (x.last !== undefined && x.last !== w.reconcile.key) x.handOvers++;
      x.last = w.reconcile.key;
    }
  }
  const [path, best] = [...byField].filter(([, x]) => x.keys.length >= 2 && x.handOvers >= 2).sort((a, b) => b[1].handOvers - a[1].handOvers)[0] ?? [];
  if (path === undefined || best === undefined) return undefined;
  const sample = hw[0]!;
  const kind = primaryKindOf(run, best.actor);
  const keys = [...best.keys].sort().slice(0, 2);
  const named = keys.map((k) => fmtObject(kind ?? '', k));
  const values = alternatingValues(run, sample.kind, sample.key, path);
  const controller = fmtActor(best.actor);
  const story = `${named[0]!} and ${named[1]!}${best.keys.length > 2 ? ` (and ${best.keys.length - 2} more)` : ''}, two keys of ${controller}, set ${path} of ${fmtObject(sample.kind, sample.key)} in turn${values ? ` (${values.join(', ')}, ${values[0]!}, …)` : ''}: ${best.handOvers} times one key's reconcile undid the other's write, and the environment's answer to each write brought the next; nothing from outside moved the world`;
  const kindName = kind ?? 'primary object';
  const hint = keyFightHint(kindName, sample.kind);
  return { kind, keys, path, writes: best.writes, handOvers: best.handOvers, values, story, hint };
}

/** A stamping loop: `count` writes in a row by `actor` to one object, each changing only `fields`, time stamps of the write's own moment. */
export interface StampStreak {
  object: string;
  actor: string;
  fields: string[];
  count: number;
  from: number;
  to: number;
  /** Index in the run's writes of the streak's first write. */
  first: number;
}

/**
 * Scans trace entries for a stamping loop (SPEC §1: API write QPS explodes while nothing
 * changes): one controller replica writing the time into the same fields of one object, again
 * and again, with nothing else happening in between (no user action, crash, environment step,
 * other actor's write, or other write of a controller that changed anything but stamps). Each
 * stamp's watch event brings the next reconcile, and it goes on whether or not the world is
 * converged (a rollout stamping `status.stepStartedAt` on every pass while its canary starts), so
 * it is judged anywhere in the run, not only in the quiet tail. Incremental: the monitor calls
 * `scan` after every write, the judge once on the whole trace.
 * @internal
 */
export class StampScan {
  /** The first streak that reached the limit; it keeps counting while the streak goes on. */
  reached: StampStreak | undefined;
  /** The most writes in a row of any streak so far. */
  longest = 0;
  private readonly streaks = new Map<string, StampStreak>();
  private index = 0;
  private writeIndex = 0;
  private stampedIndex = 0;
  constructor(
    private readonly ignore: ReadonlySet<string>,
    private readonly limit: number,
    /** Lease renewals at an elector's pace, never counted (see {@link ElectionScan}). */
    private readonly election: ElectionScan = new ElectionScan(),
  ) {}

  /** Scans the entries of `trace` not scanned yet (`stamped`: the run's stamp-only write indices, ascending). */
  scan(trace: readonly TraceEntry[], stamped: readonly number[]): StampStreak | undefined {
    this.election.scan(trace);
    for (; this.index < trace.length; this.index++) {
      const e = trace[this.index]!;
      if (EXTERNAL.has(e.type)) {
        this.streaks.clear();
        continue;
      }
      // a request the API-error fault failed is traced but never reached the store: it is not among
      // the run's writes, which `stamped` indexes (counting it put every later write off by one, so
      // the monitor, scanning as the run goes, never saw a stamping loop after an injected API error)
      if (e.type !== 'store:write' || e['fault'] === 'api-error') continue;
      const w = this.writeIndex++;
      while (this.stampedIndex < stamped.length && stamped[this.stampedIndex]! < w) this.stampedIndex++;
      if (e['error'] !== undefined || e['noop'] === true) continue;
      const actor = String(e['actor']);
      if (!actor.startsWith('controller:')) {
        this.streaks.clear();
        continue;
      }
      const kind = String(e['kind']);
      if (this.ignore.has(kind) || (kind === 'Lease' && this.election.has(this.index))) continue;
      if (stamped[this.stampedIndex] !== w) {
        this.streaks.clear();
        continue;
      }
      const key = `${kind} ${String(e['key'])}`;
      const fields = e['changed'] as string[];
      let s = this.streaks.get(key);
      if (s && s.actor === actor && s.fields.length === fields.length && s.fields.every((f, i) => f === fields[i])) {
        s.count++;
        s.to = e.t;
      } else this.streaks.set(key, (s = { object: key, actor, fields, count: 1, from: e.t, to: e.t, first: w }));
      if (s.count > this.longest) this.longest = s.count;
      if (s.count >= this.limit) this.reached ??= s;
    }
    return this.reached;
  }
}

/** A growing loop: `count` writes by `actor` to one object, each making it bigger, with at most `count / 10` things happening besides. */
export interface GrowStreak {
  object: string;
  actor: string;
  /** The paths the writes changed most (a path new on every write, a map's new key, as its parent: `data.*`). */
  fields: string[];
  count: number;
  /** User actions, environment steps and other actors' writes during the streak. */
  events: number;
  from: number;
  to: number;
}

/**
 * Scans trace entries for a growing loop (red team round 9, L-1): one controller replica making
 * one object bigger write after write (an entry appended to `status.history`, a key added to a
 * ConfigMap), each write's event bringing the next reconcile. A log of transitions grows by an
 * entry per thing that happened; this one grows whether or not anything did. So the streak is
 * not ended by a user action, an environment step or another actor's write (each is counted: a
 * streak is a loop only with at least ten growing writes per such event), only by a crash or
 * restart, a write of a controller that did not make its object bigger, or a downstream request
 * (work done outside, which a log may record entry by entry). Incremental and prefix-closed as
 * {@link StampScan}: `grown` is decided at each write from the sizes before it.
 * @internal
 */
export class GrowScan {
  reached: GrowStreak | undefined;
  private readonly streaks = new Map<string, GrowStreak & { counts: Map<string, number> }>();
  private index = 0;
  private writeIndex = 0;
  private grownIndex = 0;
  constructor(
    private readonly ignore: ReadonlySet<string>,
    private readonly limit: number,
    private readonly election: ElectionScan = new ElectionScan(),
  ) {}

  scan(trace: readonly TraceEntry[], grown: readonly number[]): GrowStreak | undefined {
    this.election.scan(trace);
    for (; this.index < trace.length; this.index++) {
      const e = trace[this.index]!;
      if (e.type === 'controller:crash' || e.type === 'controller:start' || e.type === 'downstream:request') {
        this.streaks.clear();
        continue;
      }
      if (EXTERNAL.has(e.type)) {
        this.happened();
        continue;
      }
      if (e.type !== 'store:write' || e['fault'] === 'api-error') continue;
      const w = this.writeIndex++;
      while (this.grownIndex < grown.length && grown[this.grownIndex]! < w) this.grownIndex++;
      if (e['error'] !== undefined || e['noop'] === true) continue;
      const actor = String(e['actor']);
      if (!actor.startsWith('controller:')) {
        this.happened();
        continue;
      }
      const kind = String(e['kind']);
      if (this.ignore.has(kind) || (kind === 'Lease' && this.election.has(this.index))) continue;
      if (grown[this.grownIndex] !== w) {
        this.streaks.clear();
        continue;
      }
      const key = `${kind} ${String(e['key'])}`;
      let s = this.streaks.get(key);
      if (s && s.actor === actor) {
        s.count++;
        s.to = e.t;
      } else this.streaks.set(key, (s = { object: key, actor, fields: [], count: 1, events: 0, from: e.t, to: e.t, counts: new Map() }));
      // the paths, counted (at most 64 kept: a new key per write is told by its parent)
      for (const f of e['changed'] as string[]) {
        const n = s.counts.get(f);
        if (n !== undefined) s.counts.set(f, n + 1);
        else if (s.counts.size < 64) s.counts.set(f, 1);
      }
      if (s.count >= this.limit && s.count >= 10 * s.events && this.reached === undefined) this.reached = s;
      if (this.reached === s) s.fields = growthFields(s.counts, s.count);
    }
    return this.reached;
  }

  private happened(): void {
    for (const s of this.streaks.values()) s.events++;
  }
}

/** The paths most of a streak's writes changed; else (a path new on every write) their parents, `data.*`. */
function growthFields(counts: ReadonlyMap<string, number>, writes: number): string[] {
  const most = [...counts].filter(([, n]) => n * 2 >= writes).sort((a, b) => b[1] - a[1]).map(([f]) => f);
  if (most.length > 0) return most;
  return [...new Set([...counts.keys()].map((f) => (f.includes('.') ? `${f.slice(0, f.lastIndexOf('.'))}.*` : f)))];
}

/** Writes in a row that make a loop certain: `max(1000, 100 × maxWrites)`. */
function streakLimitOf(o: NoHotLoopOptions): number {
  return Math.max(1000, 100 * Math.max(1, o.maxWrites));
}

/** The first stamping loop of a whole run that reaches `limit` writes, counted to its end. */
function stampingLoop(run: RunRecord, ignore: ReadonlySet<string>, limit: number): StampStreak | undefined {
  const stamped = run.stamped ?? [];
  if (stamped.length < limit) return undefined;
  const scan = new StampScan(ignore, limit, electionWrites(run));
  return scan.scan(run.trace, stamped);
}

/** The first growing loop of a whole run that reaches `limit` writes, counted to its end. */
function growingLoop(run: RunRecord, ignore: ReadonlySet<string>, limit: number): GrowStreak | undefined {
  const grown = run.grown ?? [];
  if (grown.length < limit) return undefined;
  return new GrowScan(ignore, limit, electionWrites(run)).scan(run.trace, grown);
}

/**
 * A growing loop (red team round 9, L-1): a controller appends to its object on every reconcile
 * (an entry of `status.history`, a key of a ConfigMap's data, an annotation), and the write's
 * watch event brings the next reconcile. Nothing else happens, so nothing the entries record
 * changes; the object grows until etcd refuses it (1.5 MiB). A log that records only transitions,
 * or keeps the last N entries, stops growing and never gets here.
 */
function growingVerdict(run: RunRecord, s: GrowStreak): Verdict {
  const tl = timelineOf(run);
  const [kind = '', key = ''] = [s.object.slice(0, s.object.indexOf(' ')), s.object.slice(s.object.indexOf(' ') + 1)];
  const sample = tl.writes.find((w) => w.t > s.from && w.kind === kind && w.key === key && w.actor === s.actor && w.error === undefined && !w.noop);
  const chain = sample ? chainOf(run, tl, sample) : [];
  const span = Math.max(1, s.to - s.from);
  const rate = (s.count * 1000) / span;
  const obj = fmtObject(kind, key);
  const fields = fmtList(s.fields, 4);
  const then = [
    `between ${fmtTime(s.from)} and ${fmtTime(s.to)} ${s.actor} wrote ${obj} ${s.count.toLocaleString('en-US')} times (${rate >= 10 ? Math.round(rate).toLocaleString('en-US') : rate.toFixed(1)}/s), each write making it bigger (${fields})`,
    s.events === 0
      ? 'nothing else happened in between: no user action, no other write that changed anything, no downstream request, no crash or environment step, so nothing new was there to record'
      : `meanwhile only ${plural(s.events, 'thing')} happened (user actions, environment steps, other writers' writes), and no downstream request, crash or other write of a controller: far more entries than things to record`,
  ];
  if (chain.length > 0) then.push(`${selfTriggering(chain) ? 'the loop feeds itself' : 'the chain'}: ${fmtChain(chain)}`);
  if (run.timing.stoppedEarly) then.push(`the run was stopped there (${fmtTime(run.timing.end)}): ${s.count.toLocaleString('en-US')} such writes in a row already decide the verdict`);
  then.push('on a cluster the object grows until etcd refuses it (over 1.5 MiB: 500 "etcdserver: request is too large") and every write after fails; append an entry only when what it records changes (a transition), and keep a bounded list (the last N entries)');
  return {
    ok: false,
    summary: `hot loop: ${s.count.toLocaleString('en-US')} writes to ${obj} by ${s.actor}, each making it bigger (${s.fields.slice(0, 2).join(', ')})`,
    explanation: explanation([`a controller adds to ${obj} on every reconcile`, "each write's watch event brings the next reconcile"], then),
    evidence: {
      growing: { object: s.object, actor: s.actor, fields: s.fields, writes: s.count, events: s.events, from: s.from, to: s.to },
      chain: chain.map((l) => ({ t: l.write.t, object: fmtObject(l.write.kind, l.write.key), verb: l.write.verb, changed: l.write.changed, rv: l.write.rv ?? null, trigger: l.trigger.type })),
    },
  };
}

function stampingVerdict(run: RunRecord, s: StampStreak): Verdict {
  const tl = timelineOf(run);
  const [kind = '', key = ''] = [s.object.slice(0, s.object.indexOf(' ')), s.object.slice(s.object.indexOf(' ') + 1)];
  const sample = tl.writes.find((w) => w.t > s.from && w.kind === kind && w.key === key && w.actor === s.actor && w.error === undefined && !w.noop);
  const chain = sample ? chainOf(run, tl, sample) : [];
  const span = Math.max(1, s.to - s.from);
  const rate = (s.count * 1000) / span;
  const obj = fmtObject(kind, key);
  const fields = fmtList(s.fields, 4);
  const then = [
    `between ${fmtTime(s.from)} and ${fmtTime(s.to)} ${s.actor} wrote ${obj} ${s.count.toLocaleString('en-US')} times in a row (${rate >= 10 ? Math.round(rate).toLocaleString('en-US') : rate.toFixed(1)}/s), each write changing only ${fields}, to the time of the write itself`,
    'nothing else happened in between: no user action, no other write that changed anything, no crash or environment step',
  ];
  if (chain.length > 0) then.push(`${selfTriggering(chain) ? 'the loop feeds itself' : 'the chain'}: ${fmtChain(chain)}`);
  if (run.timing.stoppedEarly) then.push(`the run was stopped there (${fmtTime(run.timing.end)}): ${s.count.toLocaleString('en-US')} such writes in a row already decide the verdict`);
  then.push(`stamp a time only when what it dates changes (compare the rest of the status first, or keep the time already there), so a reconcile that has nothing new to record writes nothing`);
  return {
    ok: false,
    summary: `hot loop: ${s.count.toLocaleString('en-US')} writes in a row to ${obj} by ${s.actor}, each changing only the time stamp ${s.fields.slice(0, 2).join(', ')}`,
    explanation: explanation([`a controller writes the current time into ${obj} on every reconcile`, 'each write\'s watch event brings the next reconcile'], then),
    evidence: {
      stamping: { object: s.object, actor: s.actor, fields: s.fields, writes: s.count, from: s.from, to: s.to },
      chain: chain.map((l) => ({ t: l.write.t, object: fmtObject(l.write.kind, l.write.key), verb: l.write.verb, changed: l.write.changed, rv: l.write.rv ?? null, trigger: l.trigger.type })),
    },
  };
}

function countFields(ws: readonly TimelineWrite[]): [string, number][] {
  const m = new Map<string, number>();
  for (const w of ws) for (const f of w.noop ? ['(nothing)'] : w.changed) m.set(f, (m.get(f) ?? 0) + 1);
  return [...m].sort((a, b) => b[1] - a[1]);
}

/**
 * Trace entries that are something happening besides a controller's own writes: a user acting,
 * a replica (re)starting, an environment actor. Fault injections are not among them: a fault
 * can slow a loop (a dropped event) but never makes a controller write the same fields of one
 * object a hundred times in a row; one that writes as another actor (drift, recreation) resets
 * the count by its write.
 */
const EXTERNAL = new Set(['user:action', 'controller:crash', 'controller:start', 'environment:step', 'invariant:violated']);

/**
 * Stops a run once a hot loop is certain, instead of simulating it for the rest of the run:
 * (1) some object got `max(1000, 100 × maxWrites)` writes in a row from one controller replica,
 * each changing the same fields, with no user action, crash or other actor's write in between,
 * while the world is converged (halfway through and at the end, with every same-named spec and
 * status field equal): nothing but the loop is left to happen, so it goes on into the quiet tail (a controller that takes a thousand steps to converge, each its own write, would
 * be a hot loop in all but name); (2) in the quiet tail, where any write past the bound already
 * fails the property, controller writes past `quietAfterMs` exceed `100 × max(1, maxWrites)`
 * (the evidence of a loop) on a converged world.
 */
function loopMonitor(o: NoHotLoopOptions, kinds: readonly string[] | undefined): RunMonitor {
  const limit = 100 * Math.max(1, o.maxWrites);
  const streakLimit = streakLimitOf(o);
  const ignore = new Set(o.ignoreKinds);
  const stamps = new StampScan(ignore, streakLimit);
  const growth = new GrowScan(ignore, streakLimit);
  const election = new ElectionScan();
  const flips = new FlipFlopScan(FLIP_FLOP_GUESS, ignore);
  // stricter than the default test: a controller still stepping a status field toward its spec
  // (status.replicas 2 of spec.replicas 500) is converging, not looping
  const converged = (view: LiveRun['view']): boolean => {
    for (const k of kinds ?? []) {
      const objects = view.list(k);
      if (sampleObjects(objects).objects.length > 0 || objects.some((o) => o.metadata.deletionTimestamp === undefined && specStatusDiffer(o))) return false;
    }
    return (kinds ?? []).length > 0;
  };
  const streaks = new Map<string, { actor: string; fields: Fields; count: number; from: number; convergedAt: number[] }>();
  const half = streakLimit / 2;
  let scanned = 0;
  let tailWrites = 0;
  let tailConverged: boolean | undefined;
  return {
    afterWrite(run: LiveRun) {
      // (1) a stamping loop at its limit, converged or not. Certain (prefix-closed): the judge runs the
      // same StampScan over the whole trace of any run, and the scan reads a prefix the same way in
      // every extension (it looks only backwards: `stamped` and the elector's renewals are decided at
      // each write from what came before it), so it reaches the limit on this streak at this write,
      // and `reached` keeps the first streak that did. The judge fails a run where it did, stopped
      // or not (a run not stopped may fail the quiet tail first: the same property fails).
      if (run.stamped && run.stamped.length >= streakLimit) {
        const s = stamps.scan(run.trace, run.stamped);
        if (s) return { reason: `${s.count} writes in a row to ${s.object} changing only the time stamp ${s.fields.join(', ')}`, from: s.from, certain: true };
      }
      // a growing loop at its limit: certain by the same argument (`grown` is decided at each write
      // by the sizes before it); the judge reads stamps first, and a run that reaches both limits
      // fails either way
      if (run.grown && run.grown.length >= streakLimit) {
        const g = growth.scan(run.trace, run.grown);
        if (g) return { reason: `${g.count} writes to ${g.object}, each making it bigger (${g.fields.join(', ')})`, from: g.from, certain: true };
      }
      let hot: { count: number; from: number; key: string } | undefined;
      election.scan(run.trace);
      for (; scanned < run.trace.length; scanned++) {
        const e = run.trace[scanned]!;
        if (EXTERNAL.has(e.type)) {
          streaks.clear();
          continue;
        }
        if (e.type !== 'store:write' || e['error'] !== undefined) continue;
        const actor = String(e['actor']);
        const kind = String(e['kind']);
        if (!actor.startsWith('controller:')) {
          streaks.clear();
          continue;
        }
        if (ignore.has(kind) || (kind === 'Lease' && election.has(scanned))) continue;
        if (run.phase === 'tail' && e.t >= run.timing.tailStart + o.quietAfterMs) tailWrites++;
        const key = `${kind} ${String(e['key'])}`;
        const fields: Fields = e['noop'] === true ? NOTHING : e['changed'];
        const s = streaks.get(key);
        if (s && s.actor === actor && sameFields(s.fields, fields)) s.count++;
        else streaks.set(key, { actor, fields, count: 1, from: e.t, convergedAt: [] });
        const now = streaks.get(key)!;
        // converged halfway and at the end: a controller stepping toward its spec converges only at its last step
        if (now.count % half === 0) {
          if (converged(run.view)) now.convergedAt.push(now.count);
          if (now.count >= streakLimit && now.convergedAt.includes(now.count) && now.convergedAt.includes(now.count - half)) hot = { count: now.count, from: now.from, key };
        }
      }
      // (2) a guess, not certain: the judge reads no such streak outside the quiet tail, and the loop
      // need not go on that far. A controller with a state of its own stops when it is done
      // (failures-in-seconds' migrator: 1,500 writes in a row, then quiet; the world looks converged
      // throughout), and a user action still to come can end it. The check runs on past it.
      if (hot) return { reason: `${hot.count} writes in a row to ${hot.key} with nothing else happening`, from: hot.from };
      // (4) a guess, not certain: a field set back and forth between two values, FLIP_FLOP_GUESS times
      // in a row from the settle phase on with nothing from outside in between (two writers that
      // both own it; flip-flop.ts). The judge reads the quiet tail, and a writer may give way
      // before it. It stops a fight of two server-side apply field managers of one hosted program,
      // which no-fighting cannot tell apart (h50 W-2: every shrinking candidate ran to the tail).
      const flip = flips.scan(run.trace, run.view, run.timing.settleStart);
      if (flip) return { reason: `${flip.path} of ${flip.object} was set back and forth between ${flip.values[0]} and ${flip.values[1]} ${flip.count} times in a row`, from: flip.from };
      // (3) a guess, not certain: the judge counts the quiet tail to its end and leaves out scheduled
      // work, which it reads on the whole run (rt46 deploy-putter, seed 9, run 20: two Scalers
      // fighting, stopped here at 101 writes, passed on the full run), and it judges only a world
      // converged at the tail by its own test, not this one.
      if (run.phase === 'tail' && tailWrites > limit) {
        tailConverged ??= converged(run.view);
        if (tailConverged) return { reason: `${tailWrites} controller writes in the quiet tail`, from: run.timing.tailStart + o.quietAfterMs };
      }
      return undefined;
    },
  };
}

/** What a write changed (its `changed` paths), or {@link NOTHING} for a no-op. */
type Fields = unknown;
const NOTHING = Symbol('nothing');

/** Whether two writes changed the same fields: lists of paths compared element by element, anything else as JSON. */
function sameFields(a: Fields, b: Fields): boolean {
  if (a === NOTHING || b === NOTHING) return a === b;
  if (Array.isArray(a) && Array.isArray(b) && a.every((x) => typeof x === 'string') && b.every((x) => typeof x === 'string')) return a.length === b.length && a.every((x, i) => x === b[i]);
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Some same-named spec and status field disagrees (`status.replicas 2`, `spec.replicas 3`): still stepping toward its spec. */
function specStatusDiffer(o: StoredObject): boolean {
  if (!isRecord(o.spec) || !isRecord(o.status)) return false;
  const status = o.status as Record<string, unknown>;
  for (const [k, v] of Object.entries(o.spec)) if (k in status && JSON.stringify(status[k]) !== JSON.stringify(v)) return true;
  return false;
}
