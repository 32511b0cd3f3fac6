import type { RunRecord } from '../../src/harness/property.js';
import { alike, readDownstream } from './downstream-state.js';
import { aliasUids } from './normalize.js';
import { timelineOf, type TimelineRequest } from './timeline.js';

/** One external resource destroyed and then made again alike (see {@link replacements}). */
export interface Replacement {
  /** `service/collection`. */
  where: string;
  deleted: string;
  recreated: string;
  /** The DELETE and the POST that did it, when the trace has them. */
  deleteRequest: TimelineRequest | undefined;
  createRequest: TimelineRequest | undefined;
}

/**
 * External resources destroyed and made again, per resource: a DELETE of the only live resource
 * of a fake service that has its content (its body as created, apart from id, idempotency keys
 * and times; uids named by the creation order of their objects), followed in the same reconcile
 * by a create of one alike: the reconcile judged a resource wrong and replaced it with one just
 * like it. A bucket deleted and created again converges to the same end state, but what it held
 * is gone. Deleting one of two alike copies (a duplicate cleaned up) is not one, nor is a
 * resource replaced by a different one (a new location), nor a removal by drift, nor a task's
 * record removed when it was done and published again by a later pass that redoes the task (its
 * status write failed).
 */
export function replacements(run: RunRecord, aliases: ReadonlyMap<string, string>): Map<string, Replacement[]> {
  const out = new Map<string, Replacement[]>();
  const services = readDownstream(run.downstream);
  if (services.every((s) => s.history.length === 0)) return out;
  const requests = timelineOf(run).requests;
  const succeeded = (r: TimelineRequest) => r.applied === true || (r.status >= 200 && r.status < 300);
  for (const s of services) {
    const live = new Map<string, string>(); // `collection id` → content
    const destroyed = new Map<string, { id: string; collection: string }>(); // content → the last one deleted while none alike was left
    for (const c of s.history) {
      const at = `${c.collection}\u0000${c.id}`;
      if (c.op === 'create') {
        const content = `${s.name}/${c.collection} ${aliasUids(alike(c.body, ''), aliases)}`;
        live.set(at, content);
        const gone = destroyed.get(content);
        if (gone === undefined) continue;
        destroyed.delete(content);
        const url = (id: string) => `${s.baseUrl}/${encodeURIComponent(c.collection)}/${encodeURIComponent(id)}`;
        const deleteRequest = requests.find((r) => r.method === 'DELETE' && r.url.split('?')[0] === url(gone.id) && succeeded(r));
        const createRequest = requests.find((r) => r.method === 'POST' && succeeded(r) && r.headers?.['location'] === url(c.id));
        // one decision: the reconcile that deleted it made it again (a pass that finishes a task by removing its record, and a later pass that redoes the task, are two)
        const d = deleteRequest?.reconcile;
        const m = createRequest?.reconcile;
        if (d === undefined || m === undefined || d.actor !== m.actor || d.startIndex !== m.startIndex) continue;
        const list = out.get(content) ?? [];
        list.push({ where: `${s.name}/${c.collection}`, deleted: gone.id, recreated: c.id, deleteRequest, createRequest });
        out.set(content, list);
        continue;
      }
      const content = live.get(at);
      live.delete(at);
      if (content === undefined || c.op === 'remove') continue;
      let alikeLeft = false;
      for (const v of live.values()) if (v === content) alikeLeft = true;
      if (!alikeLeft) destroyed.set(content, { id: c.id, collection: c.collection });
    }
  }
  return out;
}
