import { defineProperty, nothingToJudge, type LearnedMasks, type RunRecord, type Verdict } from '../src/harness/property.js';
import { copiesAtOnce } from './_internals/copies-at-once.js';
import { uidAliases } from './_internals/normalize.js';
import { transientContents } from './_internals/replacements.js';
import { firedKinds, WORLD_CHANGING_FAULTS } from './_internals/skip.js';
import { explanation, fmtList, fmtRequest, fmtTime, letFacts } from '../src/report/explain.js';
import { alike, ownerFieldOf, ownerGroups, ownerMatches, readDownstream, settledDownstream, userTimes, type OwnerGroup } from './_internals/downstream-state.js';
import { staleReplay, staleReplayAdvice } from './_internals/replayed.js';
import { timelineOf, type TimelineRequest } from './_internals/timeline.js';
import { groupBy } from './_internals/windows.js';

/** Options of {@link noDuplicateSideEffects}. @public */
export interface NoDuplicateSideEffectsOptions {
  /**
   * Field of an external resource naming its owner (dotted). Without it, resources are grouped by
   * an idempotency-key field, else by any field whose value names a primary object (its uid,
   * `namespace/name`, `Kind/namespace/name` or name), else by a field called `owner`; when none of
   * these exists the verdict says the property could not judge.
   * @defaultValue found as described
   */
  ownerField?: string;
  /** Alike external resources (copies of one) allowed per owner and collection. @defaultValue 1 */
  maxPerOwner: number;
  /**
   * Also judge the copies alive at once during the run (from the fake services' history), not
   * only at its end: a duplicate made and cleaned up again (a second DNS record served until the
   * next sync deleted it, a second charge refunded) leaves a clean end. More copies at once than
   * `maxPerOwner` and than any fault-free run held (its twin and benign variations: a renewal that
   * issues the new certificate before revoking the old holds two by design) fail. Not judged in
   * runs where a world-changing fault fired (drift, recreation). @defaultValue true
   */
  transient: boolean;
}

/**
 * No duplicate side effects (SPEC §1, §5): the fake downstream services hold at most one
 * external resource per owner of each content (alike: the same body apart from its id, owner,
 * idempotency keys and times; an owner's resources that differ in content, such as a target per
 * Pod or a record per host name, are distinct resources, not copies), and (for downstreams without fake services) no reconcile key
 * creates twice without deleting in between. The owner of a resource is the configured
 * `ownerField`, else an idempotency key, else any field that names a primary object (`ownerUid`,
 * `order`, `metadata.source`…); when no resource names its owner the verdict says the property
 * could not judge. Catches non-idempotent external APIs retried blindly after a lost response,
 * and replicas without leader election creating twice, also when the copy is cleaned up before
 * the end: the copies alive at once during the run (the services' history) may not exceed what
 * the fault-free runs held (see {@link NoDuplicateSideEffectsOptions.transient}).
 * @example properties.noDuplicateSideEffects({ ownerField: 'metadata.owner' })
 * @public
 */
export const noDuplicateSideEffects = defineProperty<NoDuplicateSideEffectsOptions>({
  name: 'no-duplicate-side-effects',
  description: 'the fake downstream holds at most one external resource per owner and content (owner found by field, idempotency key or primary uid/name); no duplicate creates',
  defaults: { maxPerOwner: 1, transient: true },
  needsTwin: true,
  learn: (benign, o) => {
    if (!o.transient) return {};
    // where fault-free runs disagree on how many copies were alive at once, the most any held is allowed
    const peaks = benign.twin.map((r) => copiesAtOnce(r, o.ownerField));
    const out: string[] = [];
    for (const k of [...new Set(peaks.flatMap((m) => [...m.keys()]))].sort()) {
      const ns = peaks.map((m) => m.get(k)?.n ?? 1);
      if (new Set(ns).size > 1) out.push(`${k}: up to ${ns.reduce((m, n) => Math.max(m, n), 1)} at once`);
    }
    return { copiesAtOnce: out };
  },
  validate: (o) => (o.ownerField !== undefined && (typeof o.ownerField !== 'string' || o.ownerField === '') ? 'ownerField must be a dotted field path such as "owner"' : !(o.maxPerOwner >= 1) ? `maxPerOwner must be ≥ 1, got ${String(o.maxPerOwner)}` : undefined),
  judge: (run, o, twin, _extras, learned): Verdict => {
    const tl = timelineOf(run);
    // without what a reconcile the end of the run cut short had created (a renewal between issuing the new one and revoking the old)
    const services = readDownstream(settledDownstream(run, tl.requests));
    const unjudged: string[] = [];
    for (const s of services) {
      const field = ownerFieldOf(run, s, o.ownerField);
      if (field === undefined) {
        if (s.resources.length > 0) unjudged.push(s.name);
        continue;
      }
      for (const g of ownerGroups([s], field)) {
        if (g.ids.length <= o.maxPerOwner) continue;
        const dup = alikeClass(g, field, userTimes(run));
        if (dup.ids.length > o.maxPerOwner) return fromState(run, o, field, dup, tl.requests);
      }
    }
    if (o.transient && twin && firedKinds(run, WORLD_CHANGING_FAULTS).length === 0) {
      const transient = transientCopies(run, o, twin, learned, tl.requests);
      if (transient) return transient;
    }
    if (unjudged.length > 0) return nothingToJudge(`could not judge: no resource of ${fmtList(unjudged, 3)} names its owner (no ownerField, idempotency key, or field holding a primary object's uid or namespace/name); set ownerField`);
    if (services.length > 0) return { ok: true };
    // no fake service to look at: judge the requests, per reconcile key and endpoint
    for (const [k, posts] of groupBy(
      tl.requests.filter((r) => r.method === 'POST' && r.reconcile && (r.applied === true || (r.status >= 200 && r.status < 300))),
      (r) => `${r.reconcile!.key}\u0000${r.endpoint}`,
    )) {
      const key = k.slice(0, k.indexOf('\u0000'));
      const deletes = tl.requests.filter((r) => r.method === 'DELETE' && r.reconcile?.key === key && r.t > posts[0]!.t);
      if (posts.length > o.maxPerOwner && deletes.length === 0) return fromRequests(run, key, posts, tl.requests);
    }
    // no fake service and no create sent downstream: no side effect to count
    return tl.requests.some((r) => r.method === 'POST' && r.reconcile) ? { ok: true } : nothingToJudge('the controllers created nothing downstream (no fake service holds their resources, and no reconcile sent a POST)');
  },
});

/**
 * The largest set of an owner's resources that are alike (see {@link alike}): the copies a
 * repeated create made. Resources of one owner that differ in content (a target per Pod, a
 * record per host name) are distinct resources the controller wants, not duplicates.
 */
function alikeClass(g: OwnerGroup, ownerField: string, keep: ReadonlySet<string>): OwnerGroup {
  // the service listed ids it could not show: nothing to compare, so count them all
  if (g.resources.length !== g.ids.length) return g;
  const classes = new Map<string, number[]>();
  g.resources.forEach((r, i) => {
    const k = alike(r.body, ownerField, keep);
    const c = classes.get(k);
    if (c) c.push(i);
    else classes.set(k, [i]);
  });
  let best: number[] = [];
  for (const c of classes.values()) if (c.length > best.length) best = c;
  return { ...g, ids: best.map((i) => g.resources[i]!.id), resources: best.map((i) => g.resources[i]!) };
}

/**
 * The mechanism, from the evidence: a lost response retried, replicas that each created, creates
 * made although the controller had looked the resource up, or creates without a look-up.
 */
function mechanism(run: RunRecord, posts: readonly TimelineRequest[], requests: readonly TimelineRequest[]): string {
  const lost = posts.find((r) => r.applied === true && r.status === 0);
  const actors = new Set(posts.map((r) => r.actor));
  const replay = staleReplay(run, posts, requests);
  if (replay) return staleReplayAdvice(replay);
  if (lost) return `the POST at ${fmtTime(lost.t)} was applied but its response was lost (${lost.outcome}), and the retry created again: send an idempotency key, or look the resource up by owner before creating`;
  if (actors.size > 1) {
    const elected = run.trace.some((e) => e.type === 'controller:leader');
    return `${fmtList([...actors], 3)} each created one${elected ? ' although leader election ran: a replica acted while it did not hold the Lease (check leadership before each create, and make the create idempotent)' : ', and the controller runs without leader election: run one active replica (leader election) or make the create idempotent'}`;
  }
  const first = posts[0];
  const lookedUp = first !== undefined && requests.some((r) => r.method === 'GET' && r.t <= first.t && r.actor === first.actor && r.url.split('?')[0]!.startsWith(first.url.split('?')[0]!));
  if (lookedUp) return 'the controller looked the resource up before creating, and created again anyway: the look-up missed what it had created (a stale read, a filter that does not match what it wrote, a key that changed): look it up by a field the create sets, or send an idempotency key derived from the owner';
  return 'the create was repeated without checking whether the resource already exists: look it up by owner first, or send an idempotency key';
}

function fromState(run: RunRecord, o: NoDuplicateSideEffectsOptions, ownerField: string, g: OwnerGroup, requests: readonly TimelineRequest[]): Verdict {
  const where = `${g.service}${g.collection ? `/${g.collection}` : ''}`;
  // the owner's own reconciles' creates when they can be told apart, else every create in that collection
  const mine = requests.filter((r) => r.method === 'POST' && r.reconcile !== undefined && ownerMatches(g.owner, { kind: '', key: r.reconcile.key }));
  const posts = mine.length > 0 ? mine : requests.filter((r) => r.method === 'POST' && r.url.includes(`/${g.collection}`));
  const then = [
    `at ${fmtTime(run.timing.end)} ${where} held ${g.ids.length} resources with ${ownerField} ${g.owner} (ids ${g.ids.join(', ')}), at most ${o.maxPerOwner} expected`,
  ];
  if (posts.length) then.push(`the creates: ${posts.slice(0, 4).map(fmtRequest).join('; ')}`);
  then.push(mechanism(run, posts, requests));
  return {
    ok: false,
    summary: `duplicate side effect: ${g.ids.length} resources in ${where} for ${ownerField} ${g.owner}`,
    explanation: explanation(letFacts(run.trace), then),
    evidence: { service: g.service, collection: g.collection, owner: g.owner, ids: g.ids, creates: posts.slice(0, 10).map((r) => ({ t: r.t, actor: r.actor, url: r.url, status: r.status, outcome: r.outcome, applied: r.applied ?? null })) },
  };
}

/** Copies alive at once beyond what any fault-free run held, or undefined. */
function transientCopies(run: RunRecord, o: NoDuplicateSideEffectsOptions, twin: RunRecord, learned: LearnedMasks | undefined, requests: readonly TimelineRequest[]): Verdict | undefined {
  const transient = transientContents(twin, uidAliases(twin.writes));
  const theirs = copiesAtOnce(twin, o.ownerField, transient);
  const benign = new Map<string, number>();
  for (const e of learned?.['copiesAtOnce'] ?? []) {
    const m = /^(.*): up to (\d+) at once$/.exec(e);
    if (m) benign.set(m[1]!, Number(m[2]));
  }
  for (const [k, p] of copiesAtOnce(run, o.ownerField, transient)) {
    const allowed = Math.max(o.maxPerOwner, theirs.get(k)?.n ?? 1, benign.get(k) ?? 1);
    if (p.n <= allowed) continue;
    const where = `${p.service}${p.collection ? `/${p.collection}` : ''}`;
    const mine = requests.filter((r) => r.method === 'POST' && r.reconcile !== undefined && ownerMatches(p.owner, { kind: '', key: r.reconcile.key }));
    const posts = mine.length > 0 ? mine : requests.filter((r) => r.method === 'POST' && r.url.includes(`/${p.collection}`));
    const then = [`${where} held ${p.n} alike resources for owner ${p.ownerName} at once (ids ${p.ids.join(', ')}), where no fault-free run held more than ${allowed}; the end state is clean because the copies were deleted again later, but until then the duplicate was live (a second record served, a second charge made)`];
    if (posts.length) then.push(`the creates: ${posts.slice(0, 4).map(fmtRequest).join('; ')}`);
    then.push(mechanism(run, posts, requests));
    return {
      ok: false,
      summary: `duplicate side effect: ${p.n} alike resources in ${where} for ${p.ownerName} alive at once (cleaned up later)`,
      explanation: explanation(letFacts(run.trace), then),
      evidence: { service: p.service, collection: p.collection, owner: p.owner, ids: p.ids, atOnce: p.n, allowed, creates: posts.slice(0, 10).map((r) => ({ t: r.t, actor: r.actor, url: r.url, status: r.status, outcome: r.outcome, applied: r.applied ?? null })) },
    };
  }
  return undefined;
}

function fromRequests(run: RunRecord, key: string, posts: readonly TimelineRequest[], requests: readonly TimelineRequest[]): Verdict {
  const then = [`reconciles of ${key} sent ${posts.length} creating POSTs to ${posts[0]!.endpoint} and never a DELETE: ${posts.slice(0, 4).map(fmtRequest).join('; ')}`, mechanism(run, posts, requests)];
  return {
    ok: false,
    summary: `duplicate creates: ${posts.length} POSTs to ${posts[0]!.endpoint} for ${key}`,
    explanation: explanation(letFacts(run.trace), then),
    evidence: { key, endpoint: posts[0]!.endpoint, creates: posts.slice(0, 10).map((r) => ({ t: r.t, actor: r.actor, url: r.url, status: r.status, outcome: r.outcome, applied: r.applied ?? null })) },
  };
}
