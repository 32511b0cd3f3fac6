import type { FaultPlan, RunRecord, Scenario, StoredObject } from '../../../src/index.js';

/**
 * The site fixture: a controller stamps each `Site` with a hash of its spec (the "last
 * applied" annotation pattern) while the user changes the spec. The controller must never undo
 * the user's change, not even for a while. A cache that lags behind the user's change is what
 * shows it (stale-snapshot).
 */
export const SITE = 'Site';
export const HASH = 'example.dev/spec-hash';

export interface SiteSpec {
  replicas: number;
}

/** The annotation value for a spec. */
export function specHash(spec: SiteSpec): string {
  return `replicas=${spec.replicas}`;
}

/** A Site created with 3 replicas at t=100; the user scales it to 5 at t=1000. */
export function siteScenario(controller: string, faults: FaultPlan, seed = 1): Scenario {
  return {
    seed,
    controllers: [{ name: controller }],
    initialObjects: [],
    workload: [
      { at: 100, type: 'create', object: { kind: SITE, metadata: { name: 'shop', namespace: 'default' }, spec: { replicas: 3 } } },
      { at: 1000, type: 'update', kind: SITE, key: 'default/shop', spec: { replicas: 5 } },
    ],
    faults,
    options: { faultWindowMs: 10_000, settleMs: 10_000 },
  };
}

/**
 * Healthy when no controller write ever changed the user's spec (a lost update, even one a later
 * write repaired), the user's last spec survived and the annotation matches it.
 */
export function judgeSite(run: RunRecord): true | string {
  const reverted = run.writes.find((w) => w.kind === SITE && w.actor.startsWith('controller:') && w.error === undefined && !w.noop && w.changed.includes('spec.replicas'));
  if (reverted) return `${reverted.actor} overwrote spec.replicas at t=${reverted.t} (a lost update of the user's change)`;
  const site = run.finalObjects.find((o) => o.kind === SITE) as unknown as StoredObject<SiteSpec> | undefined;
  if (!site) return 'the Site is gone';
  if (site.spec.replicas !== 5) return `spec.replicas is ${site.spec.replicas}: the user's change to 5 was overwritten (last written by ${lastSpecWriter(run)})`;
  if (site.metadata.annotations[HASH] !== specHash(site.spec)) return `annotation ${HASH} is ${String(site.metadata.annotations[HASH])}, spec says ${specHash(site.spec)}`;
  return true;
}

function lastSpecWriter(run: RunRecord): string {
  const w = [...run.writes].reverse().find((x) => x.kind === SITE && x.changed.includes('spec.replicas'));
  return w ? `${w.actor} at t=${w.t}` : 'nobody';
}
