import { defineController, isStoreError, type ReconcileContext, type StoredObject } from '../../src/index.js';
import { sameJson } from '../bug-zoo/shared/same-json.js';
import { addFinalizer, removeFinalizer } from '../bug-zoo/shared/finalizers.js';
import { deleteIfPresent } from './_shared/apply.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { endStateProperties } from './_shared/masks.js';
import { RESYNC_MS } from './_shared/resync.js';
import { writeStatus } from './_shared/status.js';

/**
 * A `SecretMirror` copies its credentials into every Namespace (registry pull secrets, a CA
 * bundle: kubernetes-replicator / reflector style). The copies live in other namespaces, so they
 * cannot carry an ownerReference (owners must share the namespace): they are found by label,
 * repaired when someone edits or deletes one, removed from namespaces that are gone, and cleaned
 * up behind a finalizer when the mirror is deleted. Namespace events re-sync every mirror (the
 * map lists them from the cache); copy events go to the mirror their label names.
 */
export const SECRET_MIRROR = 'SecretMirror';
const SOURCE = 'mirror.example.com/source';
const FINALIZER = 'mirror.example.com/copies';

interface MirrorSpec {
  type: string;
  data: Record<string, string>;
}
interface MirrorStatus {
  copies?: number;
  observedGeneration?: number;
}

const sourceOf = (m: StoredObject<unknown, unknown>): string => `${m.metadata.namespace}.${m.metadata.name}`;
const b64 = (m: Record<string, string>): Record<string, string> => Object.fromEntries(Object.entries(m).map(([k, v]) => [k, Buffer.from(v, 'utf8').toString('base64')]));

async function reconcile(ctx: ReconcileContext): Promise<void> {
  const m = await ctx.client.tryGet<MirrorSpec, MirrorStatus>(SECRET_MIRROR, ctx.key, { live: true });
  if (!m) return;
  const copies = await ctx.client.list('Secret', { labelSelector: `${SOURCE}=${sourceOf(m)}` });
  if (m.metadata.deletionTimestamp !== undefined) {
    if (!m.metadata.finalizers.includes(FINALIZER)) return;
    // live list: a copy the cache has not seen yet would outlive the mirror
    for (const c of await ctx.client.list('Secret', { labelSelector: `${SOURCE}=${sourceOf(m)}`, live: true })) await deleteIfPresent(ctx, 'Secret', { namespace: c.metadata.namespace, name: c.metadata.name });
    await removeFinalizer(ctx, m, FINALIZER);
    return;
  }
  if (await addFinalizer(ctx, m, FINALIZER)) return;
  const namespaces = (await ctx.client.list('Namespace')).filter((n) => n.metadata.deletionTimestamp === undefined && n.metadata.name !== m.metadata.namespace).map((n) => n.metadata.name);
  const data = b64(m.spec.data);
  for (const namespace of namespaces) {
    const ref = { namespace, name: m.metadata.name };
    const copy = copies.find((c) => c.metadata.namespace === namespace && c.metadata.name === m.metadata.name) ?? (await ctx.client.tryGet('Secret', ref));
    if (!copy) {
      try {
        await ctx.client.create({ apiVersion: 'v1', kind: 'Secret', metadata: { ...ref, labels: { [SOURCE]: sourceOf(m) } }, type: m.spec.type, data });
      } catch (err) {
        if (!isStoreError(err, 'AlreadyExists')) throw err;
        const live = await ctx.client.get('Secret', ref, { live: true });
        if (!sameJson(live['data'], data) || live.metadata.labels[SOURCE] !== sourceOf(m)) await ctx.client.update({ ...live, metadata: { ...live.metadata, labels: { ...live.metadata.labels, [SOURCE]: sourceOf(m) } }, data });
      }
    } else if (!sameJson(copy['data'], data) || copy.metadata.labels[SOURCE] !== sourceOf(m)) {
      // the type of a Secret cannot change: a copy of another type is replaced
      if (copy['type'] !== m.spec.type) await deleteIfPresent(ctx, 'Secret', ref, { uid: copy.metadata.uid });
      else await ctx.client.update({ ...copy, metadata: { ...copy.metadata, labels: { ...copy.metadata.labels, [SOURCE]: sourceOf(m) } }, data });
    }
  }
  for (const c of copies) {
    const ns = c.metadata.namespace ?? '';
    if (namespaces.includes(ns)) continue;
    // a deletion is irreversible: a namespace the cache does not show may only be unseen (a restarted
    // informer listed from a lagging API server replica: guided corpus hunt seed 78), so it is
    // confirmed gone, or terminating, live before its copy goes
    const live = await ctx.client.tryGet('Namespace', { name: ns }, { live: true });
    if (live && live.metadata.deletionTimestamp === undefined && ns !== m.metadata.namespace) continue;
    await deleteIfPresent(ctx, 'Secret', { namespace: c.metadata.namespace, name: c.metadata.name }, { uid: c.metadata.uid });
  }
  await writeStatus(ctx, m, { copies: namespaces.length, observedGeneration: m.metadata.generation });
}

export const secretMirrorController = defineController({
  name: 'secret-mirror',
  for: SECRET_MIRROR,
  watches: [
    // a new (or deleted) namespace: every mirror has work to do
    { kind: 'Namespace', map: (_ns, ctx) => ctx.list(SECRET_MIRROR).map((m) => `${m.metadata.namespace}/${m.metadata.name}`) },
    // a copy edited or deleted by someone: its mirror repairs it
    { kind: 'Secret', map: (s) => mirrorKeyOf(s.metadata.labels[SOURCE]) },
  ],
  leaderElection: true,
  resyncPeriodMs: RESYNC_MS,
  reconcile,
});

function mirrorKeyOf(source: string | undefined): string[] {
  if (source === undefined) return [];
  const i = source.indexOf('.');
  return i < 0 ? [] : [`${source.slice(0, i)}/${source.slice(i + 1)}`];
}

export const secretCopier: FalsePositiveCase = {
  name: 'secret-copier',
  description: 'a SecretMirror copies credentials into every Namespace, repairs edited copies and cleans them all up behind a finalizer',
  controllers: [secretMirrorController],
  options: {
    objects: [
      { kind: SECRET_MIRROR, name: 'registry', spec: [{ type: 'Opaque', data: { token: 't-1' } }, { type: 'Opaque', data: { token: 't-2', user: 'ci' } }] },
      { kind: 'Namespace', namespace: '', name: 'team', spec: {} },
    ],
    maxObjects: 4,
  },
  properties: endStateProperties(),
};
