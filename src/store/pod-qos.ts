import { quantityNanos } from './quantity.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The compute resources a Pod's QoS class is computed from (qos.isSupportedQoSComputeResource). */
const QOS_RESOURCES = ['cpu', 'memory'] as const;

/**
 * A Pod's QoS class as kube-apiserver sets it in `status.qosClass` at create (the pod registry's
 * PrepareForCreate, pkg/apis/core/helper/qos ComputePodQOS, after the defaulting of requests from
 * limits): BestEffort without any positive cpu/memory request or limit; Guaranteed when every
 * container and init container has positive cpu and memory limits and the summed requests equal
 * the summed limits, resource by resource; Burstable otherwise. Ephemeral containers do not count.
 * @internal
 */
export function podQOSClass(spec: unknown): 'Guaranteed' | 'Burstable' | 'BestEffort' {
  const requests = new Map<string, bigint>();
  const limits = new Map<string, bigint>();
  let guaranteed = true;
  const containers = isObj(spec) ? [spec['containers'], spec['initContainers']].flatMap((l) => (Array.isArray(l) ? (l as unknown[]) : [])) : [];
  for (const c of containers) {
    const res = isObj(c) && isObj(c['resources']) ? c['resources'] : {};
    const add = (list: unknown, into: Map<string, bigint>): Set<string> => {
      const found = new Set<string>();
      if (!isObj(list)) return found;
      for (const name of QOS_RESOURCES) {
        const q = Object.hasOwn(list, name) ? quantityNanos(list[name]) : undefined;
        if (q === undefined || q <= 0n) continue;
        found.add(name);
        into.set(name, (into.get(name) ?? 0n) + q);
      }
      return found;
    };
    add(res['requests'], requests);
    const found = add(res['limits'], limits);
    if (!found.has('cpu') || !found.has('memory')) guaranteed = false;
  }
  if (requests.size === 0 && limits.size === 0) return 'BestEffort';
  if (guaranteed) {
    for (const [name, req] of requests) if (limits.get(name) !== req) guaranteed = false;
  }
  return guaranteed && requests.size === limits.size ? 'Guaranteed' : 'Burstable';
}
