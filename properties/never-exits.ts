import { escapeFailure, NEVER_EXITS } from '../src/harness/escape-verdict.js';
import { defineProperty, type RunRecord, type Verdict } from '../src/harness/property.js';
import type { TraceEntry } from '../src/sim/trace.js';
import { explanation, fmtDuration, fmtTime, letFacts } from '../src/report/explain.js';

/** Options of {@link neverExits}. @public */
export interface NeverExitsOptions {
  /**
   * Exit codes of hosted programs that are not findings (an operator that exits 0 on purpose
   * after a one-shot task). Exits of code that is not a hosted program always fail.
   * @defaultValue []
   */
  allowCodes: number[];
}

/**
 * Never exits: an operator process does not end on its own. A hosted program's incarnation that
 * calls `process.exit`, lets an exception go uncaught or leaves a rejection unhandled is a
 * finding (the supervisor restarts it with CrashLoopBackOff, and the work it had in memory is
 * lost), even when the restarted one repairs the world: an operator that exits on every watch
 * error is the classic case. For code that is not a hosted program (a `defineController`
 * reconcile, a watch map) such an event is always the run's verdict, named the same.
 * @example properties.neverExits()
 * @public
 */
export const neverExits = defineProperty<NeverExitsOptions>({
  name: NEVER_EXITS,
  description: 'processes never exit, crash on an uncaught exception or on an unhandled rejection',
  defaults: { allowCodes: [] },
  validate: (o) => (!Array.isArray(o.allowCodes) || o.allowCodes.some((c) => !Number.isInteger(c)) ? 'allowCodes must be an array of integer exit codes' : undefined),
  judge: (run, o): Verdict => {
    const escaped = escapeFailure(run);
    if (escaped) return { ok: false, summary: escaped.summary, explanation: escaped.explanation, evidence: escaped.evidence };
    const exit = run.trace.find((e) => e.type === 'process:exit' && !o.allowCodes.includes(e['code'] as number));
    if (exit === undefined) return { ok: true };
    return exitVerdict(run, exit);
  },
});

function exitVerdict(run: RunRecord, e: TraceEntry): Verdict {
  const who = `${String(e['controller'])}/${String(e['replica'])}`;
  const how = exitPhrase(e);
  const printed = typeof e['lastOutput'] === 'string' ? ` after printing ${JSON.stringify(e['lastOutput'])}` : '';
  const at = typeof e['at'] === 'string' ? ` (${e['at']})` : '';
  const exits = run.trace.filter((x) => x.type === 'process:exit' && x['controller'] === e['controller'] && x['replica'] === e['replica']).length;
  const then = [`the program ${who} ${how}${printed} at ${fmtTime(e.t)}${at}`];
  if (typeof e['restartInMs'] === 'number') then.push(`the supervisor restarted it ${fmtDuration(e['restartInMs'])} later (CrashLoopBackOff)${exits > 1 ? `; it exited ${exits} times in this run` : ''}`);
  then.push(advice(e));
  return {
    ok: false,
    summary: `the program ${who} ${how}${printed} at ${fmtTime(e.t)}`,
    explanation: explanation(letFacts(run.trace, { until: e.t }), then),
    evidence: { t: e.t, controller: String(e['controller']), replica: Number(e['replica']), kind: String(e['kind']), code: Number(e['code']), message: String(e['message']), ...(typeof e['stack'] === 'string' ? { stack: e['stack'] } : {}), exits },
  };
}

function exitPhrase(e: TraceEntry): string {
  // one line: client errors often carry the whole response after the first
  const message = String(e['message']).split('\n')[0];
  switch (e['kind']) {
    case 'exit':
      return `exited with code ${String(e['code'])} (${message})`;
    case 'uncaught':
      return `crashed on an uncaught exception (${message})`;
    default:
      return `crashed on an unhandled rejection (${message})`;
  }
}

function advice(e: TraceEntry): string {
  switch (e['kind']) {
    case 'exit':
      return 'an operator should ride out what a watch or a request can do to it (re-watch, relist, retry with backoff) rather than exit and lose its work';
    case 'uncaught':
      return 'catch the exception where it is thrown (a callback, a timer, an event handler); Node ends the process on an uncaught one';
    default:
      return 'await the promise or attach .catch(); Node (15 and later) ends the process on an unhandled rejection';
  }
}
