import { defineProperty, nothingToJudge, type Verdict } from '../src/harness/property.js';
import { explanation, fmtList, fmtRequest, fmtTime, fmtWrite, plural } from '../src/report/explain.js';
import { fmtReconcile } from './_internals/last-actions.js';
import { convergedAtTail } from './_internals/primary.js';
import { staleReplay, staleReplayAdvice } from './_internals/replayed.js';
import { byScheduledWork, scheduledWork } from './_internals/scheduled.js';
import { timelineOf } from './_internals/timeline.js';
import { electionWrites, leftOut } from './_internals/election.js';

/** Options of {@link idempotence}. @public */
export interface IdempotenceOptions {
  /** Controller store writes (no-ops and failed ones included) allowed in the tail. @defaultValue 0 */
  maxWrites: number;
  /** Mutating downstream calls (POST, PUT, PATCH, DELETE) allowed in the tail. @defaultValue 0 */
  maxMutatingCalls: number;
  /**
   * Kinds whose writes do not count. A Lease renewed at a leader elector's pace (at most once a
   * second, changing only an elector's fields: see `_internals/election.ts`) never counts; every
   * other Lease write does, unless `'Lease'` is listed here.
   * @defaultValue []
   */
  ignoreKinds: string[];
}

/**
 * Idempotence (SPEC §5): on the converged world, the harness's quiet tail enqueues every key
 * again (twice, so events are also duplicated) and re-applies every identical spec; a
 * level-triggered reconciler that compares before it acts makes zero store writes (a no-op
 * write counts: it costs API QPS) and zero mutating downstream calls.
 * @example properties.idempotence({ ignoreKinds: ['Lease', 'Event'] })
 * @public
 */
export const idempotence = defineProperty<IdempotenceOptions>({
  name: 'idempotence',
  description: 'extra reconciles and re-applied identical specs on the converged world make no writes and no mutating downstream calls',
  defaults: { maxWrites: 0, maxMutatingCalls: 0, ignoreKinds: [] },
  validate: (o) =>
    !(o.maxWrites >= 0) ? `maxWrites must be ≥ 0, got ${String(o.maxWrites)}` : !(o.maxMutatingCalls >= 0) ? `maxMutatingCalls must be ≥ 0, got ${String(o.maxMutatingCalls)}` : !Array.isArray(o.ignoreKinds) ? 'ignoreKinds must be an array of kind names' : undefined,
  judge: (run, o): Verdict => {
    const { tailStart, end } = run.timing;
    if (!(end > tailStart)) return nothingToJudge('the run has no tail (tailMs: 0)');
    if (!convergedAtTail(run)) return nothingToJudge('the world had not converged when the tail began (convergence reports it)');
    const tl = timelineOf(run);
    const ignore = new Set(o.ignoreKinds);
    // what the controller's own schedule did (a Job per time slot) is not re-reconciling an unchanged world
    const scheduled = scheduledWork(tl, tailStart, { election: electionWrites(run) });
    const isScheduled = (x: Parameters<typeof byScheduledWork>[0]) => byScheduledWork(x, scheduled);
    // a reconcile already running when the tail began (a renewal its timer started at 59.9 s, writing at 60 s) is no re-reconcile the tail made
    const begunInTail = (x: { reconcile: { start: number } | undefined }) => x.reconcile === undefined || x.reconcile.start >= tailStart;
    const tailWrites = tl.writes.filter((w) => w.t >= tailStart && w.actor.startsWith('controller:') && !leftOut(run, ignore, w) && begunInTail(w));
    const tailCalls = tl.requests.filter((r) => r.t >= tailStart && r.mutating && r.actor.startsWith('controller:') && begunInTail(r));
    const writes = tailWrites.filter((w) => !isScheduled(w));
    const calls = tailCalls.filter((r) => !isScheduled(r));
    const scheduledStats = tailWrites.length + tailCalls.length > writes.length + calls.length ? { scheduledWrites: tailWrites.length - writes.length, scheduledCalls: tailCalls.length - calls.length } : {};
    if (writes.length <= o.maxWrites && calls.length <= o.maxMutatingCalls) return { ok: true, stats: { tailWrites: writes.length, tailMutatingCalls: calls.length, ...scheduledStats } };

    const pokes = tl.writes.filter((w) => w.t >= tailStart && w.actor === 'user' && w.verb === 'update');
    const letPart = [
      `the world had settled by ${fmtTime(tailStart)}`,
      `at ${fmtTime(tailStart)} every key was enqueued again (and once more 1 s later) and the identical spec of ${fmtList(pokes.map((w) => `${w.kind} ${w.key}`), 3)} was re-applied (${pokes.every((w) => w.noop) ? 'each a no-op' : 'a write'})`,
    ];
    const then: string[] = [];
    const first = writes[0];
    if (first) {
      then.push(`${plural(writes.length, 'controller write')} followed, the first ${fmtWrite(first)}${first.reconcile ? ` in the ${fmtReconcile(first.reconcile)}` : ''}`);
      const noops = writes.filter((w) => w.noop).length;
      if (noops > 0) then.push(`${noops} of them changed nothing: an unconditional write (compare desired with current state before writing)`);
      else then.push(`each changed ${fmtList([...new Set(writes.flatMap((w) => w.changed))], 4)}: the reconcile does not reach a fixed point on an unchanged world`);
    }
    const call = calls[0];
    if (call) {
      const replay = staleReplay(run, calls, tl.requests);
      then.push(`${plural(calls.length, 'mutating downstream call')} followed, the first ${fmtRequest(call)}${call.reconcile ? ` in the ${fmtReconcile(call.reconcile)}` : ''}${replay ? '' : ': look the external resource up before creating or changing it'}`);
      if (replay) then.push(staleReplayAdvice(replay));
    }
    const what = [writes.length ? plural(writes.length, 'store write') : '', calls.length ? plural(calls.length, 'mutating downstream call') : ''].filter(Boolean).join(' and ');
    return {
      ok: false,
      summary: `not idempotent: re-reconciling the converged world made ${what}`,
      explanation: explanation(letPart, then),
      evidence: {
        tailStart,
        writes: writes.slice(0, 20).map((w) => ({ t: w.t, actor: w.actor, verb: w.verb, kind: w.kind, key: w.key, changed: w.changed, noop: w.noop, error: w.error ?? null })),
        mutatingCalls: calls.slice(0, 20).map((r) => ({ t: r.t, actor: r.actor, method: r.method, url: r.url, status: r.status })),
        totals: { writes: writes.length, mutatingCalls: calls.length },
      },
    };
  },
});
