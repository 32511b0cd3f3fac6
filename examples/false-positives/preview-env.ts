import { defineController, isStoreError, type JsonObject, type ReconcileContext } from '../../src/index.js';
import { addFinalizer, removeFinalizer } from '../bug-zoo/shared/finalizers.js';
import { sameJson } from '../bug-zoo/shared/same-json.js';
import { contains, deleteIfPresent } from './_shared/apply.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { endStateProperties } from './_shared/masks.js';
import { RESYNC_MS } from './_shared/resync.js';
import { writeStatus } from './_shared/status.js';

/**
 * A `Preview` deploys a branch as a ConfigMap and a Service named after the branch, tracking what
 * it made by label only (Helm-style release labels, no ownerReferences): switching branches
 * creates the new pair and deletes the old one (found by label, deleted with a uid
 * precondition), and a finalizer deletes whatever carries its label before the Preview goes.
 */
export const PREVIEW = 'Preview';
const RELEASE = 'preview.example.com/release';
const FINALIZER = 'preview.example.com/resources';

interface PreviewSpec {
  branch: string;
  port: number;
}
interface PreviewStatus {
  url?: string;
  observedGeneration?: number;
}

async function reconcile(ctx: ReconcileContext): Promise<void> {
  const p = await ctx.client.tryGet<PreviewSpec, PreviewStatus>(PREVIEW, ctx.key, { live: true });
  if (!p) return;
  const ns = p.metadata.namespace;
  const release = `${p.metadata.name}.${p.metadata.uid}`;
  const mine = async (live: boolean) => [
    ...(await ctx.client.list('ConfigMap', { namespace: ns, labelSelector: `${RELEASE}=${p.metadata.name}`, live })),
    ...(await ctx.client.list('Service', { namespace: ns, labelSelector: `${RELEASE}=${p.metadata.name}`, live })),
  ].filter((o) => o.metadata.annotations[RELEASE] === release);
  if (p.metadata.deletionTimestamp !== undefined) {
    if (!p.metadata.finalizers.includes(FINALIZER)) return;
    for (const o of await mine(true)) await deleteIfPresent(ctx, o.kind, { namespace: ns, name: o.metadata.name }, { uid: o.metadata.uid });
    await removeFinalizer(ctx, p, FINALIZER);
    return;
  }
  if (await addFinalizer(ctx, p, FINALIZER)) return;
  const name = `${p.metadata.name}-${p.spec.branch}`;
  const meta = { name, namespace: ns, labels: { [RELEASE]: p.metadata.name }, annotations: { [RELEASE]: release } };
  const desired: { kind: string; content: JsonObject }[] = [
    { kind: 'ConfigMap', content: { data: { BRANCH: p.spec.branch } } },
    { kind: 'Service', content: { spec: { selector: { preview: name }, ports: [{ name: 'http', port: p.spec.port }] } } },
  ];
  for (const { kind, content } of desired) {
    const cur = await ctx.client.tryGet(kind, { namespace: ns, name });
    if (!cur) {
      try {
        await ctx.client.create({ apiVersion: 'v1', kind, metadata: meta, ...content });
      } catch (err) {
        if (!isStoreError(err, 'AlreadyExists')) throw err;
      }
    } else if (cur.metadata.annotations[RELEASE] === release && !Object.keys(content).every((k) => (k === 'spec' ? contains(cur[k], content[k]) : sameJson(cur[k], content[k])))) {
      // a spec by the members it names (the API server defaults the rest: a Service's type, clusterIP, port protocol), data whole
      await ctx.client.update({ ...cur, ...content });
    }
  }
  // what this release made for another branch goes
  for (const o of await mine(false)) if (o.metadata.name !== name) await deleteIfPresent(ctx, o.kind, { namespace: ns, name: o.metadata.name }, { uid: o.metadata.uid });
  await writeStatus(ctx, p, { url: `http://${name}.${ns}.svc:${p.spec.port}`, observedGeneration: p.metadata.generation });
}

export const previewController = defineController({
  name: 'preview',
  for: PREVIEW,
  watches: ['ConfigMap', 'Service'].map((kind) => ({ kind, map: (o: { metadata: { namespace?: string; labels: Record<string, string> } }) => (o.metadata.labels[RELEASE] !== undefined ? [`${o.metadata.namespace}/${o.metadata.labels[RELEASE]}`] : []) })),
  leaderElection: true,
  resyncPeriodMs: RESYNC_MS,
  reconcile,
});

export const previewEnv: FalsePositiveCase = {
  name: 'preview-env',
  description: 'a Preview keeps a ConfigMap and a Service per branch, tracked by release label only, deleting the old pair on a branch switch',
  controllers: [previewController],
  options: {
    objects: { kind: PREVIEW, name: 'pr', spec: [{ branch: 'main', port: 8080 }, { branch: 'feature', port: 8080 }, { branch: 'feature', port: 9090 }] },
  },
  properties: endStateProperties(),
};
