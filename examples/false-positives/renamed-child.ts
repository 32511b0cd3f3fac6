import { AlreadyExistsError, defineController, type ReconcileContext, type StoredObject } from '../../src/index.js';
import { deleteIfPresent, managedPatch } from './_shared/apply.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { endStateProperties } from './_shared/masks.js';
import { controlledBy, controllerRef } from './_shared/owner.js';
import { RESYNC_MS } from './_shared/resync.js';
import { setCondition, writeStatus, type Condition } from './_shared/status.js';

/**
 * An `EdgeGateway` publishes an edge proxy through a Service whose name the user chooses
 * (`spec.serviceName`: what DNS names and other teams' configs point at), so renaming it renames
 * the child: make before break, as a person would do it by hand. The controller creates (or
 * repairs) the Service of the new name first, and only then deletes the others it controls,
 * found by its owner label and kept only if their controller ownerReference holds this gateway's
 * uid, deleted with that uid as precondition: a Service that merely carries the label, or one a
 * previous gateway of the same name left for the garbage collector, is never touched. A name
 * already taken by a Service that is not this gateway's (adopting it would hijack someone else's
 * traffic) is reported as `Accepted=False` and the old Service keeps serving; a watch maps each
 * Service to the gateways that want its name, so the name is taken as soon as it is free.
 *
 * Its buggy twin remembers in memory the name of the Service it last published, per gateway, and
 * on a rename deletes the Service of that name: a restart forgets it, so a rename made while the
 * controller was down (or before the restarted one first reconciled the gateway) leaves the old
 * Service behind, owned and labelled, forever. (Remembering the name in status instead is durable
 * and goes wrong only when the status write after a rename is lost and another rename follows
 * before the retry: 1 failing run of 450 in a swarm hunt, too rare for a twin.)
 */
export const EDGE_GATEWAY = 'EdgeGateway';
const OWNER_LABEL = 'gateway.example.com/owner';

interface GatewaySpec {
  serviceName: string;
  port: number;
}
interface GatewayStatus {
  serviceName?: string;
  observedGeneration?: number;
  conditions?: Condition[];
}

function serviceFor(gw: StoredObject<GatewaySpec, GatewayStatus>) {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: gw.spec.serviceName, namespace: gw.metadata.namespace, labels: { [OWNER_LABEL]: gw.metadata.name }, ownerReferences: [controllerRef(gw)] },
    spec: { type: 'ClusterIP', selector: { app: 'edge-proxy', gateway: gw.metadata.name }, ports: [{ name: 'http', protocol: 'TCP', port: gw.spec.port, targetPort: 8080 }] },
  };
}

/** Makes the gateway's Service of the wanted name exist as desired; false when the name is held by a Service that is not this gateway's. */
async function ensureService(ctx: ReconcileContext, gw: StoredObject<GatewaySpec, GatewayStatus>): Promise<boolean> {
  const desired = serviceFor(gw);
  const ref = { namespace: desired.metadata.namespace, name: desired.metadata.name };
  let current = await ctx.client.tryGet('Service', ref);
  if (!current) {
    try {
      await ctx.client.create(desired);
      return true;
    } catch (err) {
      if (!(err instanceof AlreadyExistsError)) throw err;
      current = await ctx.client.get('Service', ref, { live: true });
    }
  }
  if (!controlledBy(current, gw)) return false;
  const patch = managedPatch(current, desired);
  if (patch !== undefined) await ctx.client.patch('Service', ref, patch);
  return true;
}

/** The buggy twin's memory, per controller instance (a restart starts with an empty one): gateway key → Service name. */
const remembered = new WeakMap<object, Map<string, string>>();

function define(mistake: 'none' | 'memory') {
  async function reconcile(ctx: ReconcileContext): Promise<void> {
    const gw = await ctx.client.tryGet<GatewaySpec, GatewayStatus>(EDGE_GATEWAY, ctx.key, { live: true });
    if (!gw || gw.metadata.deletionTimestamp !== undefined) return;
    const ns = gw.metadata.namespace;
    const want = gw.spec.serviceName;
    const now = ctx.clock.now();
    if (!(await ensureService(ctx, gw))) {
      const conditions = setCondition(gw.status.conditions, { type: 'Accepted', status: 'False', reason: 'ServiceNameTaken', message: `Service ${want} exists and is not this gateway's`, observedGeneration: gw.metadata.generation }, now);
      await writeStatus(ctx, gw, { ...(gw.status.serviceName !== undefined ? { serviceName: gw.status.serviceName } : {}), observedGeneration: gw.metadata.generation, conditions });
      return;
    }
    // break, now that the new Service serves
    if (mistake === 'memory') {
      // BUG (memory): the previous Service is the one this process remembers publishing
      let m = remembered.get(ctx.client);
      if (!m) remembered.set(ctx.client, (m = new Map()));
      const previous = m.get(ctx.key);
      if (previous !== undefined && previous !== want) await deleteIfPresent(ctx, 'Service', { namespace: ns, name: previous });
      m.set(ctx.key, want);
    } else {
      const mine = (await ctx.client.list('Service', { namespace: ns, labelSelector: `${OWNER_LABEL}=${gw.metadata.name}` })).filter((s) => controlledBy(s, gw) && s.metadata.name !== want && s.metadata.deletionTimestamp === undefined);
      for (const s of mine) await deleteIfPresent(ctx, 'Service', { namespace: ns, name: s.metadata.name }, { uid: s.metadata.uid });
    }
    const conditions = setCondition(gw.status.conditions, { type: 'Accepted', status: 'True', reason: 'ServicePublished', message: `published as Service ${want}`, observedGeneration: gw.metadata.generation }, now);
    await writeStatus(ctx, gw, { serviceName: want, observedGeneration: gw.metadata.generation, conditions });
  }
  return defineController({
    name: 'edge-gateway',
    for: EDGE_GATEWAY,
    owns: ['Service'],
    // a Service that frees (or takes) a name some gateway wants: that gateway tries again
    watches: [{ kind: 'Service', map: (s, ctx) => ctx.list(EDGE_GATEWAY).filter((g) => g.metadata.namespace === s.metadata.namespace && g.spec['serviceName'] === s.metadata.name).map((g) => `${g.metadata.namespace}/${g.metadata.name}`) }],
    leaderElection: true,
    resyncPeriodMs: RESYNC_MS,
    reconcile,
  });
}

export const edgeGatewayController = define('none');

export const renamedChild: FalsePositiveCase = {
  name: 'renamed-child',
  description: 'an EdgeGateway publishes a Service under a user-chosen name; a rename creates the new Service, then deletes the old ones it controls (found by owner label, kept by uid), never one it does not own',
  controllers: [edgeGatewayController],
  options: {
    // one gateway per namespace: two gateways wanting one name is a race the first one wins, by design
    objects: { kind: EDGE_GATEWAY, name: 'edge', namespaces: ['edge-a', 'edge-b'], spec: [{ serviceName: 'web', port: 80 }, { serviceName: 'web-v2', port: 80 }, { serviceName: 'public', port: 8080 }] },
    maxObjects: 2,
  },
  properties: endStateProperties(),
  buggy: {
    controllers: [define('memory')],
    caughtBy: ['same-end-state'],
    // a crash, then a rename before the restarted controller reconciles the gateway: about one run in a hundred
    world: { maxActions: 4 },
    seed: 14,
    why: 'it deletes the previous Service by the name it remembers in memory: after a restart, a rename it did not see happen leaves the old Service behind',
  },
};
