import { describe, expect, it } from 'vitest';
import { apiFixture } from '../../conformance/kube-helpers.js';
import { makeStore } from './helpers.js';

/*
 * Status fields kube-apiserver itself writes: a Pod's QoS class at create (the pod registry's
 * PrepareForCreate, qos.ComputePodQOS) and the clearing of a Service's load balancer status when
 * it stops being of type LoadBalancer (the service registry's dropTypeDependentFields).
 */

const container = (name: string, resources?: Record<string, Record<string, unknown>>) => ({ name, image: 'x:1', ...(resources ? { resources } : {}) });
const qos = (containers: unknown[], initContainers: unknown[] = []) => {
  const { store } = makeStore();
  return store.create('ctl', { kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec: { containers, ...(initContainers.length > 0 ? { initContainers } : {}) } }).status['qosClass'];
};

describe('Pod status.qosClass, set at create as kube computes it', () => {
  it('BestEffort: no cpu/memory request or limit (other resources and zero amounts do not count)', () => {
    expect(qos([container('a')])).toBe('BestEffort');
    expect(qos([container('a', { requests: { 'ephemeral-storage': '1Gi', cpu: '0' } })])).toBe('BestEffort');
  });

  it('Guaranteed: every container has cpu and memory limits and requests equal to them (requests defaulted from limits; 1 and 1000m are equal)', () => {
    expect(qos([container('a', { limits: { cpu: '1', memory: '1Gi' } })])).toBe('Guaranteed');
    expect(qos([container('a', { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '1000m', memory: '1024Mi' } }), container('b', { limits: { cpu: '0.5', memory: '512Mi' } })])).toBe('Guaranteed');
    expect(qos([container('a', { limits: { cpu: '1', memory: '1Gi' } })], [container('i', { limits: { cpu: '1', memory: '1Gi' } })])).toBe('Guaranteed');
  });

  it('Burstable: a request under its limit, a container without limits, a limit on cpu only', () => {
    expect(qos([container('a', { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '500m' } })])).toBe('Burstable');
    expect(qos([container('a', { limits: { cpu: '1', memory: '1Gi' } }), container('b')])).toBe('Burstable');
    expect(qos([container('a', { limits: { cpu: '1' } })])).toBe('Burstable');
    expect(qos([container('a', { limits: { cpu: '1', memory: '1Gi' } })], [container('i', { requests: { cpu: '100m' } })])).toBe('Burstable');
  });

  it('a status write that leaves it out keeps it (the pod status strategy backfills it)', () => {
    const { store } = makeStore();
    const p = store.create('ctl', { kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec: { containers: [container('a', { limits: { cpu: '1', memory: '1Gi' } })] } });
    const s = store.updateStatus('kubelet', { ...p, status: { phase: 'Running' } });
    expect(s.status).toEqual({ phase: 'Running', qosClass: 'Guaranteed' });
  });

  it('over the REST API, the created Pod is answered with its class', async () => {
    const f = apiFixture();
    const r = await f.req('POST', '/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [container('a', { requests: { cpu: '100m' } })] } });
    expect(r.status).toBe(201);
    expect((r.json as { status: unknown }).status).toMatchObject({ phase: 'Pending', qosClass: 'Burstable' });
  });
});

describe('Service status.loadBalancer is cleared when the Service stops being of type LoadBalancer', () => {
  it('LoadBalancer -> ClusterIP by read-modify-write: the ingress the load balancer controller wrote is gone; LoadBalancer -> LoadBalancer keeps it', () => {
    const { store } = makeStore();
    const svc = store.create('ctl', { kind: 'Service', metadata: { name: 's', namespace: 'default' }, spec: { type: 'LoadBalancer', selector: { app: 'a' }, ports: [{ port: 80 }] } });
    const withLb = store.updateStatus('service-controller', { ...svc, status: { loadBalancer: { ingress: [{ ip: '203.0.113.7' }] } } });
    const relabelled = store.update('ctl', { ...withLb, metadata: { ...withLb.metadata, labels: { a: 'b' } } });
    expect(relabelled.status).toEqual({ loadBalancer: { ingress: [{ ip: '203.0.113.7' }] } });
    const spec: Record<string, unknown> = { ...(relabelled.spec as Record<string, unknown>), type: 'ClusterIP' };
    delete spec['allocateLoadBalancerNodePorts'];
    for (const p of spec['ports'] as Record<string, unknown>[]) delete p['nodePort'];
    delete spec['externalTrafficPolicy'];
    const cip = store.update('ctl', { ...relabelled, spec: spec as never });
    expect((cip.spec as Record<string, unknown>)['type']).toBe('ClusterIP');
    expect(cip.status).toEqual({ loadBalancer: {} });
  });

  it('every Service has status.loadBalancer {} (a struct in ServiceStatus, served always): at create, after a status write without it, over HTTP', async () => {
    const { store } = makeStore();
    const svc = store.create('ctl', { kind: 'Service', metadata: { name: 's', namespace: 'default' }, spec: { ports: [{ port: 80 }] } });
    expect(svc.status).toEqual({ loadBalancer: {} });
    expect(store.updateStatus('ctl', { ...svc, status: { conditions: [] } }).status).toEqual({ conditions: [], loadBalancer: {} });
    const f = apiFixture();
    const made = await f.req('POST', '/api/v1/namespaces/default/services', { apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { ports: [{ port: 80 }] } });
    expect(made.json.status).toEqual({ loadBalancer: {} });
  });
});
