import type { TraceEntry } from '../../src/sim/trace.js';
import type { WorldView } from '../../src/harness/world.js';
import { parsePath } from './paths.js';
import { isRecord } from './json.js';

/**
 * A field set back and forth (no-hot-loop's monitor, h50 W-2): controllers' writes to one field
 * of one object leave it at two values in turn (3, 2, 3, 2, …), `limit` times in a row from the
 * settle phase on, with nothing from outside in between. Two writers that both own the field do
 * this: two controllers, two keys of one, or two server-side apply field managers of one hosted
 * program (one actor, so no-fighting cannot tell them apart). Each write's watch event brings the
 * other's next one, and nothing left to happen can end it, so it goes on into the quiet tail. A
 * guess, not certain: a writer with a state of its own may give way (a program that backs off
 * after N conflicts), so the check confirms it by running the scenario on.
 * @internal
 */

/** Something from outside a loop: after one, a field's count starts over (as {@link FightScan}'s). */
const OUTSIDE = new Set(['user:action', 'controller:crash', 'controller:start', 'controller:stop', 'controller:leader', 'environment:step', 'invariant:violated', 'fault:inject']);

/** The field set back and forth. */
export interface FlipFlop {
  object: string;
  path: string;
  count: number;
  from: number;
  /** The two values, as JSON. */
  values: [string, string];
}

interface FieldState {
  /** The field's value after its last two writes, as JSON (the last one first). */
  last: string;
  before: string | undefined;
  count: number;
  from: number;
  seen: number;
}

/** Changed paths looked at per write: a fight is over one field, not over a whole new object. */
const MAX_PATHS = 4;

export class FlipFlopScan {
  found: FlipFlop | undefined;
  private index = 0;
  private outside = 0;
  private readonly fields = new Map<string, FieldState>();
  constructor(
    private readonly limit: number,
    private readonly ignore: ReadonlySet<string>,
  ) {}

  /** Scans the entries of `trace` not scanned yet; `view` is the world now (after the last entry's write). */
  scan(trace: readonly TraceEntry[], view: WorldView, settleStart: number): FlipFlop | undefined {
    for (; this.index < trace.length; this.index++) {
      const e = trace[this.index]!;
      if (OUTSIDE.has(e.type)) {
        this.outside++;
        continue;
      }
      if (e.type !== 'store:write') continue;
      const actor = String(e['actor'] ?? '');
      if (actor.startsWith('fault:') || actor.startsWith('user')) this.outside++;
      // only the last write's value is in the view: earlier entries of this batch (none, when
      // called after every write) are skipped, and their fields start over
      if (this.index !== trace.length - 1 || e.t < settleStart || !actor.startsWith('controller:') || e['noop'] === true || typeof e['error'] === 'string' || e['removed'] === true) continue;
      const kind = String(e['kind'] ?? '');
      if (this.ignore.has(kind) || !Array.isArray(e['changed'])) continue;
      const changed = e['changed'] as unknown[];
      if (changed.length > MAX_PATHS) continue;
      const key = String(e['key'] ?? '');
      const obj = view.get(kind, key);
      if (obj === undefined) continue;
      for (const p of changed) {
        if (typeof p !== 'string' || p === '.') continue;
        const value = valueAt(obj, p);
        if (value === undefined) continue;
        const id = `${kind} ${key}\u0000${p}`;
        const f = this.fields.get(id);
        if (f === undefined || f.seen !== this.outside) {
          this.fields.set(id, { last: value, before: f?.last, count: 0, from: e.t, seen: this.outside });
          continue;
        }
        // back to the value before the last one, and not the last one: a flip
        if (value === f.before && value !== f.last) f.count++;
        else {
          f.count = 0;
          f.from = e.t;
        }
        f.before = f.last;
        f.last = value;
        if (f.count >= this.limit && this.found === undefined) this.found = { object: `${kind} ${key}`, path: p, count: f.count, from: f.from, values: [f.before, f.last] };
      }
    }
    return this.found;
  }
}

/** The value at a changed path of an object, as JSON (undefined when absent or unreadable). */
function valueAt(obj: unknown, path: string): string | undefined {
  const segs = parsePath(path);
  if (segs === undefined) return undefined;
  let v: unknown = obj;
  for (const s of segs) v = isRecord(v) || Array.isArray(v) ? (v as Record<string | number, unknown>)[s] : undefined;
  return v === undefined ? undefined : JSON.stringify(v);
}
