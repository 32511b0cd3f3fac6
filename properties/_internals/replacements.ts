import type { RunRecord } from '../../src/harness/property.js';
import { alike, readDownstream, userTimes } from './downstream-state.js';
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

/** One external resource's life: its content, and the reconciles that created and deleted it. */
interface Life {
  service: string;
  baseUrl: string;
  collection: string;
  id: string;
  content: string;
  created: TimelineRequest | undefined;
  /** undefined while it lives (or when removed out of band: `removed`). */
  deleted: TimelineRequest | undefined;
  removed: boolean;
}

const sameReconcile = (a: TimelineRequest | undefined, b: TimelineRequest | undefined): boolean => {
  const x = a?.reconcile;
  const y = b?.reconcile;
  return x !== undefined && y !== undefined && x.actor === y.actor && x.startIndex === y.startIndex;
};

/** The controller a reconcile's request came from (replicas of one controller are one). */
const controllerOf = (r: TimelineRequest | undefined): string | undefined => r?.reconcile?.actor.replace(/\/\d+$/, '');

/** One controller's reconcile deleted the resource and another controller's made it again: two controllers disagreeing about it, settled by destroying it. */
const otherControllers = (deleted: TimelineRequest | undefined, created: TimelineRequest | undefined): boolean => {
  const [d, c] = [controllerOf(deleted), controllerOf(created)];
  return d !== undefined && c !== undefined && d !== c;
};

/**
 * Every external resource of the run's fake services, with its content (its body as created,
 * apart from id, idempotency keys and times, uids named by their objects; prefixed by
 * `service/collection`) and the requests that created and deleted it, walking the history in order.
 */
function lives(run: RunRecord, aliases: ReadonlyMap<string, string>, visit: (life: Life, op: 'create' | 'delete' | 'remove', alive: ReadonlyMap<string, Life>) => void): void {
  const services = readDownstream(run.downstream);
  if (services.every((s) => s.history.length === 0)) return;
  const keep = userTimes(run);
  const requests = timelineOf(run).requests;
  const succeeded = (r: TimelineRequest) => r.applied === true || (r.status >= 200 && r.status < 300);
  for (const s of services) {
    const alive = new Map<string, Life>(); // `collection id` → life
    const url = (collection: string, id: string) => `${s.baseUrl}/${encodeURIComponent(collection)}/${encodeURIComponent(id)}`;
    for (const c of s.history) {
      const at = `${c.collection}\u0000${c.id}`;
      if (c.op === 'create') {
        const u = url(c.collection, c.id);
        const life: Life = { service: s.name, baseUrl: s.baseUrl, collection: c.collection, id: c.id, content: `${s.name}/${c.collection} ${aliasUids(alike(c.body, '', keep), aliases)}`, created: requests.find((r) => r.method === 'POST' && succeeded(r) && r.headers?.['location'] === u), deleted: undefined, removed: false };
        alive.set(at, life);
        visit(life, 'create', alive);
        continue;
      }
      const life = alive.get(at);
      if (life === undefined) continue;
      alive.delete(at);
      if (c.op === 'remove') life.removed = true;
      else {
        const u = url(c.collection, c.id);
        life.deleted = requests.find((r) => r.method === 'DELETE' && r.url.split('?')[0] === u && succeeded(r) && r.index > (life.created?.index ?? -1));
      }
      visit(life, c.op, alive);
    }
  }
}

/**
 * Contents of transient resources: every resource of that content the run made was deleted by
 * the reconcile that created it (a lock row taken and released around a task, a scratch upload).
 * Read from the fault-free run: one made again after a crash left it behind destroys nothing.
 */
export function transientContents(run: RunRecord, aliases: ReadonlyMap<string, string>): Set<string> {
  const durable = new Set<string>();
  const seen = new Set<string>();
  const all: Life[] = [];
  lives(run, aliases, (life, op) => {
    if (op === 'create') all.push(life);
  });
  for (const l of all) {
    seen.add(l.content);
    if (l.removed || l.deleted === undefined || !sameReconcile(l.created, l.deleted)) durable.add(l.content);
  }
  return new Set([...seen].filter((c) => !durable.has(c)));
}

/**
 * External resources destroyed and made again, per content: a DELETE of the only live resource
 * of a fake service that has its content, followed in the same reconcile by a create of one
 * alike: the reconcile judged a resource wrong and replaced it with one just like it; or
 * followed by a create of one alike by another controller than the one that deleted it. A bucket
 * deleted and created again converges to the same end state, but what it held is gone. Not one:
 * deleting one of two alike copies (a duplicate cleaned up), a resource replaced by a different
 * one (a new location), a removal by drift, a resource the deleting reconcile had made itself (a
 * lock taken and released per task, then taken again for the next), and a task's record removed
 * when it was done and published again by a later pass that redoes the task (its status write
 * failed).
 */
export function replacements(run: RunRecord, aliases: ReadonlyMap<string, string>): Map<string, Replacement[]> {
  const out = new Map<string, Replacement[]>();
  const destroyed = new Map<string, Life>(); // content → the last one deleted while none alike was left
  lives(run, aliases, (life, op, alive) => {
    if (op === 'remove') return;
    if (op === 'delete') {
      for (const other of alive.values()) if (other.content === life.content) return;
      destroyed.set(life.content, life);
      return;
    }
    const gone = destroyed.get(life.content);
    if (gone === undefined) return;
    destroyed.delete(life.content);
    // one decision: the reconcile that deleted it made it again, and it had not made the one it deleted;
    // or two: a controller deleted what another keeps, and that one made it again (a sweeper that
    // took a live owner's bucket for an orphan on a stale cache, and the provisioner; corpus
    // orphan-sweeper's twin, which no built-in property caught before, stop 40)
    if ((!sameReconcile(gone.deleted, life.created) && !otherControllers(gone.deleted, life.created)) || sameReconcile(gone.created, gone.deleted)) return;
    const list = out.get(life.content) ?? [];
    list.push({ where: `${life.service}/${life.collection}`, deleted: gone.id, recreated: life.id, deleteRequest: gone.deleted, createRequest: life.created });
    out.set(life.content, list);
  });
  return out;
}
