import type { FaultEvent } from '../fault-plan.js';
import type { RunRecord } from '../property.js';
import { controllerActor, indexTrace } from '../systematic-strategies/trace-index.js';

/**
 * When each counted occurrence happened in a run, per counter the fault kinds address events by
 * (`nth`): watch deliveries, notifications, cached reads, lists, controller writes, API calls,
 * downstream requests, and per controller its writes, calls and requests (crash points). Guided
 * search uses it to place a second fault at the first occurrence after a first fault fired.
 * @internal
 */
export type Occurrences = ReadonlyMap<string, readonly number[]>;

/** The occurrence times of a run, by counter (index = nth). */
export function occurrencesOf(run: RunRecord): Occurrences {
  const ix = indexTrace(run);
  const out = new Map<string, number[]>();
  const push = (counter: string, t: number) => {
    const list = out.get(counter);
    if (list) list.push(t);
    else out.set(counter, [t]);
  };
  for (const d of [...ix.deliveries].sort((a, b) => Number(a['seq']) - Number(b['seq']))) push('watch', d.t);
  for (const r of ix.cachedReads) push('cached-read', r.entry.t);
  for (const l of ix.lists) push('list', l.entry.t);
  for (const w of ix.writes) {
    push('write', w.entry.t);
    push(`write:${w.controller}`, w.entry.t);
  }
  for (const q of ix.requests) {
    push('request', Number(q.entry['start'] ?? q.entry.t));
    push(`request:${q.controller}`, Number(q.entry['start'] ?? q.entry.t));
  }
  const notifies: { seq: number; t: number }[] = [];
  for (let i = 0; i < ix.end; i++) {
    const e = ix.trace[i]!;
    if (e.type === 'informer:notify' && typeof e['seq'] === 'number') notifies.push({ seq: e['seq'], t: e.t });
    const a = controllerActor(e['actor']);
    if (!a || e['fault'] !== undefined) continue;
    const write = e.type === 'store:write' && !(e['kind'] === 'Lease' && e['key'] === `kube-system/${a.controller}-leader`);
    const read = e.type === 'store:read';
    if (write || (read && e['cached'] === false)) push('api-call', e.t);
    if (write || read) push(`call:${a.controller}`, e.t);
  }
  for (const n of notifies.sort((x, y) => x.seq - y.seq)) push('notify', n.t);
  return out;
}

const WATCH_KINDS = new Set(['watch-event-loss', 'duplication', 'delay', 'coalescing', 'reordering', 'watch-disconnect']);

/** The counter a fault event's `nth` counts (undefined when the kind counts nothing known). */
export function counterOf(e: FaultEvent, controllers: readonly string[]): string | undefined {
  if (WATCH_KINDS.has(e.kind)) return 'watch';
  switch (e.kind) {
    case 'event-loss':
      return 'notify';
    case 'stale-snapshot':
      return e.params?.['list'] === true ? undefined : 'cached-read';
    case 'list-order':
      return 'list';
    case 'api-conflict':
      return 'write';
    case 'api-error':
      return 'api-call';
    case 'flaky-downstream':
      return 'request';
    case 'crash-restart': {
      const target = e.target ?? controllers[0];
      if (target === undefined || e.nth === undefined) return undefined;
      const p = e.params?.['point'];
      const point = typeof p === 'string' ? p : 'after-write';
      return point === 'before-call' ? `call:${target}` : point.endsWith('-fetch') ? `request:${target}` : `write:${target}`;
    }
    default:
      return undefined;
  }
}

/** The first nth of `counter` at or after virtual time `t`. */
export function nthAtOrAfter(occ: Occurrences, counter: string, t: number): number | undefined {
  const times = occ.get(counter);
  if (!times) return undefined;
  const i = times.findIndex((x) => x >= t);
  return i < 0 ? undefined : i;
}
