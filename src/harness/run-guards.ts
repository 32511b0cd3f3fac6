import type { JsonObject } from '../store/object.js';
import { describeTask, isolation } from './isolation.js';
import { LOOP_BUDGET } from './loop-guard.js';
import { contained } from './escape-verdict.js';
import type { Property, RunRecord, Verdict } from './property.js';

/**
 * Run guards: judges every run gets before its properties, whatever `properties` says. Each
 * says the run cannot be judged by its properties because the code under test broke the
 * simulation's contract: it talked to the outside world, returned what the queue cannot act
 * on, or looped without letting virtual time pass.
 */

function guard(name: string, description: string, judge: (run: RunRecord) => Verdict): Property {
  return Object.freeze({ name, description, options: Object.freeze({}), needsTwin: false, probes: () => [], judge: (run: RunRecord) => judge(run) });
}

/** Every reconcile returns nothing or `{ requeue?, requeueAfter? }` with a usable delay. @public */
export const reconcileResults = guard('reconcile-results', 'every reconcile returns nothing or { requeue?: boolean, requeueAfter?: ms } with a finite delay ≥ 0', (run) => {
  const bad = run.trace.filter((e) => e.type === 'reconcile:end' && e['invalid'] === true);
  if (bad.length === 0) return { ok: true };
  const first = bad[0]!;
  const who = describeTask(`reconcile ${String(first['controller'])}/${String(first['replica'])} ${String(first['key'])}`);
  const problem = String(first['error']).replace(/^InvalidResult: the reconcile /, '');
  return {
    ok: false,
    summary: `${who} ${problem}`,
    explanation:
      `Let: a reconcile return nothing (done), { requeue: true } (retry with backoff) or { requeueAfter: ms } with a finite delay ≥ 0, as controller-runtime's reconcile.Result. ` +
      `Then: at t=${first.t} ms ${who} ${problem}. The queue cannot act on it, so each such reconcile counted as failed (${bad.length} time${bad.length === 1 ? '' : 's'}) and was retried with backoff.`,
    evidence: { at: first.t, key: String(first['key']), problem, count: bad.length } as JsonObject,
  };
});

/** Every watch map returns a list of keys, without throwing. @public */
export const watchMaps = guard('watch-maps', 'every watch map returns a list of keys (or a promise of one) without throwing', (run) => {
  const bad = run.trace.filter((e) => e.type === 'handler:end' && e['result'] === 'error');
  if (bad.length === 0) return { ok: true };
  const first = bad[0]!;
  const error = String(first['error']);
  const what = error.startsWith('the map did not return') ? error.replace(/^the map /, '') : `threw ${error}`;
  const who = `the watch map of ${String(first['controller'])} for ${String(first['kind'])}`;
  return {
    ok: false,
    summary: `${who} ${what} on the ${String(first['event'])} event of ${String(first['key'])}`,
    explanation:
      `Let: a watch map turn each event of a watched kind into the keys to reconcile (a list, or a promise of one); an event whose map fails reaches no reconcile, and nothing retries it. ` +
      `Then: at t=${first.t} ms ${who} ${what} on the ${String(first['event'])} event of ${String(first['key'])}${bad.length > 1 ? ` (and failed ${bad.length - 1} more time${bad.length === 2 ? '' : 's'})` : ''}. Make the map total: return [] for objects it cannot map.`,
    evidence: { at: first.t, kind: String(first['kind']), key: String(first['key']), event: String(first['event']), error, count: bad.length } as JsonObject,
  };
});

/** The run reached its end instead of stopping at the step budget. @public */
export const stepBudget = guard('step-budget', 'the run reaches its end within the step budget (no loop that never lets virtual time pass)', (run) => {
  if (!run.timing.exhausted) return { ok: true };
  const stoppedAt = run.timing.stoppedAt ?? 0;
  const budget = run.trace.find((e) => e.type === 'run:budget');
  const steps = typeof budget?.['steps'] === 'number' ? budget['steps'] : 0;
  const busiest = busiestTasks(run);
  return {
    ok: false,
    summary: `the run stopped at t=${fmtSeconds(stoppedAt)} of ${fmtSeconds(run.timing.end)}: it used up its budget of ${steps.toLocaleString('en-US')} simulation steps${busiest ? `; busiest: ${busiest}` : ''}`,
    explanation:
      `Let: a run advance virtual time to its end (t=${fmtSeconds(run.timing.end)}), and stop after ${steps.toLocaleString('en-US')} simulation steps if it does not. ` +
      `Then: it stopped at t=${fmtSeconds(stoppedAt)}, so something loops without letting virtual time pass${busiest ? ` (the most frequent work near the stop: ${busiest})` : ''}, e.g. a requeue that fires again at once or a watch map that triggers itself. No property can judge a run cut short.`,
    evidence: { stoppedAt, end: run.timing.end, steps, busiest } as JsonObject,
  };
});

const HOW: Record<string, string> = {
  'Promise.resolve': 'loops on `await Promise.resolve()`',
  'process.nextTick': 'schedules process.nextTick from its own callback, over and over',
  queueMicrotask: 'schedules queueMicrotask from its own callback, over and over',
};

/**
 * Code that never yields to the simulation fails the run with a verdict naming it instead of
 * hanging it (issue 17 item 6): the loop guard (loop-guard.ts) records each loop it stopped as a
 * `kernel:loop` entry, and the first is the failure. @public
 */
export const busyLoop = guard('busy-loop', 'no code spins on microtasks or ticks without ever yielding to the simulation', (run) => {
  const loop = run.trace.find((e) => e.type === 'kernel:loop');
  if (!loop) return { ok: true };
  const via = String(loop['via']);
  const who = typeof loop['caller'] === 'string' ? loop['caller'] : 'code a reconcile left running (no task of the run was running)';
  const how = HOW[via] ?? `loops on ${via}`;
  return {
    ok: false,
    summary: `${who} never yields to the simulation: it ${how}`,
    explanation:
      `Let: ${who} run at t=${loop.t} ms. ` +
      `Then: it ${how}: ${Number(loop['calls']).toLocaleString('en-US')} calls of ${via} in a row (the budget is ${LOOP_BUDGET.toLocaleString('en-US')}) without the simulation ever getting a turn, so virtual time could not move and the run could never end; steadystate refused the next call, which ended the chain, and stopped the run. ` +
      `A loop that waits for something must wait on the simulation: await ctx.clock.sleep(ms) between tries, or return { requeueAfter: ms } and let the queue call again.`,
    evidence: { via, calls: Number(loop['calls']), caller: who, t: loop.t } as JsonObject,
  };
});

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** A program's own bookkeeping: its leader-election Lease and the Events it records. */
const BOOKKEEPING = /\/(leases|events)(\/|\?|$)/;

/**
 * A hosted program acts: in a run with objects of its kind, it sends at least one write to the
 * API server (other than its Lease and Events; answered or refused, faults cannot make this
 * fail) or calls a downstream service. A program that never does is checked vacuously: every
 * property holds of a world it never touches, in the fault-free run as in the faulted ones. The
 * usual causes are a setup the simulation does not give it and a bug no fault is needed for: a
 * Lease stamped with a plain Date that the API server refuses, so the program never leads (found
 * by a reach hunt, stop 40, which passed such an elector), a watch of another
 * kind or namespace. Not judged on runs cut short, nor for a program that exited (never-exits
 * names that).
 */
export const programActs: Property = Object.freeze({
  name: 'program-acts',
  description: 'a hosted program acts: in the fault-free run with objects of its kind it sends writes (beyond its Lease and Events) to the API server or calls a downstream service',
  options: Object.freeze({}),
  // judged on runs no fault acted in: a program a fault stopped (an informer never restarted after
  // a watch error) is a finding of the properties, in their words, not a program that cannot act;
  // no twin asked for, so a native controller's runs cost nothing more
  needsTwin: false,
  probes: () => [],
  judge: (run: RunRecord): Verdict => programActsIn(run.trace.some((e) => e.type === 'fault:inject') ? undefined : run),
});

function programActsIn(run: RunRecord | undefined): Verdict {
  if (!run?.programs || run.timing.stoppedEarly || run.timing.interrupted || run.timing.exhausted) return { ok: true };
  if (run.requests.length > 0) return { ok: true };
  for (const program of run.programs) {
    const kind = run.primaryKinds[run.controllers.indexOf(program)];
    // an object the user deleted again may rightly get nothing (a program skips what is being
    // deleted; a create and a Foreground delete at t=0 are gone in 5 ms): only those left count
    const objects = run.writes.filter((w, i) => w.actor === 'user' && w.verb === 'create' && w.kind === kind && w.error === undefined && !run.writes.some((d, j) => j > i && d.actor === 'user' && d.verb === 'delete' && d.kind === kind && d.key === w.key));
    if (objects.length === 0) continue;
    if (run.trace.some((e) => e.type === 'process:exit' && e['controller'] === program)) continue;
    const requests = run.trace.filter((e) => e.type === 'http:request' && e['controller'] === program);
    if (requests.some((e) => MUTATING.has(String(e['method'])) && !BOOKKEEPING.test(String(e['path'])))) continue;
    const seen = new Map<string, number>();
    for (const e of requests) {
      const line = `${String(e['method'])} ${String(e['path']).replace(/\?.*$/, '')} ${String(e['status'])}`;
      seen.set(line, (seen.get(line) ?? 0) + 1);
    }
    const top = [...seen].sort((a, b) => b[1] - a[1]).slice(0, 4).map(([line, n]) => `${line}${n > 1 ? ` ×${n}` : ''}`);
    const logs = run.trace.filter((e) => e.type === 'log' && e['controller'] === program);
    const last = logs.at(-1);
    const what = requests.length === 0 ? 'sent no request to the API server at all' : `sent ${requests.length} request${requests.length === 1 ? '' : 's'} to the API server, none of them a write of anything but its Lease and Events (${top.join(', ')}${seen.size > top.length ? ', …' : ''})`;
    const printed = last ? `; the last line it printed was ${JSON.stringify(String(last['message']).split('\n')[0])}` : '';
    const refused = requests.find((e) => MUTATING.has(String(e['method'])) && Number(e['status']) >= 400 && Number(e['status']) < 500);
    return {
      ok: false,
      summary: `the program ${program} never acted: ${objects.length} ${kind} object${objects.length === 1 ? '' : 's'} existed, and it ${what.replace(/ \(.*$/, '')}`,
      explanation:
        `Let: the user create ${objects.map((w) => `${kind} ${w.key}`).slice(0, 3).join(', ')}${objects.length > 3 ? ` and ${objects.length - 3} more` : ''} for the program ${program} to act on. ` +
        `Then: in the fault-free run, by t=${fmtSeconds(run.timing.end)}, it had ${what}, and called no downstream service${printed}. Every property holds of a world a program never touches, so this check would pass whatever the program does. ` +
        (refused ? `Its ${String(refused['method'])} ${String(refused['path'])} was refused with ${String(refused['status'])}, as a real API server refuses it: fix that request (a Lease's renewTime and acquireTime are MicroTimes: client-node's new V1MicroTime(), not new Date()). ` : '') +
        `Check that it loads its kubeconfig with loadFromDefault() or loadFromCluster() (both find the simulated cluster), that it watches ${kind} where the samples are, and that the samples (--sample) need something done.`,
      evidence: { program, kind, objects: objects.length, requests: requests.length, top, ...(last ? { lastOutput: String(last['message']) } : {}) } as JsonObject,
    };
  }
  return { ok: true };
}

/** The judges every run gets before its properties, in this order. @internal */
export const runGuards: readonly Property[] = Object.freeze([Object.freeze(isolation), Object.freeze(contained), busyLoop, reconcileResults, watchMaps, stepBudget, programActs]);

/** The reconciles and handlers most frequent in the last entries of the trace. */
function busiestTasks(run: RunRecord): string {
  const counts = new Map<string, number>();
  const tail = run.trace.slice(-2000);
  for (const e of tail) {
    if (e.type !== 'reconcile:start' && e.type !== 'handler:start') continue;
    const label = e.type === 'reconcile:start' ? describeTask(`reconcile ${String(e['controller'])}/${String(e['replica'])} ${String(e['key'])}`) : `the watch map of ${String(e['controller'])} for ${String(e['kind'])}`;
    counts.set(label, (counts.get(label) ?? 0) + 1);
  }
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 3)
    .map(([label, n]) => `${label} ×${n}`)
    .join(', ');
}

function fmtSeconds(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(3).replace(/\.?0+$/, '')} s`;
}
