import { defineProperty, type Verdict } from '../src/harness/property.js';
import { explanation, fmtDuration, fmtList, fmtObject, fmtTime, plural } from '../src/report/explain.js';
import { chainOf, fmtChain, selfTriggering } from './_internals/chain.js';
import { convergedAtTail } from './_internals/primary.js';
import { scheduledWork } from './_internals/scheduled.js';
import { timelineOf, type TimelineWrite } from './_internals/timeline.js';
import { groupBy } from './_internals/windows.js';

/** Options of {@link noHotLoop}. @public */
export interface NoHotLoopOptions {
  /** Controller writes allowed in the quiet tail (a resync of a correct reconciler needs none). @defaultValue 0 */
  maxWrites: number;
  /** The quiet tail starts this long after the tail's extra reconciles were sent (those are idempotence's). @defaultValue 2000 */
  quietAfterMs: number;
  /** Kinds whose writes do not count (leader election renews its Lease). @defaultValue ['Lease'] */
  ignoreKinds: string[];
}

/**
 * No hot loop (SPEC §1, §5): in the quiet tail (converged, no actions, no faults) controllers
 * stay silent. A reconcile that writes unconditionally, typically status, triggers a watch
 * event that triggers the next reconcile: the explanation names that self-triggering chain and
 * the fields each write changed. Fix: compare before writing.
 * @example properties.noHotLoop({ maxWrites: 2 })
 * @public
 */
export const noHotLoop = defineProperty<NoHotLoopOptions>({
  name: 'no-hot-loop',
  description: 'in the quiet tail controllers make at most the allowed number of writes (default none)',
  defaults: { maxWrites: 0, quietAfterMs: 2000, ignoreKinds: ['Lease'] },
  validate: (o) => (!(o.maxWrites >= 0) ? `maxWrites must be ≥ 0, got ${String(o.maxWrites)}` : !(o.quietAfterMs >= 0) ? `quietAfterMs must be ≥ 0, got ${String(o.quietAfterMs)}` : undefined),
  judge: (run, o): Verdict => {
    const from = run.timing.tailStart + o.quietAfterMs;
    const to = run.timing.end;
    if (!(to > from)) return { ok: true, stats: { judged: false, reason: `the tail is shorter than quietAfterMs (${o.quietAfterMs} ms)` } };
    if (!convergedAtTail(run)) return { ok: true, stats: { judged: false, reason: 'the world had not converged when the tail began (convergence reports it)' } };
    const tl = timelineOf(run);
    const ignore = new Set(o.ignoreKinds);
    // what the controller's own schedule did (a Job per time slot, and what follows from it) is no loop
    const scheduled = scheduledWork(tl, run.timing.tailStart);
    const quiet = tl.writes.filter((w) => w.t >= from && w.t <= to && w.actor.startsWith('controller:') && !ignore.has(w.kind));
    const writes = quiet.filter((w) => !(w.reconcile && scheduled.has(w.reconcile)));
    if (writes.length <= o.maxWrites) return { ok: true, stats: { quietWrites: writes.length, ...(quiet.length > writes.length ? { scheduledWrites: quiet.length - writes.length } : {}) } };

    const byObject = groupBy(writes, (w) => `${w.kind} ${w.key}`);
    const [hottest, hw] = [...byObject].sort((a, b) => b[1].length - a[1].length)[0]!;
    const sample = hw[Math.min(hw.length - 1, 2)]!;
    const chain = chainOf(run, tl, sample);
    const fields = countFields(hw);
    const actors = [...new Set(writes.map((w) => w.actor))];
    const rate = (writes.length * 1000) / Math.max(1, to - from);
    const then: string[] = [
      `between ${fmtTime(from)} and ${fmtTime(to)} ${fmtList(actors, 3)} made ${plural(writes.length, 'write')} (${rate.toFixed(1)}/s) while nothing changed, ${hw.length} of them to ${hottest}`,
      `they changed ${fmtList(fields.map(([f, n]) => `${f} (${n}×)`), 4)}${hw.some((w) => w.noop) ? `; ${hw.filter((w) => w.noop).length} changed nothing` : ''}`,
    ];
    if (chain.length > 0) then.push(`${selfTriggering(chain) ? 'the loop feeds itself' : 'the chain'}: ${fmtChain(chain)}`);
    then.push('compare desired with current state before writing (deep-equal, or generation vs observedGeneration)');
    return {
      ok: false,
      summary: `hot loop: ${plural(writes.length, 'controller write')} in ${fmtDuration(to - from)} of the quiet tail, ${hw.length} to ${hottest} (${fields.map(([f]) => f).slice(0, 3).join(', ')})`,
      explanation: explanation([`the world had converged by ${fmtTime(run.timing.tailStart)}`, `no fault and no user action came after ${fmtTime(from)}`], then),
      evidence: {
        window: { from, to },
        writes: writes.length,
        perObject: Object.fromEntries([...byObject].map(([k, v]) => [k, v.length])),
        fields: Object.fromEntries(fields),
        chain: chain.map((l) => ({ t: l.write.t, object: fmtObject(l.write.kind, l.write.key), verb: l.write.verb, changed: l.write.changed, rv: l.write.rv ?? null, trigger: l.trigger.type })),
        first: writes.slice(0, 10).map((w) => ({ t: w.t, actor: w.actor, verb: w.verb, kind: w.kind, key: w.key, changed: w.changed, noop: w.noop })),
      },
    };
  },
});

function countFields(ws: readonly TimelineWrite[]): [string, number][] {
  const m = new Map<string, number>();
  for (const w of ws) for (const f of w.noop ? ['(nothing)'] : w.changed) m.set(f, (m.get(f) ?? 0) + 1);
  return [...m].sort((a, b) => b[1] - a[1]);
}
