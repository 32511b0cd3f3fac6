// Microbenchmark of cloneJson variants on the hot loop's stored object.
import { cloneJson } from '../../src/store/object.js';
const o = JSON.parse('{"kind":"Thing","metadata":{"annotations":{},"creationTimestamp":"2026-01-01T00:00:00.000Z","finalizers":[],"generation":1,"labels":{},"name":"t","namespace":"default","ownerReferences":[],"resourceVersion":"10024","uid":"uid-9d9888e11288ed55"},"spec":{"i":1},"status":{"n":10019}}');
const isArray = Array.isArray;
const protoOf = Object.getPrototypeOf;
const OP = Object.prototype;
function c2<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  if (isArray(value)) {
    const n = value.length;
    const out = new Array(n);
    for (let i = 0; i < n; i++) { const v = value[i]; out[i] = v === null || typeof v !== 'object' ? v : c2(v); }
    return out as T;
  }
  const proto = protoOf(value) as unknown;
  if (proto !== OP && proto !== null) return value;
  const out: Record<string, unknown> = {};
  for (const k in value as Record<string, unknown>) {
    const v = (value as Record<string, unknown>)[k];
    if (v === undefined) continue;
    out[k] = v === null || typeof v !== 'object' ? v : c2(v);
  }
  return out as T;
}
function c3<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  if (isArray(value)) {
    const n = value.length;
    const out = new Array(n);
    for (let i = 0; i < n; i++) { const v = value[i]; out[i] = v === null || typeof v !== 'object' ? v : c3(v); }
    return out as T;
  }
  const proto = protoOf(value) as unknown;
  if (proto !== OP && proto !== null) return value;
  const out: Record<string, unknown> = {};
  const ks = Object.keys(value as object);
  for (let i = 0; i < ks.length; i++) {
    const k = ks[i]!;
    const v = (value as Record<string, unknown>)[k];
    if (v === undefined) continue;
    out[k] = v === null || typeof v !== 'object' ? v : c3(v);
  }
  return out as T;
}
function c4<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  if (isArray(value)) {
    const n = value.length;
    const out = new Array(n);
    for (let i = 0; i < n; i++) { const v = value[i]; out[i] = v === null || typeof v !== 'object' ? v : c4(v); }
    return out as T;
  }
  const proto = protoOf(value) as unknown;
  if (proto !== OP && proto !== null) return value;
  const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const k in out) {
    const v = out[k];
    if (v === null || typeof v !== 'object') { if (v === undefined) return cloneJson(value); continue; }
    out[k] = c4(v);
  }
  return out as T;
}
function mk(n: number) { return { kind: 'Thing', metadata: { annotations: {}, creationTimestamp: '2026-01-01T00:00:00.000Z', finalizers: [], generation: 1, labels: {}, name: 't', namespace: 'default', ownerReferences: [], resourceVersion: String(n), uid: 'uid-9d9888e11288ed55' }, spec: { i: 1 }, status: { n } }; }
const lit = mk(5);
const fns: [string, (x: unknown) => unknown][] = [['cloneJson', cloneJson], ['inline-leaves', c2], ['keys', c3], ['spread', c4]];
let sink = 0;
for (let round = 0; round < 3; round++) {
  for (const [name, f] of fns) for (const [oname, obj] of [['parsed', o], ['literal', lit]] as const) {
    const N = 400_000;
    const t0 = process.cpuUsage();
    for (let i = 0; i < N; i++) sink += (f(obj) as { spec: { i: number } }).spec.i;
    const t = process.cpuUsage(t0);
    if (round === 2) console.log(name.padEnd(16), oname.padEnd(8), (((t.user + t.system) * 1000) / N).toFixed(0), 'ns/clone');
  }
}
console.log(sink > 0);
