import { defineController, fakeRestService, type FakeRestService, type ReconcileContext, type ReconcileResult, type StoredObject, type WorldView } from '../../src/index.js';
import { safetyInvariants } from '../../properties/safety-invariants.js';
import { addFinalizer, removeFinalizer } from '../bug-zoo/shared/finalizers.js';
import { HttpError, jsonApi, type JsonApi, type Remote } from '../bug-zoo/shared/json-api.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { endStateProperties } from './_shared/masks.js';
import { withHandler } from './_shared/with-handler.js';
import { RESYNC_MS } from './_shared/resync.js';
import { writeStatus } from './_shared/status.js';

/**
 * A `RecordSet` publishes the DNS records its spec lists in a zone it shares with others, at a
 * provider whose API lists the zone's records in pages (Cloudflare, Route 53, Google Cloud DNS:
 * `GET /records` answers `{ records, next }`, two records a page here, and `?cursor=<next>` asks
 * for the page after; nothing filters by owner). Each record it creates is tagged with its owner id
 * (the RecordSet's uid), as external-dns tags its records, and it garbage-collects only records
 * carrying its own tag that its spec no longer lists, so it reads every page before it decides (a
 * page that fails fails the pass): a record of its own on a later page is neither made again nor
 * forgotten. The zone also holds records it never made, from the provider's console (untagged) and
 * from another cluster's controller (another owner id), older than its own, so they fill the first
 * page; it never deletes them. A record it wants that exists with another type or value is patched
 * in place; a second record of its own under one name (never, barring a bug) is trimmed. Creates
 * carry an idempotency key (owner and name), moved on when a replay answers with a record that is
 * gone or no longer its own, so a create whose answer was lost is not made twice. A finalizer
 * removes the set's records (every page again) before the RecordSet goes, and it re-reads the zone
 * every 30 s (someone may delete or edit a record in the console).
 */
export const RECORD_SET = 'RecordSet';
export const DNS_API = 'https://edge-dns.example/v1';
export const ZONE = 'example.com';
const FINALIZER = 'edge-dns.example/records';
/** Records a page (the provider's maximum, small so a zone spans several pages). */
const PAGE_SIZE = 2;

interface RecordSpec {
  name: string;
  type: string;
  value: string;
}
interface RecordSetSpec {
  records: RecordSpec[];
}
interface RecordSetStatus {
  records?: number;
  observedGeneration?: number;
}
/** A record of the zone (the API key is the zone's: records carry no zone of their own). */
interface ZoneRecord extends RecordSpec {
  /** The owner id of the controller that made it; absent on records made in the console. */
  owner?: string;
}
interface Page {
  records: Remote<ZoneRecord>[];
  next: string | null;
}

/** Records nobody in the cluster made, in the zone before the run (the first page): one from the console, one from another cluster's controller. */
const FOREIGN: ZoneRecord[] = [
  { name: 'mail', type: 'MX', value: '10 mx1.mail.example.net' },
  { name: 'vpn', type: 'A', value: '198.51.100.9', owner: 'cluster-east' },
];

/**
 * Every record of the zone, page after page.
 * @param firstPageOnly - the buggy twin: the first page taken for the zone
 */
async function listZone(ctx: ReconcileContext, firstPageOnly: boolean): Promise<Remote<ZoneRecord>[]> {
  const out: Remote<ZoneRecord>[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 1_000; pages++) {
    const url: string = `${DNS_API}/records${cursor !== null ? `?cursor=${encodeURIComponent(cursor)}` : ''}`;
    const res = await ctx.fetch(url);
    // a page that fails fails the whole listing (the queue retries with backoff): a partial zone is never taken for the zone
    if (!res.ok) throw new HttpError(res.status, `GET ${url}: HTTP ${res.status}`, undefined);
    const page = (await res.json()) as Page;
    out.push(...page.records);
    // BUG (first-page): the first page is the zone
    if (firstPageOnly || page.next === null) return out;
    cursor = page.next;
  }
  throw new Error(`zone ${ZONE}: more than 1,000 pages of records`);
}

/**
 * Creates `body` with an idempotency key, as createFresh does (a replay naming a record deleted
 * since moves on to a fresh key), and also moves on when the replayed record is no longer the one
 * asked for: renamed or re-tagged in the console since, it is not this set's record any more.
 * (Found by the hunt: with createFresh, a record of ours renamed by drift answered every replay,
 * so the set never published the name again and sent the replayed POST on every pass.)
 */
async function createOwn(api: JsonApi, body: ZoneRecord, key: string): Promise<Remote<ZoneRecord>> {
  for (let i = 0; i < 10; i++) {
    const made = await api.create<ZoneRecord>('records', body, { idempotencyKey: key });
    const now = await api.get<ZoneRecord>('records', made.id);
    if (now && now.owner === body.owner && now.name === body.name) return now;
    key = `${key}/after-${made.id}`;
  }
  throw new Error(`records: ten creates answered with records that are gone or no longer ours (idempotency key ${key})`);
}

function define(mistake: 'none' | 'first-page') {
  async function reconcile(ctx: ReconcileContext): Promise<ReconcileResult> {
    const rs: StoredObject<RecordSetSpec, RecordSetStatus> | undefined = await ctx.client.tryGet<RecordSetSpec, RecordSetStatus>(RECORD_SET, ctx.key, { live: true });
    if (!rs) return;
    const api: JsonApi = jsonApi(ctx.fetch, DNS_API);
    const owner = rs.metadata.uid;
    if (rs.metadata.deletionTimestamp !== undefined) {
      if (!rs.metadata.finalizers.includes(FINALIZER)) return;
      for (const r of await listZone(ctx, mistake === 'first-page')) if (r.owner === owner) await api.removeIfPresent('records', r.id);
      await removeFinalizer(ctx, rs, FINALIZER);
      return;
    }
    if (await addFinalizer(ctx, rs, FINALIZER)) return; // its update brings the set back
    const mine = (await listZone(ctx, mistake === 'first-page')).filter((r) => r.owner === owner);
    const want = new Map<string, RecordSpec>();
    for (const r of rs.spec.records) if (!want.has(r.name)) want.set(r.name, r);
    for (const [name, w] of want) {
      const held = mine.filter((r) => r.name === name).sort((a, b) => Number(a.id) - Number(b.id));
      const first = held[0];
      if (!first) {
        await createOwn(api, { name, type: w.type, value: w.value, owner }, `${owner}/${name}`);
        continue;
      }
      if (first.type !== w.type || first.value !== w.value) await api.patch<ZoneRecord>('records', first.id, { type: w.type, value: w.value });
      for (const extra of held.slice(1)) await api.removeIfPresent('records', extra.id);
    }
    // garbage: records of its own the spec no longer lists (never another owner's, never an untagged one)
    for (const r of mine) if (!want.has(r.name)) await api.removeIfPresent('records', r.id);
    await writeStatus(ctx, rs, { records: want.size, observedGeneration: rs.metadata.generation });
    return { requeueAfter: 30_000 };
  }
  return defineController({ name: 'record-gc', for: RECORD_SET, leaderElection: true, resyncPeriodMs: RESYNC_MS, reconcile });
}

export const recordGcController = define('none');

/**
 * The provider of one run: a fake REST store of records (`POST /records`, `GET|PATCH|DELETE
 * /records/<id>`, so duplicates, leaks and drift are seen) whose collection GET answers in pages:
 * `{ records, next }`, ordered by id, `next` the last id of a full page with more after it, and
 * `?cursor=<id>` the page after that id. The paging wraps the store's own handler (served on the
 * fake services' fast path, as an msw handler beside the store costs a web Request and Response per
 * page); everything else is the store's. The foreign records are the service's before the run.
 */
function provider(): { services: FakeRestService[]; timeoutMs: number } {
  // the foreign records are there before the run, as a person in the console or the other cluster's controller made them
  const dns = fakeRestService({ baseUrl: DNS_API, name: 'edge-dns', collections: ['records'], idempotencyKeyHeader: 'Idempotency-Key', latencyMs: 10, resources: { records: FOREIGN } });
  return { services: [paged(dns)], timeoutMs: 5_000 };
}

/** `store` with its collection GET answering in pages of {@link PAGE_SIZE}. */
function paged(store: FakeRestService): FakeRestService {
  return withHandler(store, (route, method, bodyText, key) => {
    if (route.id !== undefined || method !== 'GET') return store.handle(route, method, bodyText, key);
    const cursor = new URLSearchParams(route.query).get('cursor');
    const after = cursor === null ? 0 : Number(cursor);
    if (!Number.isInteger(after) || after < 0) return { status: 400, text: JSON.stringify({ message: `bad cursor ${cursor}` }), headers: [['content-type', 'application/json']] };
    const rest = store
      .resources(route.collection)
      .filter((r) => Number(r.id) > after)
      .sort((a, b) => Number(a.id) - Number(b.id));
    const records = rest.slice(0, PAGE_SIZE);
    const page: { records: typeof records; next: string | null } = { records, next: rest.length > PAGE_SIZE ? records[records.length - 1]!.id : null };
    return { status: 200, text: JSON.stringify(page), headers: [['content-type', 'application/json']] };
  });
}

/** The ids the foreign records got (the provider's first ids: they are made first). */
const FOREIGN_IDS = new Set(FOREIGN.map((_, i) => String(i + 1)));

/** No controller ever sent a DELETE for a record it did not make (drift, a person, may delete one: no request of a controller). */
export function neverDeletesForeign(view: WorldView): true | string {
  for (const r of view.requests()) {
    if (r.method !== 'DELETE' || !r.actor.startsWith('controller:')) continue;
    const id = /\/records\/([^/?]+)$/.exec(r.url)?.[1];
    if (id !== undefined && FOREIGN_IDS.has(decodeURIComponent(id))) return `${r.actor} sent DELETE ${r.url} at ${r.t} ms: record ${id} is not its own`;
  }
  return true;
}

const a = (name: string, value: string) => ({ name, type: 'A', value });

export const recordGc: FalsePositiveCase = {
  name: 'record-gc',
  description: 'a RecordSet publishes its DNS records in a zone shared with records made in the console and by another cluster, at an API that lists the zone in pages of two: records tagged with its owner id, every page read before it garbage-collects its own records the spec dropped, never another\'s',
  controllers: [recordGcController],
  options: {
    objects: {
      kind: RECORD_SET,
      name: 'site',
      spec: [
        { records: [a('www', '203.0.113.10'), a('api', '203.0.113.11'), { name: 'cdn', type: 'CNAME', value: 'edge.example.net' }] },
        { records: [a('www', '203.0.113.10')] },
        { records: [a('www', '203.0.113.20'), { name: 'docs', type: 'CNAME', value: 'pages.example.net' }] },
      ],
    },
    downstream: provider,
  },
  properties: [...endStateProperties(), safetyInvariants({ invariants: { 'never deletes a record it did not make': neverDeletesForeign } })],
  buggy: {
    controllers: [define('first-page')],
    caughtBy: ['idempotence', 'deletion-completes', 'convergence', 'same-end-state', 'recovery'],
    why: 'it takes the first page of the zone for the whole zone: its own records sit on later pages (the zone\'s older records fill the first), so it never sees them, publishes them again on every pass (its idempotency key replays them), never removes the ones its spec dropped, and a deleted RecordSet leaves its records behind',
  },
};
