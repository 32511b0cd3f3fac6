import { stableStringify } from '../sim/hash.js';
import { firstDivergence, type TraceEntry } from '../sim/trace.js';
import type { DeterminismReport } from './check-result.js';
import type { RunRecord } from './property.js';
import type { Scenario } from './scenario.js';

/**
 * Watches the host's sources of nondeterminism while a scenario is re-run, and may perturb them
 * (shift the wall clock) so that code depending on them diverges for sure instead of by luck.
 * `start` returns a function that restores everything and returns how often each source was
 * called. It is provided by the composition root (`src/check.ts`): the harness itself never
 * touches wall time or host randomness.
 * @public
 */
export interface HostSourceProbe {
  start(): () => Record<string, number>;
}

/**
 * The determinism self-check (SPEC §6): runs the scenario of `first` again and compares trace
 * hashes. On a mismatch it reports the first diverging trace entry and names the likely causes.
 * With `runs` above 2 it runs the scenario that many times in all, each compared with the first:
 * state the code keeps between runs (a module-level cache or counter) may change what it does
 * only after a few runs, as it did in the check's process, which had run other scenarios before.
 * @public
 */
export async function checkDeterminism(first: RunRecord, rerun: (scenario: Scenario) => Promise<RunRecord>, probe?: HostSourceProbe, runs = 2): Promise<DeterminismReport> {
  const stop = probe?.start();
  let second: RunRecord = first;
  let calls: Record<string, number> = {};
  let run = 1;
  try {
    while (run < Math.max(2, runs) && second.hash === first.hash) {
      second = await rerun(first.scenario);
      run++;
    }
  } finally {
    if (stop) calls = stop();
  }
  if (second.hash === first.hash) return { ok: true, hashes: [first.hash, second.hash] };
  const d = firstDivergence(first.trace, second.trace);
  const divergence = { index: d?.index ?? 0, first: d?.a ?? null, second: d?.b ?? null };
  return { ok: false, hashes: [first.hash, second.hash], divergence, explanation: explainDivergence(divergence, first, second, calls, run) };
}

/** Words for a nondeterministic run: where the traces part, and what usually causes it. @internal */
export function explainDivergence(d: { index: number; first: TraceEntry | null; second: TraceEntry | null }, first: RunRecord, second: RunRecord, calls: Record<string, number>, run = 2): string {
  const at = d.first?.t ?? d.second?.t ?? 0;
  const lines: string[] = [];
  const later = run > 2;
  lines.push(later ? `Let: the same scenario (seed ${first.scenario.seed}) be run ${run} times in one process with identical inputs.` : `Let: the same scenario (seed ${first.scenario.seed}) be run twice with identical inputs.`);
  lines.push(`Then: ${later ? `runs 1 to ${run - 1} gave the same trace (hash ${first.hash}), run ${run} a different one (hash ${second.hash})` : `the traces differ (hash ${first.hash} vs ${second.hash})`}; the first difference is entry #${d.index} at t=${at} ms: ${difference(d.first, d.second, later ? `run ${run}` : 'the second')}.`);
  const used = Object.entries(calls)
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1]);
  const blocked = [...first.trace, ...second.trace].some((e) => e.type === 'kernel:blocked');
  const causes: string[] = [];
  for (const [source, n] of used) causes.push(`${source} was called ${n} time${n === 1 ? '' : 's'} during the re-run (${hint(source)})`);
  // a change after several identical runs: something the runs leave behind
  if (later && used.length === 0) causes.push(`state kept between runs: a module-level variable (a cache, a counter, a flag) that the runs before changed, so run ${run} behaved differently; a check runs many scenarios in one process, so its failures may need such state, and a fresh process does not reproduce them`);
  if (blocked) causes.push('a reconcile waited on something outside the simulation (a real timer, setTimeout/setImmediate, or unmocked I/O such as a socket or file) and was given up on');
  if (causes.length === 0) causes.push('Math.random or crypto randomness, Date.now/new Date()/performance.now(), real timers (setTimeout, setInterval), unmocked I/O, or state kept in module-level variables between runs');
  lines.push(`Likely cause${causes.length === 1 ? '' : 's'}: ${causes.join('; ')}.`);
  const programs = first.programs ?? [];
  const reconcilers = first.controllers.some((c) => !programs.includes(c));
  // nothing else seen: the usual culprit is correct production code keeping memory in a module
  if (used.length === 0 && !blocked) {
    if (reconcilers) lines.push(MODULE_STATE_HINT);
    if (programs.length > 0) lines.push(programStateHint(programs));
  }
  const memory = reconcilers ? "keep in-memory state in defineController's `state` (ctx.state), not in module-level variables" : 'keep in-memory state where each incarnation makes it afresh, not on globalThis';
  lines.push(`Fix: take time from ctx.clock, randomness from data in the object (or a deterministic function of it), and route I/O through ctx.fetch and ctx.client; ${memory}.`);
  return lines.join('\n');
}

/**
 * The hint for a re-run that diverged with no other source of nondeterminism seen. Correct
 * controllers keep memory (expectations, "last seen" maps) in the process; steadystate runs every
 * simulation in one process and repeats uids across them, so module-level state leaks.
 * @internal
 */
export const MODULE_STATE_HINT =
  "Hint: no other source of nondeterminism was seen. State kept in module-level variables (a cache keyed by uid, a \"last seen generation\" map, a counter) survives between steadystate's simulations, because one process runs them all (a check's runs, their fault-free twins, these re-runs) and an object gets the same uid in each. In a real cluster that memory lives in the controller's process: fresh in a new cluster, lost on a restart. Keep it in defineController's `state` option instead (`state: () => ({ expectations: new Map() })`, read as ctx.state): steadystate makes it fresh for every run and every replica, and a crash-restart loses it.";

/**
 * The same hint for controllers that run as processes of their own: a hosted program's own
 * modules are loaded afresh for each incarnation (src/host/fresh-import.ts), so what leaks is
 * what that does not renew.
 * @internal
 */
export function programStateHint(programs: readonly string[]): string {
  return `Hint: ${programs.join(', ')} run${programs.length === 1 ? 's' : ''} as ${programs.length === 1 ? 'a process' : 'processes'} of ${programs.length === 1 ? 'its' : 'their'} own. A hosted program's own modules are loaded afresh for every incarnation (each run, each restart), but globalThis and the libraries under node_modules are shared by all of steadystate's simulations in this process, and so is the module that calls kubeController: state kept there (a cache on globalThis, a library's module-level singleton, a variable beside kubeController) survives between runs. Keep it in the program's own modules, or for kubeController inside \`start\`, which runs once per incarnation.`;
}

function hint(source: string): string {
  if (source.startsWith('Math.random')) return 'derive choices from the object, e.g. a hash of its uid, instead';
  if (source.startsWith('crypto.')) return 'derive ids and choices from the object (a hash of its uid, its name) instead of fresh randomness';
  if (source.startsWith('Date') || source.startsWith('new Date') || source.startsWith('performance') || source.startsWith('process.hrtime')) return 'use ctx.clock.now(), the virtual clock';
  if (source.startsWith('set')) return 'use ctx.clock.sleep() or return { requeueAfter }';
  if (source.startsWith('fs.')) return 'read files once at module load; files can change between runs, the simulation does not replay them';
  return 'route it through the simulation';
}

/** The two entries in words: when they are the same sort of entry, only the fields that differ. */
function difference(a: TraceEntry | null, b: TraceEntry | null, other: string): string {
  if (a === null || b === null || a.type !== b.type) return `${describe(a)} in the first run vs ${describe(b)} in ${other}`;
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((k) => stableStringify(a[k]) !== stableStringify(b[k])).sort();
  const what = [a['actor'], a['verb'], a['kind'], a['key']].filter((x) => typeof x === 'string').join(' ');
  const fields = keys.map((k) => `${k} (${short(stableStringify(a[k]))} in the first run, ${short(stableStringify(b[k]))} in ${other})`).join(', ');
  return `${/^[aeiou]/i.test(a.type) ? 'an' : 'a'} ${a.type}${what ? ` (${what})` : ''} that differs in ${fields}`;
}

function short(text: string): string {
  return text.length > 120 ? text.slice(0, 120) + '…' : text;
}

function describe(e: TraceEntry | null): string {
  if (e === null) return 'nothing (the trace ended)';
  const { t: _t, type, ...rest } = e;
  const text = stableStringify(rest);
  return `${type} ${text.length > 300 ? text.slice(0, 300) + '…' : text}`;
}
