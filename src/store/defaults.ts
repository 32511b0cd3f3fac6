import { fnv1a } from '../sim/hash.js';
import { isBuiltin, sortedShallow } from './key-order.js';
import type { FieldError } from './immutability.js';
import type { StoredObject } from './object.js';
import { podQOSClass } from './pod-qos.js';

/*
 * kube-apiserver's defaulting of the built-in kinds (Kubernetes 1.32, the version the store
 * serves): what the generated defaulters of k8s.io/kubernetes pkg/apis/{core,apps,batch,
 * networking,rbac}/v1 (defaults.go) fill in when a request is decoded, on create and on every
 * update and patch, plus what the Service registry allocates (a cluster IP, node ports) and the
 * Job registry generates (its selector). A controller reading an object back sees these fields;
 * one that compares the spec it built with the live one field by field sees a difference on every
 * reconcile, as on a real cluster.
 *
 * Only the defaulters' own fields, with the feature gates a 1.32 cluster has on by default; no
 * admission plugin (ServiceAccount, DefaultTolerationSeconds, Priority, LimitRanger), no rounding
 * of quantities, no CRD schema `default`s. Defaults apply only where the object has the shape
 * (a Deployment without a template gets no Pod template defaults); a field of the wrong JSON type
 * is left to the decoding and validation errors.
 */

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Go's nil pointer or empty string/zero: what the defaulters test for a field not set. */
function unset(v: unknown): boolean {
  return v === undefined || v === null || v === '';
}

/** `o[f]` as an object, created (and stored) when absent, as Go defaulting allocates a nil struct pointer. */
function child(o: Obj, f: string): Obj {
  const v = o[f];
  if (isObj(v)) return v;
  const c: Obj = {};
  o[f] = c;
  return c;
}

function each(list: unknown, fn: (item: Obj) => void): void {
  if (!Array.isArray(list)) return;
  for (const item of list) if (isObj(item)) fn(item);
}

/**
 * The cluster IPs and node ports the store's Services hold, and the next free ones. A pick is
 * derived from the Service's uid (itself derived from its identity), so a run and its fault-free
 * twin give a Service the same address whatever order Services were created in.
 * @internal
 */
export class ServiceAllocations {
  private readonly ips = new Set<string>();
  private readonly ports = new Set<number>();

  /** A free address of the service CIDR 10.96.0.0/12 (kubeadm's and kind's default), from `seed`. */
  clusterIP(seed: string): string {
    const size = 1 << 20;
    // .0 is the network, .1 the `kubernetes` Service, the top the broadcast address
    for (let off = 2 + (fnv1a(seed) % (size - 3)); ; off = off + 1 >= size - 1 ? 2 : off + 1) {
      const ip = `10.${96 + (off >>> 16)}.${(off >>> 8) & 255}.${off & 255}`;
      if (!this.ips.has(ip)) return ip;
    }
  }

  /** A free port of the NodePort range 30000-32767 not in `taken`, from `seed`. */
  nodePort(seed: string, taken: ReadonlySet<number>): number {
    const size = 2768;
    for (let i = 0, off = fnv1a(seed) % size; i < size; i++, off = (off + 1) % size) {
      if (!this.ports.has(30000 + off) && !taken.has(30000 + off)) return 30000 + off;
    }
    return 30000 + (fnv1a(seed) % size); // the range is full: a real server refuses; not modelled
  }

  /**
   * Why a new Service cannot have the cluster IPs it asked for (the registry's allocateIPs): one
   * outside the service CIDR, or one another Service holds; none for what the store allocated (a
   * free address of the range). 422 `spec.clusterIPs` as kube-apiserver answers.
   */
  refusal(svc: StoredObject): FieldError[] {
    const s = svc.spec as Obj;
    const ips = Array.isArray(s['clusterIPs']) ? s['clusterIPs'] : [];
    const out: FieldError[] = [];
    for (const ip of ips) {
      if (typeof ip !== 'string' || ip === '' || ip === 'None') continue;
      const why = !inServiceRange(ip)
        ? `the provided IP (${ip}) is not in the valid range. The range of valid IPs is 10.96.0.0/12`
        : this.ips.has(ip)
          ? 'provided IP is already allocated'
          : undefined;
      if (why !== undefined) out.push({ field: 'spec.clusterIPs', type: 'FieldValueInvalid', body: `Invalid value: ${JSON.stringify(ips)}: failed to allocate IP ${ip}: ${why}` });
    }
    return out;
  }

  /** Records what a stored Service holds (`add`) or gave back (`!add`). */
  hold(svc: StoredObject, add: boolean): void {
    const s = svc.spec as Obj;
    const ips = Array.isArray(s['clusterIPs']) ? s['clusterIPs'] : [s['clusterIP']];
    for (const ip of ips) if (typeof ip === 'string' && ip !== '' && ip !== 'None') add ? this.ips.add(ip) : this.ips.delete(ip);
    const ports: unknown[] = [s['healthCheckNodePort']];
    each(s['ports'], (p) => ports.push(p['nodePort']));
    for (const p of ports) if (typeof p === 'number' && p > 0) add ? this.ports.add(p) : this.ports.delete(p);
  }
}

/** Whether `ip` is an IPv4 address of the service CIDR 10.96.0.0/12 (an IPv6 or malformed one is not). */
function inServiceRange(ip: string): boolean {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(ip);
  if (!m || m.slice(1).some((o) => Number(o) > 255)) return false;
  return Number(m[1]) === 10 && Number(m[2]) >= 96 && Number(m[2]) <= 111;
}

type Defaulter = (o: StoredObject, cur: StoredObject | undefined, alloc: ServiceAllocations) => void;

/**
 * Fills in the defaults of a built-in kind on `o`, the next object a create or a write stores
 * (freshly built: mutated in place). `cur` is the stored object a write replaces; a spec that is
 * still `cur`'s (a status write) was defaulted when it was stored and is not touched. Every other
 * kind (custom resources) costs one map lookup, and so does a custom resource named like a
 * built-in (another apiVersion: kube-apiserver has no defaulter for it).
 * @internal
 */
export function applyDefaults(o: StoredObject, cur: StoredObject | undefined, alloc: ServiceAllocations): void {
  const d = DEFAULTERS.get(o.kind);
  if (d !== undefined && isBuiltin(o.kind, o.apiVersion)) d(o, cur, alloc);
}

/** A defaulter of a kind whose defaults live in spec: skipped when the spec is the stored one. */
function onSpec(fn: (spec: Obj, o: StoredObject, cur: StoredObject | undefined, alloc: ServiceAllocations) => void): Defaulter {
  return (o, cur, alloc) => {
    if ((cur !== undefined && o.spec === cur.spec) || !isObj(o.spec)) return;
    fn(o.spec as Obj, o, cur, alloc);
  };
}

// ---------------------------------------------------------------- core/v1: Pod specs

/** kubelet's pull policy default: Always for `:latest` or no tag (and no digest), else IfNotPresent. */
function pullPolicy(image: unknown): string {
  if (typeof image !== 'string' || image === '') return 'IfNotPresent'; // a name that does not parse: no tag
  const at = image.indexOf('@');
  const named = at < 0 ? image : image.slice(0, at);
  const slash = named.lastIndexOf('/');
  const colon = named.lastIndexOf(':');
  const repo = colon > slash ? named.slice(0, colon) : named;
  // docker's reference parser refuses an upper-case repository; the defaulter then sees no tag
  if (/[A-Z]/.test(repo.slice(repo.indexOf('/') + 1))) return 'IfNotPresent';
  const tag = colon > slash ? named.slice(colon + 1) : at < 0 ? 'latest' : '';
  return tag === 'latest' ? 'Always' : 'IfNotPresent';
}

function probeDefaults(p: unknown): void {
  if (!isObj(p)) return;
  if (unset(p['timeoutSeconds']) || p['timeoutSeconds'] === 0) p['timeoutSeconds'] = 1;
  if (unset(p['periodSeconds']) || p['periodSeconds'] === 0) p['periodSeconds'] = 10;
  if (unset(p['successThreshold']) || p['successThreshold'] === 0) p['successThreshold'] = 1;
  if (unset(p['failureThreshold']) || p['failureThreshold'] === 0) p['failureThreshold'] = 3;
  httpGetDefaults(p['httpGet']);
}

function httpGetDefaults(h: unknown): void {
  if (!isObj(h)) return;
  if (unset(h['path'])) h['path'] = '/';
  if (unset(h['scheme'])) h['scheme'] = 'HTTP';
}

function fieldRefDefaults(item: Obj): void {
  const f = item['fieldRef'];
  if (isObj(f) && unset(f['apiVersion'])) f['apiVersion'] = 'v1';
}

function containerDefaults(c: Obj): void {
  if (unset(c['imagePullPolicy'])) c['imagePullPolicy'] = pullPolicy(c['image']);
  if (unset(c['terminationMessagePath'])) c['terminationMessagePath'] = '/dev/termination-log';
  if (unset(c['terminationMessagePolicy'])) c['terminationMessagePolicy'] = 'File';
  each(c['ports'], (p) => {
    if (unset(p['protocol'])) p['protocol'] = 'TCP';
  });
  each(c['env'], (e) => {
    if (isObj(e['valueFrom'])) fieldRefDefaults(e['valueFrom']);
  });
  probeDefaults(c['livenessProbe']);
  probeDefaults(c['readinessProbe']);
  probeDefaults(c['startupProbe']);
  const lc = c['lifecycle'];
  if (isObj(lc)) {
    for (const h of ['postStart', 'preStop']) if (isObj(lc[h])) httpGetDefaults((lc[h] as Obj)['httpGet']);
  }
}

const DEFAULT_MODE = 420; // 0644

function volumeDefaults(v: Obj): void {
  let source = false;
  for (const k in v) if (k !== 'name' && v[k] !== undefined && v[k] !== null) source = true;
  if (!source) v['emptyDir'] = {};
  const hp = v['hostPath'];
  if (isObj(hp) && (hp['type'] === undefined || hp['type'] === null)) hp['type'] = '';
  for (const k of ['secret', 'configMap', 'downwardAPI', 'projected']) {
    const s = v[k];
    if (isObj(s) && (s['defaultMode'] === undefined || s['defaultMode'] === null)) s['defaultMode'] = DEFAULT_MODE;
  }
  if (isObj(v['downwardAPI'])) each(v['downwardAPI']['items'], fieldRefDefaults);
  if (isObj(v['projected'])) {
    each(v['projected']['sources'], (src) => {
      if (isObj(src['downwardAPI'])) each(src['downwardAPI']['items'], fieldRefDefaults);
      const t = src['serviceAccountToken'];
      if (isObj(t) && (t['expirationSeconds'] === undefined || t['expirationSeconds'] === null)) t['expirationSeconds'] = 3600;
    });
  }
  const eph = v['ephemeral'];
  if (isObj(eph) && isObj(eph['volumeClaimTemplate']) && isObj(eph['volumeClaimTemplate']['spec'])) pvcSpecDefaults(eph['volumeClaimTemplate']['spec']);
}

/** SetDefaults_PodSpec and what the generated defaulter reaches from a PodSpec (containers, volumes). */
function podSpecDefaults(ps: Obj): void {
  if (unset(ps['dnsPolicy'])) ps['dnsPolicy'] = 'ClusterFirst';
  if (unset(ps['restartPolicy'])) ps['restartPolicy'] = 'Always';
  if (ps['securityContext'] === undefined || ps['securityContext'] === null) ps['securityContext'] = {};
  if (ps['terminationGracePeriodSeconds'] === undefined || ps['terminationGracePeriodSeconds'] === null) ps['terminationGracePeriodSeconds'] = 30;
  if (unset(ps['schedulerName'])) ps['schedulerName'] = 'default-scheduler';
  each(ps['initContainers'], containerDefaults);
  each(ps['containers'], containerDefaults);
  each(ps['ephemeralContainers'], containerDefaults);
  each(ps['volumes'], volumeDefaults);
}

/** The Pod template of a workload (`spec.template`), when it has a spec to default. */
function templateDefaults(spec: Obj): void {
  const t = spec['template'];
  if (isObj(t) && isObj(t['spec'])) podSpecDefaults(t['spec']);
}

/** SetDefaults_Pod: only a Pod, not a template (requests from limits, service links, host ports). */
function podDefaults(ps: Obj): void {
  podSpecDefaults(ps);
  for (const list of ['containers', 'initContainers']) {
    each(ps[list], (c) => {
      const r = c['resources'];
      if (!isObj(r) || !isObj(r['limits'])) return;
      const limits = r['limits'];
      const requests = child(r, 'requests');
      for (const k in limits) if (requests[k] === undefined) requests[k] = limits[k];
    });
  }
  if (ps['enableServiceLinks'] === undefined || ps['enableServiceLinks'] === null) ps['enableServiceLinks'] = true;
  if (ps['hostNetwork'] === true) {
    for (const list of ['containers', 'initContainers']) {
      each(ps[list], (c) =>
        each(c['ports'], (p) => {
          if (unset(p['hostPort']) || p['hostPort'] === 0) p['hostPort'] = p['containerPort'];
        }),
      );
    }
  }
}

function pvcSpecDefaults(s: Obj): void {
  if (unset(s['volumeMode'])) s['volumeMode'] = 'Filesystem';
}

const podDefaulter = onSpec((s) => podDefaults(s));

// ---------------------------------------------------------------- core/v1: Service

const SERVICE_TYPES_WITH_CLUSTER_IP = new Set(['ClusterIP', 'NodePort', 'LoadBalancer']);

/**
 * SetDefaults_Service, then what the Service registry allocates on create and keeps on update
 * when the request leaves it out (pkg/registry/core/service/storage: a cluster IP and its family,
 * node ports, the health check node port), as a full update without them finds them again.
 */
function serviceDefaults(s: Obj, o: StoredObject, cur: StoredObject | undefined, alloc: ServiceAllocations): void {
  if (unset(s['sessionAffinity'])) s['sessionAffinity'] = 'None';
  if (s['sessionAffinity'] === 'None') delete s['sessionAffinityConfig'];
  if (s['sessionAffinity'] === 'ClientIP') {
    const cfg = s['sessionAffinityConfig'];
    const ci = isObj(cfg) ? cfg['clientIP'] : undefined;
    if (!isObj(ci) || ci['timeoutSeconds'] === undefined || ci['timeoutSeconds'] === null) s['sessionAffinityConfig'] = { clientIP: { timeoutSeconds: 10800 } };
  }
  if (unset(s['type'])) s['type'] = 'ClusterIP';
  const type = s['type'];
  each(s['ports'], (p) => {
    if (unset(p['protocol'])) p['protocol'] = 'TCP';
    if (unset(p['targetPort']) || p['targetPort'] === 0) p['targetPort'] = p['port'];
  });
  const externalIPs = Array.isArray(s['externalIPs']) && s['externalIPs'].length > 0;
  if ((type === 'LoadBalancer' || type === 'NodePort' || (type === 'ClusterIP' && externalIPs)) && unset(s['externalTrafficPolicy'])) s['externalTrafficPolicy'] = 'Cluster';
  if (unset(s['internalTrafficPolicy']) && SERVICE_TYPES_WITH_CLUSTER_IP.has(type as string)) s['internalTrafficPolicy'] = 'Cluster';
  if (type === 'LoadBalancer' && (s['allocateLoadBalancerNodePorts'] === undefined || s['allocateLoadBalancerNodePorts'] === null)) s['allocateLoadBalancerNodePorts'] = true;
  if (cur !== undefined && isObj(cur.spec)) {
    dropTypeDependentFields(s, cur.spec as Obj);
    // and the load balancer status of a Service no longer of type LoadBalancer (status as stored: a main-resource write)
    const lb = isObj(cur.status) ? (cur.status as Obj)['loadBalancer'] : undefined;
    if (type !== 'LoadBalancer' && o.status === cur.status && isObj(lb) && Object.keys(lb).length > 0) o.status = { ...(cur.status as Obj), loadBalancer: {} };
  }

  if (!SERVICE_TYPES_WITH_CLUSTER_IP.has(type as string)) return;
  const old = cur !== undefined && isObj(cur.spec) && SERVICE_TYPES_WITH_CLUSTER_IP.has(cur.spec['type'] as string) ? (cur.spec as Obj) : undefined;
  const seed = o.metadata.uid;
  // what the stored Service was given and this request left out, it keeps (patchAllocatedValues)
  if (old !== undefined) {
    for (const f of ['clusterIP', 'clusterIPs', 'ipFamilies', 'ipFamilyPolicy']) if (unset(s[f]) || (Array.isArray(s[f]) && (s[f] as unknown[]).length === 0)) if (old[f] !== undefined) s[f] = old[f];
  }
  if (unset(s['clusterIP'])) s['clusterIP'] = Array.isArray(s['clusterIPs']) && typeof s['clusterIPs'][0] === 'string' ? s['clusterIPs'][0] : alloc.clusterIP(seed);
  if (!Array.isArray(s['clusterIPs']) || s['clusterIPs'].length === 0) s['clusterIPs'] = [s['clusterIP']];
  // a headless Service without a selector is ready for every family of the cluster (one: IPv4)
  const selectorless = s['clusterIP'] === 'None' && !(isObj(s['selector']) && Object.keys(s['selector']).length > 0);
  if (unset(s['ipFamilyPolicy'])) s['ipFamilyPolicy'] = selectorless ? 'RequireDualStack' : 'SingleStack';
  if (!Array.isArray(s['ipFamilies']) || s['ipFamilies'].length === 0) s['ipFamilies'] = ['IPv4'];

  const nodePorts = type === 'NodePort' || (type === 'LoadBalancer' && s['allocateLoadBalancerNodePorts'] !== false);
  if (nodePorts) {
    const taken = new Set<number>();
    each(s['ports'], (p) => {
      if (typeof p['nodePort'] === 'number' && p['nodePort'] > 0) taken.add(p['nodePort']);
    });
    each(s['ports'], (p) => {
      if (typeof p['nodePort'] === 'number' && p['nodePort'] > 0) return;
      let kept: unknown;
      if (old !== undefined) each(old['ports'], (q) => {
        if (kept === undefined && q['port'] === p['port'] && (q['protocol'] ?? 'TCP') === p['protocol'] && typeof q['nodePort'] === 'number' && !taken.has(q['nodePort'])) kept = q['nodePort'];
      });
      const port = typeof kept === 'number' ? kept : alloc.nodePort(`${seed}/${String(p['port'])}/${String(p['protocol'])}`, taken);
      p['nodePort'] = port;
      taken.add(port);
    });
  }
  if (type === 'LoadBalancer' && s['externalTrafficPolicy'] === 'Local' && (unset(s['healthCheckNodePort']) || s['healthCheckNodePort'] === 0)) {
    s['healthCheckNodePort'] = typeof old?.['healthCheckNodePort'] === 'number' ? old['healthCheckNodePort'] : alloc.nodePort(`${seed}/health`, new Set());
  }
}

const sameText = (a: unknown, b: unknown): boolean => (unset(a) ? '' : a) === (unset(b) ? '' : b);
const sameList = (a: unknown, b: unknown): boolean => {
  const x = Array.isArray(a) ? a : [];
  const y = Array.isArray(b) ? b : [];
  return x.length === y.length && x.every((v, i) => v === y[i]);
};
const needsNodePort = (s: Obj): boolean => s['type'] === 'NodePort' || s['type'] === 'LoadBalancer';
const needsHealthCheckNodePort = (s: Obj): boolean => s['type'] === 'LoadBalancer' && s['externalTrafficPolicy'] === 'Local';
/** serviceapi.ExternallyAccessible: what takes an externalTrafficPolicy. */
const externallyAccessible = (s: Obj): boolean => needsNodePort(s) || (s['type'] === 'ClusterIP' && Array.isArray(s['externalIPs']) && s['externalIPs'].length > 0);
function nodePortsOf(s: Obj): Set<unknown> {
  const out = new Set<unknown>();
  each(s['ports'], (p) => {
    if (!unset(p['nodePort']) && p['nodePort'] !== 0) out.add(p['nodePort']);
  });
  return out;
}

/**
 * The Service strategy's dropTypeDependentFields (pkg/registry/core/service/strategy.go, on
 * update only): a field the old type needed and the new one does not is cleared when the request
 * left it as it was (a read-modify-write or an apply that never owned it); one the request changed
 * is left for validation to refuse. Cluster IPs and families when switching to ExternalName, node
 * ports, the health check node port, allocateLoadBalancerNodePorts, loadBalancerClass and
 * externalTrafficPolicy when no longer used. (Its clearing of status.loadBalancer: in serviceDefaults, which has the status.)
 */
function dropTypeDependentFields(s: Obj, old: Obj): void {
  if (old['type'] !== 'ExternalName' && s['type'] === 'ExternalName') {
    if (sameText(old['clusterIP'], s['clusterIP']) && sameList(old['clusterIPs'], s['clusterIPs'])) {
      delete s['clusterIP'];
      delete s['clusterIPs'];
    }
    if (sameList(old['ipFamilies'], s['ipFamilies'])) delete s['ipFamilies'];
    if (sameText(old['ipFamilyPolicy'], s['ipFamilyPolicy'])) delete s['ipFamilyPolicy'];
  }
  if (needsNodePort(old) && !needsNodePort(s)) {
    // users may add, remove or change ports as long as they add no node port of their own
    const before = nodePortsOf(old);
    if ([...nodePortsOf(s)].every((p) => before.has(p))) each(s['ports'], (p) => delete p['nodePort']);
  }
  if (needsHealthCheckNodePort(old) && !needsHealthCheckNodePort(s) && (old['healthCheckNodePort'] ?? 0) === (s['healthCheckNodePort'] ?? 0)) delete s['healthCheckNodePort'];
  if (old['type'] === 'LoadBalancer' && s['type'] !== 'LoadBalancer') {
    const a = old['allocateLoadBalancerNodePorts'];
    if (typeof a === 'boolean' && a === s['allocateLoadBalancerNodePorts']) delete s['allocateLoadBalancerNodePorts'];
    if ((old['loadBalancerClass'] ?? null) === (s['loadBalancerClass'] ?? null)) delete s['loadBalancerClass'];
  }
  if (externallyAccessible(old) && !externallyAccessible(s) && sameText(old['externalTrafficPolicy'], s['externalTrafficPolicy'])) delete s['externalTrafficPolicy'];
}

// ---------------------------------------------------------------- apps/v1

function replicasDefault(s: Obj): void {
  if (s['replicas'] === undefined || s['replicas'] === null) s['replicas'] = 1;
}

function historyDefault(s: Obj): void {
  if (s['revisionHistoryLimit'] === undefined || s['revisionHistoryLimit'] === null) s['revisionHistoryLimit'] = 10;
}

function deploymentDefaults(s: Obj): void {
  replicasDefault(s);
  const strategy = child(s, 'strategy');
  if (unset(strategy['type'])) strategy['type'] = 'RollingUpdate';
  if (strategy['type'] === 'RollingUpdate') {
    const ru = child(strategy, 'rollingUpdate');
    if (ru['maxUnavailable'] === undefined || ru['maxUnavailable'] === null) ru['maxUnavailable'] = '25%';
    if (ru['maxSurge'] === undefined || ru['maxSurge'] === null) ru['maxSurge'] = '25%';
  }
  historyDefault(s);
  if (s['progressDeadlineSeconds'] === undefined || s['progressDeadlineSeconds'] === null) s['progressDeadlineSeconds'] = 600;
  templateDefaults(s);
}

function statefulSetDefaults(s: Obj): void {
  if (unset(s['podManagementPolicy'])) s['podManagementPolicy'] = 'OrderedReady';
  const us = child(s, 'updateStrategy');
  if (unset(us['type'])) {
    us['type'] = 'RollingUpdate';
    child(us, 'rollingUpdate');
  }
  const ru = us['rollingUpdate'];
  if (us['type'] === 'RollingUpdate' && isObj(ru) && (ru['partition'] === undefined || ru['partition'] === null)) ru['partition'] = 0;
  const retention = child(s, 'persistentVolumeClaimRetentionPolicy');
  if (unset(retention['whenDeleted'])) retention['whenDeleted'] = 'Retain';
  if (unset(retention['whenScaled'])) retention['whenScaled'] = 'Retain';
  replicasDefault(s);
  historyDefault(s);
  templateDefaults(s);
  each(s['volumeClaimTemplates'], (pvc) => {
    if (isObj(pvc['spec'])) pvcSpecDefaults(pvc['spec']);
    const st = child(pvc, 'status');
    if (unset(st['phase'])) st['phase'] = 'Pending';
  });
}

function daemonSetDefaults(s: Obj): void {
  const us = child(s, 'updateStrategy');
  if (unset(us['type'])) us['type'] = 'RollingUpdate';
  if (us['type'] === 'RollingUpdate') {
    const ru = child(us, 'rollingUpdate');
    if (ru['maxUnavailable'] === undefined || ru['maxUnavailable'] === null) ru['maxUnavailable'] = 1;
    if (ru['maxSurge'] === undefined || ru['maxSurge'] === null) ru['maxSurge'] = 0;
  }
  historyDefault(s);
  templateDefaults(s);
}

// ---------------------------------------------------------------- batch/v1

function jobDefaults(s: Obj, o: StoredObject, cur: StoredObject | undefined): void {
  if ((s['completions'] === undefined || s['completions'] === null) && (s['parallelism'] === undefined || s['parallelism'] === null)) s['completions'] = 1;
  if (s['parallelism'] === undefined || s['parallelism'] === null) s['parallelism'] = 1;
  if (s['backoffLimit'] === undefined || s['backoffLimit'] === null) s['backoffLimit'] = s['backoffLimitPerIndex'] !== undefined && s['backoffLimitPerIndex'] !== null ? 2147483647 : 6;
  const t = s['template'];
  const tm = isObj(t) && isObj(t['metadata']) ? t['metadata'] : undefined;
  // the Job's own labels, when it has none, are its Pods' (as the user wrote them, before the generated ones)
  if (tm !== undefined && isObj(tm['labels']) && Object.keys(o.metadata.labels).length === 0) o.metadata.labels = sortedShallow({ ...(tm['labels'] as Record<string, string>) });
  if (unset(s['completionMode'])) s['completionMode'] = 'NonIndexed';
  if (s['suspend'] === undefined || s['suspend'] === null) s['suspend'] = false;
  const pfp = s['podFailurePolicy'];
  if (isObj(pfp)) {
    each(pfp['rules'], (r) =>
      each(r['onPodConditions'], (c) => {
        if (unset(c['status'])) c['status'] = 'True';
      }),
    );
  }
  if (unset(s['podReplacementPolicy'])) s['podReplacementPolicy'] = isObj(pfp) ? 'Failed' : 'TerminatingOrFailed';
  templateDefaults(s);
  // the Job registry's PrepareForCreate: a selector of the Job's uid, and its labels on the template
  if (cur === undefined && s['manualSelector'] !== true && isObj(t)) {
    const uid = o.metadata.uid;
    const meta = child(t, 'metadata');
    meta['labels'] = sortedShallow({
      ...(isObj(meta['labels']) ? meta['labels'] : {}),
      'batch.kubernetes.io/controller-uid': uid,
      'batch.kubernetes.io/job-name': o.metadata.name,
      'controller-uid': uid,
      'job-name': o.metadata.name,
    });
    // a selector the request gave keeps its terms, the uid added (validation then refuses it: workload-validation.ts)
    const given = isObj(s['selector']) ? (s['selector'] as Obj) : undefined;
    const matchLabels = given !== undefined && isObj(given['matchLabels']) ? (given['matchLabels'] as Record<string, string>) : {};
    s['selector'] = { ...(given ?? {}), matchLabels: sortedShallow({ ...matchLabels, 'batch.kubernetes.io/controller-uid': matchLabels['batch.kubernetes.io/controller-uid'] ?? uid }) };
  }
}

function cronJobDefaults(s: Obj): void {
  if (unset(s['concurrencyPolicy'])) s['concurrencyPolicy'] = 'Allow';
  if (s['suspend'] === undefined || s['suspend'] === null) s['suspend'] = false;
  if (s['successfulJobsHistoryLimit'] === undefined || s['successfulJobsHistoryLimit'] === null) s['successfulJobsHistoryLimit'] = 3;
  if (s['failedJobsHistoryLimit'] === undefined || s['failedJobsHistoryLimit'] === null) s['failedJobsHistoryLimit'] = 1;
  // the job template's JobSpec has no defaulter of its own: only its Pod template is defaulted
  const jt = s['jobTemplate'];
  if (isObj(jt) && isObj(jt['spec'])) templateDefaults(jt['spec']);
}

// ---------------------------------------------------------------- networking/v1, rbac/v1, the rest of core/v1

function networkPolicyDefaults(s: Obj): void {
  for (const dir of ['ingress', 'egress']) {
    each(s[dir], (rule) =>
      each(rule['ports'], (p) => {
        if (unset(p['protocol'])) p['protocol'] = 'TCP';
      }),
    );
  }
  if (!Array.isArray(s['policyTypes']) || s['policyTypes'].length === 0) {
    s['policyTypes'] = Array.isArray(s['egress']) && s['egress'].length > 0 ? ['Ingress', 'Egress'] : ['Ingress'];
  }
}

const RBAC_GROUP = 'rbac.authorization.k8s.io';

const bindingDefaults: Defaulter = (o, cur) => {
  const ref = o['roleRef'];
  if (isObj(ref) && ref !== cur?.['roleRef'] && unset(ref['apiGroup'])) ref['apiGroup'] = RBAC_GROUP;
  if (o['subjects'] === cur?.['subjects']) return;
  each(o['subjects'], (sub) => {
    // a ServiceAccount's group is "" (left out when served)
    if (unset(sub['apiGroup']) && (sub['kind'] === 'User' || sub['kind'] === 'Group')) sub['apiGroup'] = RBAC_GROUP;
  });
};

const serviceSpecDefaults = onSpec(serviceDefaults);

const DEFAULTERS: ReadonlyMap<string, Defaulter> = new Map<string, Defaulter>([
  ['Pod', (o, cur, alloc) => {
    podDefaulter(o, cur, alloc);
    // the pod registry's PrepareForCreate: a new Pod is Pending until the kubelet says more (a
    // harness actor standing for the kubelet may create one with its phase already)
    if (cur === undefined) {
      if (!isObj(o.status)) o.status = {};
      if (unset((o.status as Obj)['phase'])) (o.status as Obj)['phase'] = 'Pending';
      // ... and its QoS class, from the defaulted spec
      (o.status as Obj)['qosClass'] = podQOSClass(o.spec);
    } else if (isObj(o.status) && o.status !== cur.status && unset((o.status as Obj)['qosClass']) && isObj(cur.status) && !unset((cur.status as Obj)['qosClass'])) {
      // the pod status strategy: immutable, backfilled when a status write leaves it out
      o.status = { ...(o.status as Obj), qosClass: (cur.status as Obj)['qosClass'] } as StoredObject['status'];
    }
  }],
  ['Service', (o, cur, alloc) => {
    serviceSpecDefaults(o, cur, alloc);
    // ServiceStatus.LoadBalancer is a struct, not a pointer: every Service has `loadBalancer: {}`, as
    // kube-apiserver serves it, whatever a write sent, a status write too (a Service that was a
    // LoadBalancer once and one that never was look the same once cleared: corpus service-lb's
    // recovery, hunt seed 613 run 11)
    const st = o.status as unknown;
    if (!isObj(st) || !isObj(st['loadBalancer'])) o.status = { ...(isObj(st) ? st : {}), loadBalancer: {} } as StoredObject['status'];
  }],
  ['Deployment', onSpec(deploymentDefaults)],
  ['ReplicaSet', onSpec((s) => (replicasDefault(s), templateDefaults(s)))],
  ['StatefulSet', onSpec(statefulSetDefaults)],
  ['DaemonSet', onSpec(daemonSetDefaults)],
  ['Job', onSpec(jobDefaults)],
  ['CronJob', onSpec(cronJobDefaults)],
  ['PersistentVolumeClaim', (o, cur) => {
    if (isObj(o.spec) && o.spec !== cur?.spec) pvcSpecDefaults(o.spec as Obj);
    if (cur === undefined && isObj(o.status) && unset((o.status as Obj)['phase'])) (o.status as Obj)['phase'] = 'Pending';
  }],
  ['NetworkPolicy', onSpec(networkPolicyDefaults)],
  // discovery/v1 SetDefaults_EndpointPort: a port's name is "" (a pointer, served), its protocol TCP
  ['EndpointSlice', (o, cur) => {
    if (o['ports'] === cur?.['ports']) return;
    each(o['ports'], (p) => {
      if (p['name'] === undefined || p['name'] === null) p['name'] = '';
      if (p['protocol'] === undefined || p['protocol'] === null) p['protocol'] = 'TCP';
    });
  }],
  // core/v1 SetDefaults_Endpoints: every subset port's protocol is TCP
  ['Endpoints', (o, cur) => {
    if (o['subsets'] === cur?.['subsets']) return;
    each(o['subsets'], (sub) =>
      each(sub['ports'], (p) => {
        if (unset(p['protocol'])) p['protocol'] = 'TCP';
      }),
    );
  }],
  ['Secret', (o) => {
    if (unset(o['type'])) o['type'] = 'Opaque';
  }],
  ['Namespace', (o, cur) => {
    // SetDefaults_Namespace: its name as a label (a Namespace has a name: generateName is refused for it)
    if (o.metadata.labels['kubernetes.io/metadata.name'] !== o.metadata.name) o.metadata.labels = sortedShallow({ ...o.metadata.labels, 'kubernetes.io/metadata.name': o.metadata.name });
    // the namespace registry's PrepareForCreate: a new Namespace is Active (its status as sent is
    // dropped); SetDefaults_NamespaceStatus: a status written without a phase is Active. The store
    // sets Terminating with the deletionTimestamp.
    if (cur === undefined) o.status = { phase: 'Active' };
    else if (isObj(o.status) && o.status !== cur.status && unset((o.status as Obj)['phase'])) o.status = { ...(o.status as Obj), phase: 'Active' };
  }],
  ['RoleBinding', bindingDefaults],
  ['ClusterRoleBinding', bindingDefaults],
]);
