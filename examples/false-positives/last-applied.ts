import { AlreadyExistsError, defineController, type ControllerDefinition, type JsonObject, type StoredObject } from '../../src/index.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { controlledBy, controllerRef } from './_shared/owner.js';
import { RESYNC_MS } from './_shared/resync.js';
import { writeStatus } from './_shared/status.js';

/**
 * Client-side apply's three-way merge (`kubectl apply` before server-side apply): a `ConfigBundle`
 * declares the keys of a ConfigMap `<name>-bundle` it owns, and the applier records what it last
 * applied in the annotation `bundles.example.com/last-applied` (the keys and values, as JSON). A
 * pass patches only the difference: keys declared now and different live are set, keys in the last
 * applied set but no longer declared are removed (merge patch `null`), and every other key is left
 * alone, so a second team's controller that stamps its own key into the same ConfigMap keeps it.
 * One merge patch carries the data and the annotation, guarded by the resourceVersion read live
 * (the annotation must never say more or less than what the patch applied).
 *
 * Its twin, `twoWayTwin`, is the two-way sync: it compares the whole `data` with the declared
 * keys and writes exactly them, dropping the stamp the other controller puts back; the two fight
 * forever (no-fighting, without any fault). It guards no fault, but no-fighting's early stop (h50):
 * before it, a two-writer fight wrote through every run's phases (27–44 s of wall time for the
 * gate's twin direction on a loaded 2-CPU machine), so it was kept out of the corpus gate.
 * Written by the tenth red team (rt49).
 */
export const CONFIG_BUNDLE = 'ConfigBundle';
const LAST_APPLIED = 'bundles.example.com/last-applied';
const BUNDLE_LABEL = 'bundles.example.com/name';
const STAMP_KEY = 'audit-stamp'; // a ConfigMap key: no '/' (kube-apiserver validates data keys)

interface BundleSpec {
  data: Record<string, string>;
}
interface BundleStatus {
  keys?: number;
  observedGeneration?: number;
}
type ConfigMap = StoredObject<JsonObject, JsonObject> & { data?: Record<string, string> };

const bundleName = (b: StoredObject<unknown, unknown>) => `${b.metadata.name}-bundle`;

function lastApplied(cm: ConfigMap): Record<string, string> {
  const raw = cm.metadata.annotations[LAST_APPLIED];
  if (raw === undefined) return {};
  try {
    const parsed = JSON.parse(raw) as unknown;
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, string>) : {};
  } catch {
    return {};
  }
}

/** The applied set as the annotation holds it: keys sorted, so one intent is always one string. */
function encode(data: Record<string, string>): string {
  return JSON.stringify(Object.fromEntries(Object.keys(data).sort().map((k) => [k, data[k]!])));
}

function bundleApplier(mode: 'three-way' | 'two-way'): ControllerDefinition {
  return defineController({
    name: 'bundle-applier',
    for: CONFIG_BUNDLE,
    owns: ['ConfigMap'],
    resyncPeriodMs: RESYNC_MS,
    async reconcile(ctx) {
      const b = await ctx.client.tryGet<BundleSpec, BundleStatus>(CONFIG_BUNDLE, ctx.key, { live: true });
      if (!b || b.metadata.deletionTimestamp !== undefined) return;
      const ns = b.metadata.namespace ?? 'default';
      const desired = b.spec.data ?? {};
      const ref = { namespace: ns, name: bundleName(b) };
      let cm = (await ctx.client.tryGet('ConfigMap', ref, { live: true })) as ConfigMap | undefined;
      if (!cm) {
        try {
          cm = (await ctx.client.create({ kind: 'ConfigMap', metadata: { name: ref.name, namespace: ns, labels: { [BUNDLE_LABEL]: b.metadata.name }, annotations: { [LAST_APPLIED]: encode(desired) }, ownerReferences: [controllerRef(b)] }, data: { ...desired } } as never)) as ConfigMap;
        } catch (err) {
          if (!(err instanceof AlreadyExistsError)) throw err;
          return { requeueAfter: 500 };
        }
      }
      if (!controlledBy(cm, b)) return { requeueAfter: 1_000 }; // a previous bundle's, not collected yet
      const live = cm.data ?? {};
      const patch: Record<string, string | null> = {};
      if (mode === 'three-way') {
        for (const k of Object.keys(lastApplied(cm))) if (!(k in desired) && k in live) patch[k] = null;
        for (const [k, v] of Object.entries(desired)) if (live[k] !== v) patch[k] = v;
      } else {
        for (const k of Object.keys(live)) if (!(k in desired)) patch[k] = null;
        for (const [k, v] of Object.entries(desired)) if (live[k] !== v) patch[k] = v;
      }
      const annotation = encode(desired);
      if (Object.keys(patch).length > 0 || cm.metadata.annotations[LAST_APPLIED] !== annotation) {
        await ctx.client.patch('ConfigMap', ref, { metadata: { annotations: { [LAST_APPLIED]: annotation } }, data: patch } as JsonObject, { resourceVersion: cm.metadata.resourceVersion });
      }
      await writeStatus(ctx, b, { keys: Object.keys(desired).length, observedGeneration: b.metadata.generation });
      return undefined;
    },
  });
}

/** The other team's controller: stamps its own key into every bundle ConfigMap (a merge patch of that key only). */
const stamper = defineController({
  name: 'bundle-stamper',
  for: 'ConfigMap',
  resyncPeriodMs: RESYNC_MS,
  async reconcile(ctx) {
    const cm = (await ctx.client.tryGet('ConfigMap', ctx.key)) as ConfigMap | undefined;
    if (!cm || cm.metadata.deletionTimestamp !== undefined || cm.metadata.labels[BUNDLE_LABEL] === undefined) return;
    if (cm.data?.[STAMP_KEY] === 'audited') return;
    await ctx.client.patch('ConfigMap', ctx.key, { data: { [STAMP_KEY]: 'audited' } }, { resourceVersion: cm.metadata.resourceVersion });
  },
});

/** The two-way sync and the stamper: they fight (see the comment at the top). */
export const twoWayTwin: readonly ControllerDefinition[] = [bundleApplier('two-way'), stamper];

export const lastAppliedCase: FalsePositiveCase = {
  name: 'last-applied',
  description: "client-side apply's three-way merge: a ConfigBundle's applier sets its declared keys of an owned ConfigMap and removes only keys its last-applied annotation lists, so another controller's stamped key survives",
  controllers: [bundleApplier('three-way'), stamper],
  options: { objects: { kind: CONFIG_BUNDLE, name: 'app', spec: [{ data: { mode: 'fast', region: 'eu' } }, { data: { mode: 'safe', tier: 'gold' } }] } },
  buggy: {
    controllers: twoWayTwin,
    caughtBy: ['no-fighting', 'no-hot-loop'],
    // the fight starts with the first ConfigMap: short phases keep its run short (the guess stops
    // it in the settle phase, and its confirmation at the first hand-over of the quiet tail)
    world: { faultWindowMs: 2_000, settleMs: 3_000 },
    why: 'the two-way sync removes every key it did not declare, the stamp the other controller owns too, which puts it back: the two fight for ever',
  },
};
