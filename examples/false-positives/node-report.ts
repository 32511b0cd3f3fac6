import { defineController, podLifecycle, type ControllerDefinition, type NewObject, type WorldView } from '../../src/index.js';
import { convergence } from '../../properties/convergence.js';
import { sameJson } from '../bug-zoo/shared/same-json.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { podEndStateProperties } from './_shared/masks.js';
import { controllerRef } from './_shared/owner.js';
import { RESYNC_MS } from './_shared/resync.js';

/**
 * A controller of Nodes (cluster-scoped, built-in; it owns none of them) that keeps a ConfigMap
 * `node-report-<node>` in `default` with how many Pods run on the Node and how many are Running,
 * listing them across namespaces with `fieldSelector: spec.nodeName=<node>` (as the kubelet and
 * `kubectl describe node` list them). The ConfigMap is owned by its Node: a namespaced dependent
 * of a cluster-scoped owner, collected with it. Pod events map to the Node named in their
 * `spec.nodeName`. The users' Pods are placed and run by pod-lifecycle on node-0 … node-2. (Red
 * team rt, round 8: the first corpus case reading through a field selector.)
 *
 * Its buggy twin keeps the counts in the ConfigMap's status, through the status subresource. A
 * ConfigMap has none: kube-apiserver answers 404 to every such write, so the report never shows.
 */
function define(mistake: 'none' | 'status-on-configmap'): ControllerDefinition {
  return defineController({
    name: 'node-report',
    for: 'Node',
    owns: ['ConfigMap'],
    watches: [{ kind: 'Pod', map: (pod) => (typeof pod.spec['nodeName'] === 'string' && pod.spec['nodeName'] !== '' ? [pod.spec['nodeName']] : []) }],
    leaderElection: true,
    resyncPeriodMs: RESYNC_MS,
    async reconcile(ctx) {
      const node = await ctx.client.tryGet('Node', ctx.key, { live: true });
      if (!node || node.metadata.deletionTimestamp !== undefined) return undefined;
      const pods = (await ctx.client.list('Pod', { fieldSelector: `spec.nodeName=${node.metadata.name}`, live: true })).filter((p) => p.metadata.deletionTimestamp === undefined);
      const data = { pods: String(pods.length), running: String(pods.filter((p) => p.status['phase'] === 'Running').length) };
      const name = `node-report-${node.metadata.name}`;
      const cm = await ctx.client.tryGet('ConfigMap', { namespace: 'default', name }, { live: true });
      if (mistake === 'none') {
        if (!cm) await ctx.client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default', ownerReferences: [controllerRef(node)] }, data } as never);
        else if (!sameJson((cm as unknown as { data?: unknown }).data, data)) await ctx.client.update({ ...cm, data } as never);
        return undefined;
      }
      // BUG: a ConfigMap has no status subresource
      const made = cm ?? (await ctx.client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default', ownerReferences: [controllerRef(node)] }, data: {} } as never));
      if (!sameJson(made.status, data)) await ctx.client.updateStatus({ ...made, status: data });
      return undefined;
    },
  });
}

export const nodeReportController = define('none');

/** Converged: every Node that runs Pods has a report with their count. */
export function reported(v: WorldView): true | string {
  for (const n of v.list('Node')) {
    const pods = v.list('Pod').filter((p) => p.spec['nodeName'] === n.metadata.name);
    const cm = v.get('ConfigMap', `default/node-report-${n.metadata.name}`) as unknown as { data?: Record<string, unknown> } | undefined;
    if (pods.length > 0 && cm?.data?.['pods'] !== String(pods.length)) return `Node ${n.metadata.name} runs ${pods.length} Pods, its report says ${String(cm?.data?.['pods'])}`;
  }
  return true;
}

const node = (name: string): NewObject => ({ apiVersion: 'v1', kind: 'Node', metadata: { name }, spec: {} });
const pod = (name: string): NewObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', labels: { app: 'batch' } }, spec: { containers: [{ name: 'c', image: 'busybox:1.36' }] } });

export const nodeReport: FalsePositiveCase = {
  name: 'node-report',
  description: 'a controller of Nodes keeps a ConfigMap per Node (owned by it) with the count of Pods it runs, listed with a spec.nodeName field selector',
  controllers: [nodeReportController],
  options: {
    environment: [podLifecycle],
    story: {
      objects: [node('node-0'), node('node-1'), node('node-2'), pod('p-1'), pod('p-2'), pod('p-3')],
      actions: [
        { at: 2_000, type: 'create', object: pod('p-4') },
        { at: 6_000, type: 'delete', kind: 'Pod', key: 'default/p-2' },
      ],
    },
  },
  // which Node a Pod lands on is the scheduler's (pod-lifecycle's) choice, and so are the counts
  properties: [convergence({ converged: reported }), ...podEndStateProperties('data.pods', 'data.running')],
  buggy: {
    controllers: [define('status-on-configmap')],
    caughtBy: ['convergence'],
    why: 'it writes the counts to the ConfigMap\'s status subresource, which a ConfigMap does not have: 404 on every write, the report never shows',
  },
};
