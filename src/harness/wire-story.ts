import type { TraceEntry } from '../sim/trace.js';
// a pure phrase helper (imports only sim/trace types)
import { fmtTime } from '../report/explain.js';

/** At most this many facts in one story (the most telling first). */
const MAX_FACTS = 3;

/**
 * What a hosted program did on the wire that explains a failure, in sentences: watches that
 * ended and were never opened again (nor the resource listed), writes the API refused and reads
 * it failed (5xx, 429) that were never retried, invalid writes (400, 422) never followed by a valid
 * one, and process deaths with the last line printed
 * before them. Built from the
 * `http:request`, `watch:close` and `process:exit` trace entries; empty for runs without
 * hosted programs.
 * @internal
 */
export function wireStory(trace: readonly TraceEntry[], options: { exits?: boolean } = {}): string[] {
  const facts: string[] = [];
  const requests: TraceEntry[] = [];
  for (const e of trace) if (e.type === 'http:request') requests.push(e);
  if (requests.length === 0 && !trace.some((e) => e.type === 'process:exit')) return facts;
  const who = (e: TraceEntry) => `${String(e['controller'])}/${String(e['replica'])}`;
  const end = trace.find((e) => e.type === 'run:phase' && e['phase'] === 'tail')?.t ?? trace[trace.length - 1]?.t ?? 0;

  for (const close of trace) {
    if (close.type !== 'watch:close' || close['by'] === 'client') continue;
    const path = resourcePath(String(close['path']));
    const again = requests.some((r) => r.t >= close.t && sameProcess(r, close) && r['method'] === 'GET' && resourcePath(String(r['path'])) === path);
    if (again || close.t > end) continue;
    const cause = watchCause(trace, close);
    facts.push(`after the watch on ${path} ${cause} at ${fmtTime(close.t)}, ${who(close)} never opened another watch or list of it`);
    if (facts.length >= MAX_FACTS) return facts;
  }
  for (const e of trace) {
    if (e.type !== 'process:exit' || options.exits === false) continue;
    const last = typeof e['lastOutput'] === 'string' ? ` after printing ${JSON.stringify(e['lastOutput'])}` : '';
    const how = e['kind'] === 'exit' ? `exited with code ${String(e['code'])}` : e['kind'] === 'uncaught' ? `crashed on an uncaught exception (${String(e['message']).split('\n')[0]})` : `crashed on an unhandled rejection (${String(e['message']).split('\n')[0]})`;
    facts.push(`${who(e)} ${how}${last} at ${fmtTime(e.t)}`);
    if (facts.length >= MAX_FACTS) return facts;
    break;
  }
  for (const r of requests) {
    const status = Number(r['status']);
    // a read answered 404 is an answer; a read answered 5xx or 429 (a list, a watch, a get) is owed a retry like a write
    if (status < 400 || (r['method'] === 'GET' && status < 500 && status !== 429)) continue;
    // a delete answered 404 (already gone) and a create answered 409 (already exists) are answers
    // the program acts on, not refusals it owes a retry
    if ((r['method'] === 'DELETE' && status === 404) || (r['method'] === 'POST' && status === 409)) continue;
    const path = resourcePath(String(r['path']));
    const invalid = status === 400 || status === 422;
    // an invalid request is refused again unchanged: what the program owes is a valid one (the
    // last refusal of a path speaks for the ones before it)
    const again = requests.some((x) => x.t > r.t && sameProcess(x, r) && x['method'] === r['method'] && resourcePath(String(x['path'])) === path && (!invalid || Number(x['status']) < 400 || Number(x['status']) === 400 || Number(x['status']) === 422));
    if (again) continue;
    facts.push(
      invalid
        ? `${String(r['method'])} ${path} by ${who(r)} was refused as invalid (${status}) at ${fmtTime(r.t)} and no valid one followed`
        : `${String(r['method'])} ${path} by ${who(r)} answered ${status} at ${fmtTime(r.t)} and was never retried`,
    );
    if (facts.length >= MAX_FACTS) return facts;
  }
  return facts;
}

/** The story as one sentence to append to an explanation ("On the wire: …."), or '' when there is nothing to tell; `exits: false` leaves deaths out (a verdict that is about them). @internal */
export function wireParagraph(trace: readonly TraceEntry[], options: { exits?: boolean } = {}): string {
  const facts = wireStory(trace, options);
  return facts.length === 0 ? '' : `On the wire: ${facts.join('; ')}.`;
}

function sameProcess(a: TraceEntry, b: TraceEntry): boolean {
  return a['controller'] === b['controller'] && a['replica'] === b['replica'];
}

/** `/api/v1/namespaces/x/secrets?watch=true&…` → `/api/v1/namespaces/x/secrets`; legacy `/watch/` paths too. */
function resourcePath(path: string): string {
  const q = path.indexOf('?');
  const p = q < 0 ? path : path.slice(0, q);
  return p.replace(/^\/(api\/v1|apis\/[^/]+\/[^/]+)\/watch\//, '/$1/');
}

/** Why a watch ended, from what happened at the same instant. */
function watchCause(trace: readonly TraceEntry[], close: TraceEntry): string {
  if (close['by'] === 'harness') return `was cut by steadystate (${String(close['why'] ?? 'the process was stopped')})`;
  const fault = trace.find((e) => e.type === 'fault:inject' && e.t === close.t && (e['controller'] === undefined || e['controller'] === close['controller']));
  const how = close['how'] === 'expire' ? `ended with a 410 Expired ERROR event` : close['how'] === 'cut' ? 'was cut' : 'was closed by the server';
  return fault ? `${how} (${String(fault['kind'])})` : how;
}
