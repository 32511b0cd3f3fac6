import type { Probe, RunRecord } from '../../src/harness/property.js';
import { defineProperty } from '../../src/harness/property.js';
import type { WorldView } from '../../src/harness/world.js';
import { immutabilityErrors } from '../../src/store/immutability.js';
import { keyOf, type StoredObject } from '../../src/store/object.js';
import type { WriteRecord } from '../../src/store/write-record.js';
import { contentErrors, invalidObject, invalidTransition } from '../../src/store/validation.js';
import type { TraceEntry } from '../../src/sim/trace.js';

/**
 * The realism principle (SPEC §3, issue 11) as checks of a recorded run: what a fault may do is
 * only what a real control plane does. Each check returns the violations it found, in words.
 *
 * (a) each informer's view of each object moves forward in resourceVersion, except at a
 *     recorded time travel: a new process's first list from a lagging API server replica, or a
 *     list a client itself asked for with resourceVersion=0 over HTTP (a reflector's relist asks
 *     for data not older than the last resourceVersion it observed, so it never goes back);
 * (b) within one watch stream, events are delivered in resourceVersion order (a replay after a
 *     reconnect re-sends an object's newest version only);
 * (c) every stored object passes the store's validation, and every change of one passes its
 *     update validation (immutable fields);
 * (d) every watch stream served over HTTP is a valid kube-apiserver stream;
 * (e) no notification is lost that nothing but a restart could bring back: client-go's informer
 *     never loses one on its way to the workqueue, and a controller whose `GenerationChanged`
 *     predicate also filters resyncs relies on that for its primary kind (DELETED aside: a
 *     finalizer's deletion is a generation change of its own);
 * (f) every change stored reaches every running informer of its kind — as a watch event (whatever
 *     a fault then did to it) or in a (re)list — within {@link LIVENESS_MS} (after a lag holding
 *     its stream, after the lag ends): a reflector whose stream ends watches again or relists, so
 *     no informer goes deaf until the settle phase's relist (a dead stream froze a cache for 28 s);
 * (g) a fault applies a manifest again only for an object a person declared: nobody holds a
 *     manifest of what a controller made (a CertificateRequest, a ReplicaSet's Pod).
 */

/** (g) from the run's writes: a fault's create under the key of an object a controller or the environment made. */
export function manifestViolations(writes: readonly WriteRecord[]): string[] {
  const madeBy = new Map<string, string>();
  const out: string[] = [];
  for (const w of writes) {
    if (w.verb !== 'create' || w.error !== undefined) continue;
    const id = `${w.kind} ${w.key}`;
    const fault = w.actor.startsWith('fault:') || w.actor === 'environment:recreation';
    const by = madeBy.get(id);
    if (fault && by !== undefined && by !== 'user' && by !== w.actor) out.push(`(g) ${w.actor} created ${id} again at t=${w.t} from a manifest, but ${by} had made it: nobody holds a manifest of it`);
    if (!fault) madeBy.set(id, w.actor);
  }
  return out;
}

/** (a) and (b) from the trace. */
export function watchViolations(trace: readonly TraceEntry[]): string[] {
  const out: string[] = [];
  /** Per informer stream: the highest resourceVersion delivered (live), and per key its newest. */
  const streamRv = new Map<string, number>();
  const keyRv = new Map<string, number>();
  /** Per informer: the highest resourceVersion it ever held (across streams), for lists that go back. */
  const held = new Map<string, number>();
  const travelled = new Set<string>();
  for (const e of trace) {
    const informer = `${String(e['controller'])}/${String(e['replica'])}/${String(e['kind'])}`;
    if (e.type === 'informer:time-travel') {
      // client-go relists with the last resourceVersion it observed ("not older than"): only a new
      // process's first list, or a client that itself asks for resourceVersion=0 over HTTP, can go back
      if (e['reason'] !== 'restart' && e['via'] !== 'http') out.push(`(a) ${informer} relisted back in time at t=${e.t} (rv ${String(e['toRv'])} after it held rv ${String(e['cachedRv'])}): a reflector's relist is never older than the last resourceVersion it observed`);
      travelled.add(`${informer}@${e.t}`);
      continue;
    }
    if (e.type === 'informer:list' || e.type === 'informer:relist') {
      const rv = Number(e['rv']);
      // a list starts a new stream; one that shows less than the informer held must be recorded as time travel
      if (rv < (held.get(informer) ?? 0) && !travelled.has(`${informer}@${e.t}`)) out.push(`(a) ${informer} ${e.type === 'informer:list' ? 'listed' : 'relisted'} at rv ${rv} at t=${e.t} after it held rv ${held.get(informer)}, with no time travel recorded`);
      streamRv.set(informer, rv);
      if (travelled.has(`${informer}@${e.t}`)) for (const k of [...keyRv.keys()]) if (k.startsWith(`${informer}/`)) keyRv.delete(k);
      continue;
    }
    if (e.type === 'watch:event' && ['disconnect', 'gone', 'close', 'error'].includes(String(e['decision']))) {
      continue; // the stream ends; its successor starts after the last delivered version
    }
    if (e.type !== 'watch:event' || e['decision'] !== 'deliver' || e['via'] === 'http') continue;
    const rv = Number(e['rv']);
    const key = `${informer}/${String(e['key'])}`;
    if (e['replay'] === true) {
      // (b) a replay re-sends an object's newest version, never an older one
      if (rv !== keyRv.get(key)) out.push(`(a) ${informer} replayed ${String(e['key'])} at rv ${rv} at t=${e.t}, its newest on the stream being rv ${keyRv.get(key) ?? 'none'}`);
      continue;
    }
    const last = streamRv.get(informer) ?? 0;
    if (rv <= last) out.push(`(b) ${informer} delivered ${String(e['event'])} ${String(e['key'])} rv ${rv} at t=${e.t} after rv ${last} on the same stream`);
    const before = keyRv.get(key) ?? 0;
    if (rv <= before) out.push(`(a) ${informer}'s view of ${String(e['key'])} went from rv ${before} back to rv ${rv} at t=${e.t}`);
    streamRv.set(informer, Math.max(last, rv));
    keyRv.set(key, rv);
    held.set(informer, Math.max(held.get(informer) ?? 0, rv));
  }
  return out;
}

/**
 * `prev` as a binding would have left it when `next` is bound and `prev` was not: the
 * `pods/binding` subresource sets `spec.nodeName` once, which no update may (the changes in
 * between are still judged by the update rules).
 */
function bound(prev: StoredObject, next: StoredObject): StoredObject {
  if (prev.kind !== 'Pod' || typeof next.spec['nodeName'] !== 'string' || next.spec['nodeName'] === '') return prev;
  if (typeof prev.spec['nodeName'] === 'string' && prev.spec['nodeName'] !== '') return prev;
  return { ...prev, spec: { ...prev.spec, nodeName: next.spec['nodeName'] } };
}

/** (c): a probe after every write that validates every object, and every change since the last look. */
export function validityProbe(): Probe {
  const seen = new Map<string, StoredObject>();
  return {
    name: 'realism:valid',
    everyMs: 'write',
    phases: ['faults', 'settle', 'tail'],
    fn(view: WorldView) {
      for (const kind of view.kinds()) {
        for (const o of view.list(kind)) {
          const id = `${kind}/${keyOf(o.metadata)}/${o.metadata.uid}`;
          const bad = invalidObject(o) ?? contentErrors(o).map((f) => `${f.field}: ${f.body}`)[0];
          if (bad !== undefined) return `(c) ${kind} ${keyOf(o.metadata)} is not valid: ${bad}`;
          const prev = seen.get(id);
          if (prev && prev.metadata.resourceVersion !== o.metadata.resourceVersion) {
            const change = invalidTransition(prev, o) ?? immutabilityErrors(bound(prev, o), o, undefined).map((f) => `${f.field}: ${f.body}`)[0];
            if (change !== undefined) return `(c) ${kind} ${keyOf(o.metadata)} changed in a way the API server refuses (rv ${prev.metadata.resourceVersion} → ${o.metadata.resourceVersion}): ${change}`;
          }
          seen.set(id, o);
        }
      }
      return true;
    },
  };
}

/** One line a watch stream served over HTTP wrote, or its end. */
export type StreamLine = { stream: number; actor: string; kind: string; text: string } | { stream: number; actor: string; kind: string; end: true };

const EVENT_TYPES = new Set(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR']);

/** (d): every stream is newline-delimited JSON watch events, in resourceVersion order, an ERROR only last. */
export function streamViolations(lines: readonly StreamLine[]): string[] {
  const out: string[] = [];
  const streams = new Map<number, StreamLine[]>();
  for (const l of lines) {
    let s = streams.get(l.stream);
    if (!s) streams.set(l.stream, (s = []));
    s.push(l);
  }
  for (const [id, ls] of streams) {
    let rv = 0;
    let initial = true;
    let errored = false;
    const perKey = new Map<string, number>();
    for (const l of ls) {
      if ('end' in l) continue;
      const where = `stream ${id} (${l.actor} watching ${l.kind})`;
      if (errored) out.push(`(d) ${where}: a line after its ERROR event: ${l.text.slice(0, 80)}`);
      if (!l.text.endsWith('\n') || l.text.slice(0, -1).includes('\n')) out.push(`(d) ${where}: not one JSON object per line: ${JSON.stringify(l.text.slice(0, 80))}`);
      let ev: { type?: unknown; object?: Record<string, unknown> };
      try {
        ev = JSON.parse(l.text) as typeof ev;
      } catch {
        out.push(`(d) ${where}: a line that is not JSON: ${l.text.slice(0, 80)}`);
        continue;
      }
      const type = String(ev.type);
      const obj = ev.object;
      if (!EVENT_TYPES.has(type) || obj === null || typeof obj !== 'object') {
        out.push(`(d) ${where}: not a watch event: ${l.text.slice(0, 80)}`);
        continue;
      }
      if (type === 'ERROR') {
        if (obj['kind'] !== 'Status' || obj['apiVersion'] !== 'v1' || obj['status'] !== 'Failure' || typeof obj['code'] !== 'number') out.push(`(d) ${where}: an ERROR event without a Failure Status: ${l.text.slice(0, 120)}`);
        errored = true;
        continue;
      }
      const meta = obj['metadata'] as Record<string, unknown> | undefined;
      const v = Number(meta?.['resourceVersion']);
      if (typeof meta?.['resourceVersion'] !== 'string' || !Number.isFinite(v)) {
        out.push(`(d) ${where}: an event without a resourceVersion: ${l.text.slice(0, 120)}`);
        continue;
      }
      if (type !== 'BOOKMARK' && (obj['kind'] !== l.kind || typeof obj['apiVersion'] !== 'string')) out.push(`(d) ${where}: an object of another kind: ${String(obj['kind'])}`);
      // the initial ADDED events of a watch without a resourceVersion come in key order
      if (type !== 'ADDED') initial = false;
      if (!initial && v < rv) out.push(`(d) ${where}: resourceVersion ${v} after ${rv}`);
      if (type !== 'BOOKMARK') {
        const key = `${String(meta['namespace'] ?? '')}/${String(meta['name'])}`;
        if (v < (perKey.get(key) ?? 0)) out.push(`(d) ${where}: ${key} went back from rv ${perKey.get(key)} to ${v}`);
        perKey.set(key, v);
      }
      rv = Math.max(rv, v);
    }
  }
  return out;
}

/**
 * How long an informer may stay silent in (f) while a change it has not seen is stored: the
 * re-watch back-off, a 5 s delay or catch-up after a lagging list, and slack.
 */
export const LIVENESS_MS = 15_000;

const STREAM_ENDS = new Set(['disconnect', 'gone', 'close', 'error']);

/**
 * (f) from the trace, per native informer (one that lists; hosted programs' HTTP clients keep
 * their own, and one that never watches again is their finding): while a change of its kind is
 * stored that it has not seen, it must show signs of life within {@link LIVENESS_MS} (from the
 * end of a lag that holds its stream back) — a watch event, delivered or not (a fault may drop it
 * or cut the stream again), or a (re)list — or stop (a crash). Faults may keep it behind; nothing
 * may leave it deaf (a stream that ended during a re-watch's replay froze a cache for 28 s).
 */
export function livenessViolations(trace: readonly TraceEntry[]): string[] {
  const out: string[] = [];
  interface Inf { running: boolean; seen: number; lagUntil: number; endedAt: { t: number; how: string } | undefined; owed: { due: number; what: string } | undefined }
  const informers = new Map<string, Inf>();
  const byKind = new Map<string, string[]>();
  const latest = new Map<string, { rv: number; key: string; t: number }>();
  const settle = trace.find((e) => e.type === 'run:phase' && e['phase'] === 'settle')?.t ?? Number.POSITIVE_INFINITY;
  const idOf = (e: TraceEntry): string => `${String(e['controller'])}/${String(e['replica'])}/${String(e['kind'])}`;
  const heard = (inf: Inf, rv: number): void => {
    inf.seen = Math.max(inf.seen, rv);
    inf.endedAt = undefined;
    inf.owed = undefined;
  };
  const owe = (inf: Inf, kind: string, t: number): void => {
    const w = latest.get(kind);
    if (inf.owed || !w || w.rv <= inf.seen) return;
    inf.owed = { due: Math.max(t, inf.lagUntil) + LIVENESS_MS, what: `the change of ${kind} ${w.key} stored at t=${w.t} (rv ${w.rv})` };
  };
  for (const e of trace) {
    if (e.t >= settle) break;
    if ((e.type === 'informer:list' || e.type === 'informer:relist') && e['via'] !== 'http') {
      const id = idOf(e);
      let inf = informers.get(id);
      if (!inf) {
        inf = { running: true, seen: 0, lagUntil: 0, endedAt: undefined, owed: undefined };
        informers.set(id, inf);
        byKind.set(String(e['kind']), [...(byKind.get(String(e['kind'])) ?? []), id]);
      }
      inf.running = true;
      heard(inf, Number(e['rv']));
      owe(inf, String(e['kind']), e.t);
    } else if (e.type === 'watch:event' && e['via'] !== 'http') {
      const inf = informers.get(idOf(e));
      if (!inf) continue;
      if (e['decision'] === 'lag') inf.lagUntil = Math.max(inf.lagUntil, Number(e['untilMs']));
      if (STREAM_ENDS.has(String(e['decision']))) {
        // the event that ended the stream was not delivered: the next stream re-sends it
        inf.owed = undefined;
        inf.endedAt = { t: e.t, how: String(e['decision']) };
      } else heard(inf, Number(e['rv']));
      // still behind: the next sign of life is due from now
      owe(inf, String(e['kind']), e.t);
    } else if (e.type === 'controller:crash' || e.type === 'controller:stop') {
      // its informers stopped; the restarted instance lists again
      for (const [id, inf] of informers) {
        if (!id.startsWith(`${String(e['controller'])}/${String(e['replica'])}/`)) continue;
        inf.running = false;
        inf.endedAt = undefined;
        inf.owed = undefined;
      }
    } else if (e.type === 'store:write' && typeof e['rv'] === 'number' && e['noop'] !== true && e['error'] === undefined) {
      const kind = String(e['kind']);
      latest.set(kind, { rv: e['rv'], key: String(e['key']), t: e.t });
      for (const id of byKind.get(kind) ?? []) {
        const inf = informers.get(id)!;
        if (inf.running) owe(inf, kind, e.t);
      }
    }
  }
  for (const [id, inf] of informers) {
    if (!inf.owed || inf.owed.due >= settle) continue;
    const since = inf.endedAt ? `its watch stream ended at t=${inf.endedAt.t} (${inf.endedAt.how}) and it never watched or listed again` : 'nothing reached it on its watch stream and it never listed again';
    out.push(`(f) informer ${id} went deaf: ${since} by the settle phase at t=${settle}, though ${inf.owed.what} had not reached it`);
  }
  return out;
}

/** (e) from the trace and the run's record. */
export function notificationViolations(run: Pick<RunRecord, 'trace' | 'controllers' | 'primaryKinds' | 'resyncFilteredBy'>): string[] {
  const filtering = new Map((run.resyncFilteredBy ?? []).map((c) => [c, run.primaryKinds[run.controllers.indexOf(c)]]));
  const out: string[] = [];
  if (filtering.size === 0) return out;
  for (const e of run.trace) {
    if (e.type !== 'informer:notify' || e['decision'] !== 'drop' || e['event'] === 'DELETED') continue;
    const c = String(e['controller']);
    if (filtering.has(c) && filtering.get(c) === e['kind']) out.push(`(e) the ${String(e['event'])} notification of ${String(e['kind'])} ${String(e['key'])} to ${c} was lost at t=${e.t}, and ${c}'s GenerationChanged predicate filters the resyncs that would repair it`);
  }
  return out;
}

/**
 * The realism law as a property: judges (a), (b), (c), (e), (f) and (g) on every run a check makes (so a
 * violation is shrunk to a minimal scenario like any failure).
 */
export const realism = defineProperty<{ extra: string[] }>({
  name: 'realism',
  description: 'the faults produced only histories a real control plane can produce',
  defaults: { extra: [] },
  probes: () => [validityProbe()],
  judge(run: RunRecord) {
    const violations = [...watchViolations(run.trace), ...notificationViolations(run), ...manifestViolations(run.writes), ...livenessViolations(run.trace), ...(run.probes['realism:valid'] ?? []).filter((s) => !s.ok).map((s) => `${s.detail ?? ''} (t=${s.t})`)];
    if (violations.length === 0) return { ok: true };
    return { ok: false, summary: violations[0]!, explanation: `Let: this run's faults. Then: ${violations.slice(0, 5).join('; ')}.`, evidence: { violations: violations.slice(0, 20) } };
  },
});
