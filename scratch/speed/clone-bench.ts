import { cloneJson } from '../../src/store/object.js';
function cloneSpread(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const out = new Array(value.length);
    for (let i = 0; i < value.length; i++) out[i] = cloneSpread(value[i]);
    return out;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  const out = { ...(value as object) } as Record<string, unknown>;
  for (const k in out) {
    const v = out[k];
    if (v !== null && typeof v === 'object') out[k] = cloneSpread(v);
  }
  return out;
}
const thing = JSON.parse('{"kind":"Thing","metadata":{"annotations":{},"creationTimestamp":"2026-01-01T00:00:00.000Z","finalizers":[],"generation":1,"labels":{},"name":"t","namespace":"default","ownerReferences":[],"resourceVersion":"5","uid":"uid-9d9888e11288ed55"},"spec":{"i":1},"status":{"n":5}}');
const pod = JSON.parse('{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web-abc","namespace":"default","uid":"u1","resourceVersion":"10","generation":1,"creationTimestamp":"2026-01-01T00:00:00.000Z","labels":{"app":"web","pod-template-hash":"abc"},"annotations":{},"finalizers":[],"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web","uid":"u0","controller":true,"blockOwnerDeletion":true}]},"spec":{"containers":[{"name":"web","image":"nginx:1.27","resources":{},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","imagePullPolicy":"IfNotPresent"}],"restartPolicy":"Always","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","securityContext":{},"schedulerName":"default-scheduler","enableServiceLinks":true,"preemptionPolicy":"PreemptLowerPriority","priority":0,"tolerations":[{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":300}]},"status":{"phase":"Pending","qosClass":"BestEffort"}}');
for (const [name, o] of [['thing', thing], ['pod', pod]] as const) {
  for (const [fn, f] of [['cloneJson', cloneJson], ['spread', cloneSpread], ['cloneJson', cloneJson], ['spread', cloneSpread]] as const) {
    const t0 = performance.now(); let x = 0;
    for (let i = 0; i < 300000; i++) x += (f(o) as { kind: string }).kind.length;
    console.log(name, fn, ((performance.now() - t0) / 300).toFixed(3), 'µs', x > 0);
  }
}
