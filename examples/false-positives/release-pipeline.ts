import { defineController, isStoreError, type ReconcileContext, type StoredObject } from '../../src/index.js';
import { apply } from './_shared/apply.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { controlledBy, controllerRef } from './_shared/owner.js';
import { RESYNC_MS } from './_shared/resync.js';
import { writeStatus } from './_shared/status.js';

/**
 * Two controllers hand work to each other through a custom resource's status, as a CI/CD operator
 * and its build controller do: the `Release` controller (under test) makes one `Build` per
 * version and reports `Released` once that build succeeded, then deletes the builds of older
 * versions; the `Build` controller (in the same world) publishes each build's artifact as a
 * ConfigMap and reports `Succeeded`. Neither can see the other's progress except through the
 * status it writes, so every fault to one's watch delays the other.
 */
export const RELEASE = 'Release';
export const BUILD = 'Build';

interface ReleaseSpec {
  version: string;
}
interface ReleaseStatus {
  phase?: string;
  build?: string;
  observedGeneration?: number;
}
interface BuildSpec {
  release: string;
  version: string;
}
interface BuildStatus {
  phase?: string;
  artifact?: string;
}
type Build = StoredObject<BuildSpec, BuildStatus>;

/** A build's name: one per release and version (a version string made name-safe). */
function buildName(release: string, version: string): string {
  return `${release}-${version.replace(/[^a-z0-9]/g, '-')}`;
}

async function reconcileRelease(ctx: ReconcileContext): Promise<void> {
  const rel = await ctx.client.tryGet<ReleaseSpec, ReleaseStatus>(RELEASE, ctx.key, { live: true });
  if (!rel || rel.metadata.deletionTimestamp !== undefined) return;
  const ns = rel.metadata.namespace;
  const name = buildName(rel.metadata.name, rel.spec.version);
  const build = (await apply(ctx, {
    kind: BUILD,
    metadata: { name, namespace: ns, labels: { release: rel.metadata.name }, ownerReferences: [controllerRef(rel)] },
    spec: { release: rel.metadata.name, version: rel.spec.version },
  })) as unknown as Build;
  const done = build.status?.phase === 'Succeeded';
  if (done) {
    // superseded builds go only once the current one is done, and only builds this release controls
    const builds = await ctx.client.list<BuildSpec, BuildStatus>(BUILD, { ...(ns !== undefined ? { namespace: ns } : {}), labelSelector: { matchLabels: { release: rel.metadata.name } }, live: true });
    for (const b of builds) {
      if (b.metadata.name === name || !controlledBy(b, rel) || b.metadata.deletionTimestamp !== undefined) continue;
      try {
        await ctx.client.delete(BUILD, { namespace: ns, name: b.metadata.name }, { preconditions: { uid: b.metadata.uid } });
      } catch (err) {
        if (!isStoreError(err, 'NotFound') && !isStoreError(err, 'Conflict')) throw err;
      }
    }
  }
  await writeStatus(ctx, rel, { phase: done ? 'Released' : 'Building', build: name, observedGeneration: rel.metadata.generation });
}

async function reconcileBuild(ctx: ReconcileContext): Promise<void> {
  const b = await ctx.client.tryGet<BuildSpec, BuildStatus>(BUILD, ctx.key, { live: true });
  if (!b || b.metadata.deletionTimestamp !== undefined) return;
  const ns = b.metadata.namespace;
  const artifact = `${b.metadata.name}-artifact`;
  await apply(ctx, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: artifact, namespace: ns, ownerReferences: [controllerRef(b)] }, data: { version: b.spec.version, image: `registry.example.com/${b.spec.release}:${b.spec.version}` } } as never);
  await writeStatus(ctx, b, { phase: 'Succeeded', artifact });
}

export const releaseController = defineController({
  name: 'release',
  for: RELEASE,
  owns: [BUILD],
  resyncPeriodMs: RESYNC_MS,
  reconcile: reconcileRelease,
});

export const buildController = defineController({
  name: 'build',
  for: BUILD,
  owns: ['ConfigMap'],
  resyncPeriodMs: RESYNC_MS,
  reconcile: reconcileBuild,
});

export const releasePipeline: FalsePositiveCase = {
  name: 'release-pipeline',
  description: 'a Release makes one Build per version, reports Released once another controller marked that Build Succeeded, then deletes superseded Builds',
  controllers: [releaseController, buildController],
  options: {
    objects: { kind: RELEASE, name: 'shop', spec: [{ version: '1.0' }, { version: '1.1' }, { version: '2.0' }] },
  },
};
