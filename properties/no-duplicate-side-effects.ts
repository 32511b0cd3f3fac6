import { defineProperty, type RunRecord, type Verdict } from '../src/harness/property.js';
import { explanation, fmtList, fmtRequest, fmtTime, letFacts } from '../src/report/explain.js';
import { ownerGroups, ownerMatches, readDownstream, type OwnerGroup } from './_internals/downstream-state.js';
import { timelineOf, type TimelineRequest } from './_internals/timeline.js';
import { groupBy } from './_internals/windows.js';

/** Options of {@link noDuplicateSideEffects}. @public */
export interface NoDuplicateSideEffectsOptions {
  /** Field of an external resource naming its owner (dotted). @defaultValue 'owner' */
  ownerField: string;
  /** External resources allowed per owner and collection. @defaultValue 1 */
  maxPerOwner: number;
}

/**
 * No duplicate side effects (SPEC §1, §5): the fake downstream services hold at most one
 * external resource per owner, and (for downstreams without fake services) no reconcile key
 * creates twice without deleting in between. Catches non-idempotent external APIs retried
 * blindly after a lost response, and replicas without leader election creating twice.
 * @example properties.noDuplicateSideEffects({ ownerField: 'metadata.owner' })
 * @public
 */
export const noDuplicateSideEffects = defineProperty<NoDuplicateSideEffectsOptions>({
  name: 'no-duplicate-side-effects',
  description: 'the fake downstream holds at most one external resource per owner; no duplicate creates',
  defaults: { ownerField: 'owner', maxPerOwner: 1 },
  validate: (o) => (typeof o.ownerField !== 'string' || o.ownerField === '' ? 'ownerField must be a dotted field path such as "owner"' : !(o.maxPerOwner >= 1) ? `maxPerOwner must be ≥ 1, got ${String(o.maxPerOwner)}` : undefined),
  judge: (run, o): Verdict => {
    const services = readDownstream(run.downstream);
    const tl = timelineOf(run);
    const dup = ownerGroups(services, o.ownerField).find((g) => g.ids.length > o.maxPerOwner);
    if (dup) return fromState(run, o, dup, tl.requests);
    if (services.length > 0) return { ok: true };
    // no fake service to look at: judge the requests, per reconcile key and endpoint
    for (const [k, posts] of groupBy(
      tl.requests.filter((r) => r.method === 'POST' && r.reconcile && (r.applied === true || (r.status >= 200 && r.status < 300))),
      (r) => `${r.reconcile!.key}\u0000${r.endpoint}`,
    )) {
      const key = k.slice(0, k.indexOf('\u0000'));
      const deletes = tl.requests.filter((r) => r.method === 'DELETE' && r.reconcile?.key === key && r.t > posts[0]!.t);
      if (posts.length > o.maxPerOwner && deletes.length === 0) return fromRequests(run, key, posts);
    }
    return { ok: true };
  },
});

function mechanism(posts: readonly TimelineRequest[]): string {
  const lost = posts.find((r) => r.applied === true && r.status === 0);
  const actors = new Set(posts.map((r) => r.actor));
  if (lost) return `the POST at ${fmtTime(lost.t)} was applied but its response was lost (${lost.outcome}), and the retry created again: send an idempotency key, or look the resource up by owner before creating`;
  if (actors.size > 1) return `${fmtList([...actors], 3)} each created one: run one active replica (leader election) or make the create idempotent`;
  return 'the create was repeated without checking whether the resource already exists: look it up by owner first, or send an idempotency key';
}

function fromState(run: RunRecord, o: NoDuplicateSideEffectsOptions, g: OwnerGroup, requests: readonly TimelineRequest[]): Verdict {
  const where = `${g.service}${g.collection ? `/${g.collection}` : ''}`;
  // the owner's own reconciles' creates when they can be told apart, else every create in that collection
  const mine = requests.filter((r) => r.method === 'POST' && r.reconcile !== undefined && ownerMatches(g.owner, { kind: '', key: r.reconcile.key }));
  const posts = mine.length > 0 ? mine : requests.filter((r) => r.method === 'POST' && r.url.includes(`/${g.collection}`));
  const then = [
    `at ${fmtTime(run.timing.end)} ${where} held ${g.ids.length} resources with ${o.ownerField} ${g.owner} (ids ${g.ids.join(', ')}), at most ${o.maxPerOwner} expected`,
  ];
  if (posts.length) then.push(`the creates: ${posts.slice(0, 4).map(fmtRequest).join('; ')}`);
  then.push(mechanism(posts));
  return {
    ok: false,
    summary: `duplicate side effect: ${g.ids.length} resources in ${where} for ${o.ownerField} ${g.owner}`,
    explanation: explanation(letFacts(run.trace), then),
    evidence: { service: g.service, collection: g.collection, owner: g.owner, ids: g.ids, creates: posts.slice(0, 10).map((r) => ({ t: r.t, actor: r.actor, url: r.url, status: r.status, outcome: r.outcome, applied: r.applied ?? null })) },
  };
}

function fromRequests(run: RunRecord, key: string, posts: readonly TimelineRequest[]): Verdict {
  const then = [`reconciles of ${key} sent ${posts.length} creating POSTs to ${posts[0]!.endpoint} and never a DELETE: ${posts.slice(0, 4).map(fmtRequest).join('; ')}`, mechanism(posts)];
  return {
    ok: false,
    summary: `duplicate creates: ${posts.length} POSTs to ${posts[0]!.endpoint} for ${key}`,
    explanation: explanation(letFacts(run.trace), then),
    evidence: { key, endpoint: posts[0]!.endpoint, creates: posts.slice(0, 10).map((r) => ({ t: r.t, actor: r.actor, url: r.url, status: r.status, outcome: r.outcome, applied: r.applied ?? null })) },
  };
}
