import { defineController, fakeRestService, type ReconcileContext, type ReconcileResult } from '../../src/index.js';
import { addFinalizer, removeFinalizer } from '../bug-zoo/shared/finalizers.js';
import { jsonApi } from '../bug-zoo/shared/json-api.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { endStateProperties } from './_shared/masks.js';
import { RESYNC_MS } from './_shared/resync.js';
import { writeStatus } from './_shared/status.js';

/**
 * A `MailingList` keeps a list at an external mailing service in sync with its members: a set
 * reconciliation (add who is missing, remove who is extra, one of each duplicate email). The list
 * is found by owner tag and created with an idempotency key; a member add whose response was lost
 * and was retried shows up twice, and the next pass removes the copy. A finalizer deletes members
 * and list before the MailingList goes.
 */
export const MAILING_LIST = 'MailingList';
export const LISTS_API = 'https://lists.example/v1';
const FINALIZER = 'lists.example/list';

interface MailingListSpec {
  address: string;
  members: string[];
}
interface MailingListStatus {
  listId?: string;
  members?: number;
  observedGeneration?: number;
}
interface List {
  owner: string;
  address: string;
}
interface Member {
  list: string;
  email: string;
}

async function reconcile(ctx: ReconcileContext): Promise<ReconcileResult> {
  const ml = await ctx.client.tryGet<MailingListSpec, MailingListStatus>(MAILING_LIST, ctx.key, { live: true });
  if (!ml) return;
  const api = jsonApi(ctx.fetch, LISTS_API);
  const lists = await api.list<List>('lists', { owner: ml.metadata.uid });
  if (ml.metadata.deletionTimestamp !== undefined) {
    if (!ml.metadata.finalizers.includes(FINALIZER)) return;
    for (const l of lists) {
      for (const m of await api.list<Member>('members', { list: l.id })) await api.removeIfPresent('members', m.id);
      await api.removeIfPresent('lists', l.id);
    }
    await removeFinalizer(ctx, ml, FINALIZER);
    return;
  }
  if (await addFinalizer(ctx, ml, FINALIZER)) return;
  for (const extra of lists.slice(1)) {
    for (const m of await api.list<Member>('members', { list: extra.id })) await api.removeIfPresent('members', m.id);
    await api.removeIfPresent('lists', extra.id);
  }
  let list = lists[0];
  if (!list) list = await api.create<List>('lists', { owner: ml.metadata.uid, address: ml.spec.address }, { idempotencyKey: `${ml.metadata.uid}/list/after-${ml.status.listId ?? 'none'}` });
  else if (list.address !== ml.spec.address) list = await api.patch<List>('lists', list.id, { address: ml.spec.address });
  const want = new Set(ml.spec.members);
  const seen = new Set<string>();
  for (const m of await api.list<Member>('members', { list: list.id })) {
    if (!want.has(m.email) || seen.has(m.email)) await api.removeIfPresent('members', m.id);
    else seen.add(m.email);
  }
  for (const email of [...want].sort()) if (!seen.has(email)) await api.create<Member>('members', { list: list.id, email });
  await writeStatus(ctx, ml, { listId: list.id, members: want.size, observedGeneration: ml.metadata.generation });
  return { requeueAfter: 20_000 };
}

export const mailingListController = defineController({ name: 'mailing-list', for: MAILING_LIST, leaderElection: true, resyncPeriodMs: RESYNC_MS, reconcile });

export const mailingList: FalsePositiveCase = {
  name: 'mailing-list',
  description: 'a MailingList reconciles the member set of an external mailing list (add missing, remove extra and duplicates)',
  controllers: [mailingListController],
  options: {
    objects: { kind: MAILING_LIST, name: 'dev', spec: [{ address: 'dev@example.com', members: ['ana@example.com', 'bo@example.com'] }, { address: 'dev@example.com', members: ['bo@example.com', 'cy@example.com'] }, { address: 'eng@example.com', members: [] }] },
    downstream: () => ({ services: [fakeRestService({ baseUrl: LISTS_API, idempotencyKeyHeader: 'Idempotency-Key', latencyMs: 20 })], timeoutMs: 5_000 }),
  },
  properties: endStateProperties('status.listId'),
};
