import type { TraceEntry } from '../../src/sim/trace.js';
import { ElectionScan } from './election.js';

/**
 * no-fighting's rule read while a run happens (its monitor): the writes it counts, the writer it
 * tells each by, and the hand-overs of each field of each object, as its judge reads them on the
 * whole trace. Everything here is decided at each write from what came before it (the reconcile
 * in flight, an elector's renewals), so a prefix reads the same in every run that extends it.
 * @internal
 */

/** One field of one object whose writers took turns. */
export interface FieldFight {
  kind: string;
  key: string;
  path: string;
  /** Hand-overs counted from the judge's start. */
  flips: number;
  /** Hand-overs in a row between the same two writers, with nothing from outside in between. */
  inARow: number;
  /** Time of the first hand-over of that streak. */
  from: number;
  /** The two writers of the streak (actors, or a controller's actor and the key its reconcile served). */
  writers: [string, string];
}

interface FieldState {
  kind: string;
  key: string;
  path: string;
  last: string;
  flips: number;
  lastFlip: number;
  inARow: number;
  from: number;
  pair: [string, string] | undefined;
  /** {@link FightScan.outside} at the field's last hand-over. */
  seen: number;
}

/**
 * Something from outside the fight: a user's action, a replica (re)starting or stopping, a new
 * leader, an environment actor's own step, a fault. After one, a fight's next hand-over starts a
 * new streak (a user who edits the spec can end a fight; a handoff after a leader change is no fight).
 */
const OUTSIDE = new Set(['user:action', 'controller:crash', 'controller:start', 'controller:stop', 'controller:leader', 'environment:step', 'invariant:violated', 'fault:inject']);

export class FightScan {
  /** The first field that met the judge's rule: more than `maxFlips` hand-overs from `start` on, one of them at or after the tail's start. */
  certain: FieldFight | undefined;
  /** The first field whose two writers took turns `guessAt` times in a row from the settle phase on, nothing from outside in between. */
  guessed: FieldFight | undefined;
  private index = 0;
  private outside = 0;
  private readonly open = new Map<string, { key: string; n: unknown }[]>();
  private readonly election = new ElectionScan();
  private readonly fields = new Map<string, FieldState>();

  constructor(
    private readonly o: {
      maxFlips: number;
      /** Where the judge starts counting (the settle phase, or the tail). */
      start: number;
      settleStart: number;
      tailStart: number;
      /** Hand-overs in a row that make a guess. */
      guessAt: number;
    },
  ) {}

  /** Scans the entries of `trace` not scanned yet. */
  scan(trace: readonly TraceEntry[]): this {
    this.election.scan(trace);
    for (; this.index < trace.length; this.index++) {
      const e = trace[this.index]!;
      switch (e.type) {
        case 'reconcile:start': {
          const actor = actorOf(e);
          let spans = this.open.get(actor);
          if (!spans) this.open.set(actor, (spans = []));
          spans.push({ key: String(e['key'] ?? ''), n: e['n'] ?? 0 });
          break;
        }
        case 'reconcile:end': {
          const spans = this.open.get(actorOf(e));
          const i = spans ? spans.findIndex((s) => s.n === e['n'] && s.key === e['key']) : -1;
          if (i >= 0) spans!.splice(i, 1);
          break;
        }
        case 'store:write':
          this.write(e, this.index);
          break;
        default:
          break;
      }
      if (e.type === 'controller:crash' || e.type === 'controller:stop') this.open.delete(actorOf(e));
      if (OUTSIDE.has(e.type)) this.outside++;
    }
    return this;
  }

  private write(e: TraceEntry, index: number): void {
    const actor = String(e['actor'] ?? '');
    // what the judge counts: no no-op, no refused write, no injected one, no removal
    if (e.t < this.o.start || e['noop'] === true || typeof e['error'] === 'string' || actor.startsWith('fault:') || e['removed'] === true) {
      // an injected write is from outside the fight, whatever it changed
      if (actor.startsWith('fault:')) this.outside++;
      return;
    }
    if (!Array.isArray(e['changed'])) return;
    const kind = String(e['kind'] ?? '');
    const key = String(e['key'] ?? '');
    const writer = this.writerOf(e, actor, kind, key, index);
    const uid = typeof e['uid'] === 'string' ? e['uid'] : '';
    for (const p of e['changed'] as unknown[]) {
      if (typeof p !== 'string' || p === '.') continue;
      const id = `${kind}\u0000${key}\u0000${uid}\u0000${p}`;
      const f = this.fields.get(id);
      if (f === undefined) {
        this.fields.set(id, { kind, key, path: p, last: writer, flips: 0, lastFlip: -Infinity, inARow: 0, from: e.t, pair: undefined, seen: this.outside });
        continue;
      }
      if (f.last === writer) continue;
      f.flips++;
      f.lastFlip = e.t;
      // a streak: the same two writers, nothing from outside since the last hand-over, in the settle phase or later
      const same = f.pair !== undefined && f.seen === this.outside && f.pair.includes(writer) && f.pair.includes(f.last);
      if (same && e.t >= this.o.settleStart) f.inARow++;
      else {
        f.inARow = e.t >= this.o.settleStart ? 1 : 0;
        f.pair = [f.last, writer];
        f.from = e.t;
      }
      f.seen = this.outside;
      f.last = writer;
      if (this.certain === undefined && f.flips > this.o.maxFlips && f.lastFlip >= this.o.tailStart) this.certain = fightOf(f);
      if (this.guessed === undefined && f.inARow >= this.o.guessAt) this.guessed = fightOf(f);
    }
  }

  /** As no-fighting's `writerOfWrite`: a controller's write by the key its reconcile in flight served, an elector's renewal by its actor. */
  private writerOf(e: TraceEntry, actor: string, kind: string, key: string, index: number): string {
    if (!actor.startsWith('controller:')) return actor;
    const spans = this.open.get(actor);
    if (spans === undefined || spans.length === 0) return actor;
    if (kind === 'Lease' && this.election.has(index)) return actor;
    let span = spans[spans.length - 1]!;
    for (let i = spans.length - 1; i >= 0; i--) {
      if (spans[i]!.key === key) {
        span = spans[i]!;
        break;
      }
    }
    return `${actor}\u0000${span.key}`;
  }
}

function actorOf(e: TraceEntry): string {
  return `controller:${String(e['controller'] ?? '')}/${String(e['replica'] ?? 0)}`;
}

function fightOf(f: FieldState): FieldFight {
  return { kind: f.kind, key: f.key, path: f.path, flips: f.flips, inARow: f.inARow, from: f.from, writers: f.pair ?? [f.last, f.last] };
}
