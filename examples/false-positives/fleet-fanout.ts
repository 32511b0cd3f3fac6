import { defineController, fakeRestService, type ControllerDefinition, type ReconcileContext, type ReconcileResult, type WorldView } from '../../src/index.js';
import { convergence } from '../../properties/convergence.js';
import { addFinalizer, removeFinalizer } from '../bug-zoo/shared/finalizers.js';
import { jsonApi } from '../bug-zoo/shared/json-api.js';
import { RESYNC_MS } from './_shared/resync.js';
import { writeStatus } from './_shared/status.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { endStateProperties } from './_shared/masks.js';

/**
 * Multi-cluster fan-out through downstream APIs (Karmada / Fleet style, each member cluster reached
 * through its own API endpoint): a FleetConfig names the member clusters its data goes to. The
 * controller keeps exactly one copy (found by owner tag, created with an idempotency key) at
 * every named member, patched on change, and none at the members it no longer names (every member
 * is asked, since one dropped from the spec is named nowhere any more); a finalizer removes every
 * copy. Members fail independently: status records the copy at each member,
 * and observedGeneration only once all do.
 *
 * (Red team rt48: the first corpus case with several downstream services of one shape.)
 *
 * Its buggy twin cleans up only the members the spec names now: a member dropped from spec.clusters
 * keeps its copy forever.
 */
export const MEMBERS = ['east', 'west', 'south'] as const;
const api = (m: string) => `https://${m}.members.example/v1`;
const FINALIZER = 'fleet.example.com/copies';
interface FleetSpec {
  clusters: string[];
  data: string;
}
interface Copy {
  owner: string;
  data: string;
}

function define(mistake: 'none' | 'named-only'): ControllerDefinition {
  return defineController({
    name: 'fleet-config',
    for: 'FleetConfig',
    leaderElection: true,
    resyncPeriodMs: RESYNC_MS,
    async reconcile(ctx: ReconcileContext): Promise<ReconcileResult> {
      const f = await ctx.client.tryGet<FleetSpec, { copies?: Record<string, string>; observedGeneration?: number }>('FleetConfig', ctx.key, { live: true });
      if (!f) return undefined;
      const owner = f.metadata.uid;
      const deleting = f.metadata.deletionTimestamp !== undefined;
      if (deleting && !f.metadata.finalizers.includes(FINALIZER)) return undefined;
      if (!deleting && (await addFinalizer(ctx, f, FINALIZER))) return undefined;
      const named = new Set(deleting ? [] : f.spec.clusters);
      const asked = mistake === 'named-only' && !deleting ? [...named] : [...MEMBERS];
      const copies: Record<string, string> = {};
      let failed = 0;
      for (const m of asked) {
        const member = jsonApi(ctx.fetch, api(m));
        try {
          const found = await member.list<Copy>('configs', { owner });
          if (!named.has(m)) {
            for (const c of found) await member.removeIfPresent('configs', c.id);
            continue;
          }
          for (const extra of found.slice(1)) await member.removeIfPresent('configs', extra.id);
          const c = found[0];
          // the key names the copy it replaces: a key reused after the copy was deleted at the member
          // would only replay the deleted one (an idempotency key returns its first response)
          if (!c) copies[m] = (await member.create<Copy>('configs', { owner, data: f.spec.data }, { idempotencyKey: `${owner}/${m}/after-${f.status.copies?.[m] ?? 'none'}` })).id;
          else {
            if (c.data !== f.spec.data) await member.patch<Copy>('configs', c.id, { data: f.spec.data });
            copies[m] = c.id;
          }
        } catch (err) {
          const before = f.status.copies?.[m];
          if (before !== undefined && named.has(m)) copies[m] = before;
          // one member down must not hold up the others: try it again later
          ctx.log.info(`member ${m}: ${err instanceof Error ? err.message : String(err)}`);
          failed++;
        }
      }
      if (deleting) {
        if (failed > 0) throw new Error(`${failed} members still hold copies`);
        await removeFinalizer(ctx, f, FINALIZER);
        return undefined;
      }
      const all = failed === 0;
      await writeStatus(ctx, f, { copies, ...(all ? { observedGeneration: f.metadata.generation } : f.status.observedGeneration !== undefined ? { observedGeneration: f.status.observedGeneration } : {}) });
      if (!all) throw new Error(`${failed} members failed`);
      return undefined;
    },
  });
}

/** Converged: each member holds one copy of every FleetConfig that names it, with its data, and none of those that do not. */
export function fannedOut(v: WorldView): true | string {
  for (const m of MEMBERS) {
    const copies = v.downstream(m, 'configs') as unknown as Copy[];
    for (const f of v.list('FleetConfig')) {
      const mine = copies.filter((c) => c.owner === f.metadata.uid);
      const wants = f.metadata.deletionTimestamp === undefined && (f.spec['clusters'] as string[]).includes(m);
      if (wants && (mine.length !== 1 || mine[0]!.data !== f.spec['data'])) return `${m} holds ${JSON.stringify(mine)} for FleetConfig ${f.metadata.name}`;
      if (!wants && mine.length > 0) return `${m} still holds ${mine.length} copies of FleetConfig ${f.metadata.name}, which does not name it`;
    }
    const live = new Set(v.list('FleetConfig').map((f) => f.metadata.uid));
    const orphans = copies.filter((c) => !live.has(c.owner));
    if (orphans.length > 0) return `${m} holds ${orphans.length} copies of a deleted FleetConfig`;
  }
  return true;
}

export const fleetFanout: FalsePositiveCase = {
  name: 'fleet-fanout',
  description: 'Karmada/Fleet style fan-out: a FleetConfig keeps one copy of its data at each member cluster it names (one API per member, failing independently) and none at the others, a finalizer removing them all',
  controllers: [define('none')],
  options: {
    objects: { kind: 'FleetConfig', spec: [{ clusters: ['east', 'west'], data: 'v1' }, { clusters: ['west', 'south'], data: 'v2' }, { clusters: ['east'], data: 'v1' }] },
    downstream: () => ({ services: MEMBERS.map((m) => fakeRestService({ baseUrl: api(m), name: m, idempotencyKeyHeader: 'Idempotency-Key', latencyMs: 10 })), timeoutMs: 5_000 }),
  },
  // the members assign the copies' ids
  properties: [convergence({ converged: fannedOut }), ...endStateProperties('status.copies.*')],
  buggy: {
    controllers: [define('named-only')],
    caughtBy: ['convergence'],
    why: 'it asks only the members the spec names now: a member dropped from spec.clusters keeps its copy forever',
  },
};
