import type { RunEscape } from '../host/host-context.js';
import type { JsonObject } from '../store/object.js';
import type { Property, RunRecord, Verdict } from './property.js';
// a pure phrase helper (imports only sim/trace types); the verdict must not depend on properties/
import { explanation, fmtTime } from '../report/explain.js';

/** The verdict's name: a process that exits (or would be killed by Node) is never a pass. @public */
export const NEVER_EXITS = 'never-exits';

/**
 * The run guard "contained": code that would have ended a real process (`process.exit`, an
 * uncaught exception, an unhandled rejection) outside a hosted program fails the run, whatever
 * properties were asked for, under the name of the property that judges process deaths
 * (`never-exits`), so user code that exits can never make a check pass.
 * @public
 */
export const contained: Property = {
  name: NEVER_EXITS,
  description: 'the code under test never exits, throws uncaught or leaves a rejection unhandled',
  options: {},
  needsTwin: false,
  probes: () => [],
  judge(run: RunRecord): Verdict {
    const f = escapeFailure(run);
    return f ? { ok: false, summary: f.summary, explanation: f.explanation, evidence: f.evidence } : { ok: true };
  },
};

/** Frames of a stack shown in an explanation (the whole stack is in the evidence). */
const FRAMES = 6;

/**
 * The failure of a run whose code would have ended a real process outside a hosted program
 * (`process.exit`, an uncaught exception, an unhandled rejection): it is the run's verdict
 * whatever properties were asked for, so user code that exits can never make a check pass.
 * @internal
 */
export function escapeFailure(run: RunRecord): { property: string; summary: string; explanation: string; evidence: JsonObject } | undefined {
  const first = run.escapes?.[0];
  if (first === undefined) return undefined;
  const more = (run.escapes?.length ?? 1) - 1;
  return {
    property: NEVER_EXITS,
    summary:
      first.kind === 'replaced-builtin'
        ? `${escapeHeadline(first)} by ${fmtTime(first.t)}; steadystate put ${first.message.includes(',') ? 'them' : 'it'} back`
        : `${escapeHeadline(first)} ${first.kind === 'unhandled-rejection' ? 'noticed at' : 'at'} ${fmtTime(first.t)}: a real controller process would have ended there`,
    explanation: [explanation([escapeLet(first)], [`${escapeThen(first)}${more > 0 ? ` (${more} more such event${more === 1 ? '' : 's'} followed in this run)` : ''}`]), ...stackLines(first.stack)].join('\n'),
    evidence: { escapes: (run.escapes ?? []).map(escapeEvidence) },
  };
}

/** `process.exit(1)`, `an uncaught Error: boom`, `an unhandled rejection (Error: x)`. @internal */
export function escapeHeadline(e: RunEscape): string {
  // one line: an error's message may carry a whole response after the first
  const message = e.message.split('\n')[0];
  switch (e.kind) {
    case 'exit':
      return `the code under test called ${message}`;
    case 'uncaught':
      return `an exception escaped the code under test (${message})`;
    case 'unhandled-rejection':
      return `a promise of the code under test rejected and nothing handled it (${message})`;
    case 'replaced-builtin':
      return `the code under test replaced the built-in${e.message.includes(',') ? 's' : ''} ${message}${e.where ? ` in ${e.where}` : ''}`;
  }
}

function escapeLet(e: RunEscape): string {
  const at = firstFrame(e.stack);
  switch (e.kind) {
    case 'exit':
      return `the code under test call ${e.message} at ${fmtTime(e.t)}${at ? ` (${at})` : ''}`;
    case 'uncaught':
      return `${e.message} be thrown${e.where ? ` from ${e.where}` : ''} at ${fmtTime(e.t)}${at ? ` (${at})` : ''} and nothing catch it`;
    case 'unhandled-rejection':
      return `a promise reject with ${e.message}${at ? ` (${at})` : ''} and nothing handle it (Node noticed at ${fmtTime(e.t)}, when the run next let the event loop turn)`;
    case 'replaced-builtin':
      return `the code under test${e.where ? ` (${e.where})` : ''} replace ${e.message} and hand control back to the simulation by ${fmtTime(e.t)}`;
  }
}

function escapeThen(e: RunEscape): string {
  const timer = e.where?.includes('real timer') ? '; real timers also never run on virtual time: wait with ctx.clock.sleep or return { requeueAfter }' : '';
  switch (e.kind) {
    case 'exit':
      return 'a real controller process ends there (steadystate stopped the calling code and recorded the exit instead). An operator never exits on its own: return an error from reconcile (the runtime retries it with backoff)';
    case 'uncaught':
      return `Node ends a real process on an uncaught exception; catch it where it is thrown${timer}`;
    case 'unhandled-rejection':
      return 'Node (15 and later) ends a real process on an unhandled rejection; await the promise or attach .catch()';
    case 'replaced-builtin':
      return 'steadystate put the original back before running any more of its own code. A built-in is shared by everything in the process: replacing it changes every later run, the other tests of a vitest worker and the harness that judges them, so a run that replaces one never passes. Keep the change local (a function or a wrapper of your own instead of the built-in), or install a polyfill when your module is imported, before the check starts (that is part of the module and stays)';
  }
}

function stackLines(stack: string | undefined): string[] {
  if (stack === undefined) return [];
  const frames = stack.split('\n').filter((l) => l.trim().startsWith('at '));
  if (frames.length === 0) return [];
  const shown = [...frames.slice(0, FRAMES).map((l) => `  ${l.trim()}`), ...(frames.length > FRAMES ? [`  … ${frames.length - FRAMES} more frames`] : [])];
  // the proof ends with a full stop, after the last frame
  return ['Stack, innermost call first:', ...shown.slice(0, -1), `${shown[shown.length - 1]!}.`];
}

function firstFrame(stack: string | undefined): string | undefined {
  if (stack === undefined) return undefined;
  for (const l of stack.split('\n')) {
    const t = l.trim();
    if (t.startsWith('at ') && !t.includes('node_modules/')) return t;
  }
  return undefined;
}

function escapeEvidence(e: RunEscape): JsonObject {
  return { t: e.t, kind: e.kind, code: e.code, message: e.message, ...(e.where !== undefined ? { where: e.where } : {}), ...(e.stack !== undefined ? { stack: e.stack } : {}) };
}
