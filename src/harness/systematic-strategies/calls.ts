import type { JsonObject } from '../../store/object.js';
import { DerivationBuilder, type Derivation, type Strategy } from './strategy.js';
import { controllerActor, fmtEntryObject, type TraceIndex } from './trace-index.js';

/** The downstream failure modes, each at each mutating call. */
const REQUEST_FAILURES: readonly { words: string; params: JsonObject }[] = [
  { words: 'answered 500', params: { fail: 'status', status: 500 } },
  { words: 'answered 429 (Retry-After 1 s)', params: { fail: 'status', status: 429 } },
  { words: 'reset before it reached the service', params: { fail: 'reset' } },
  { words: 'hung until the client timeout', params: { fail: 'hang' } },
  { words: 'applied, and its response lost', params: { fail: 'applied-but-lost' } },
];

/** Each downstream failure mode at each mutating request. Pruned: read-only requests. */
export const requestFailure: Strategy = {
  name: 'request-failure',
  kind: 'flaky-downstream',
  derive(ix: TraceIndex): Derivation {
    const b = new DerivationBuilder('request-failure');
    for (const q of ix.requests) {
      if (q.entry['mutating'] !== true) {
        b.prune('a read-only request', REQUEST_FAILURES.length);
        continue;
      }
      for (const f of REQUEST_FAILURES) {
        b.add({ target: `${String(q.entry['method'])} ${String(q.entry['url'])} by ${String(q.entry['actor'])} at t=${Number(q.entry['start'] ?? q.entry.t)} ms (request #${q.seq}), ${f.words}`, events: [{ kind: 'flaky-downstream', nth: q.seq, params: f.params }], at: q.index });
      }
    }
    return b.result();
  },
};

/**
 * A genuine conflict before each conditional write (update, updateStatus): another actor writes
 * the object first, so the write answers 409. Pruned: creates and patches (no precondition to fail).
 */
export const conflictAtWrite: Strategy = {
  name: 'conflict-at-write',
  kind: 'api-conflict',
  derive(ix: TraceIndex): Derivation {
    const b = new DerivationBuilder('conflict-at-write');
    for (const w of ix.writes) {
      const verb = String(w.entry['verb']);
      // a binding carries the Pod's resourceVersion as a precondition when the scheduler sends one
      if (verb !== 'update' && verb !== 'updateStatus' && verb !== 'bind') {
        b.prune('a create or patch: no resourceVersion to conflict with');
        continue;
      }
      b.add({ target: `a concurrent write before ${verb} ${fmtEntryObject(w.entry)} by ${String(w.entry['actor'])} at t=${w.entry.t} ms (write #${w.seq})`, events: [{ kind: 'api-conflict', nth: w.seq }], at: w.index });
    }
    return b.result();
  },
};

/**
 * An API server error at each controller write: 500, and, for writes that create or replace, a
 * timeout after the write was applied (the caller cannot tell it happened). Counted as api-error
 * counts calls: controller writes and live reads, in order.
 */
export const errorAtWrite: Strategy = {
  name: 'error-at-write',
  kind: 'api-error',
  derive(ix: TraceIndex): Derivation {
    const b = new DerivationBuilder('error-at-write');
    let call = 0;
    for (let i = 0; i < ix.end; i++) {
      const e = ix.trace[i]!;
      const live = e.type === 'store:read' && e['cached'] === false && controllerActor(e['actor']) !== undefined;
      const write = e.type === 'store:write' && controllerActor(e['actor']) !== undefined && e['fault'] === undefined;
      if (!live && !write) continue;
      const n = call++;
      if (live) continue;
      const what = `${String(e['verb'])} ${fmtEntryObject(e)} by ${String(e['actor'])} at t=${e.t} ms (API call #${n})`;
      b.add({ target: `${what} answered 500`, events: [{ kind: 'api-error', nth: n, params: { status: 500 } }], at: i });
      if (e['verb'] === 'create' || e['verb'] === 'update' || e['verb'] === 'updateStatus' || e['verb'] === 'bind') b.add({ target: `${what} timed out after it was applied`, events: [{ kind: 'api-error', nth: n, params: { status: 504, applied: true } }], at: i });
      else b.prune('a patch or delete: a timeout after applying it is retried harmlessly');
    }
    return b.result();
  },
};
