import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/sim/clock.js';
import { ObjectStore } from '../../src/store/store.js';
import { createKubeApi, type KubeApiOptions } from '../../src/kube-rest/kube-api.js';
import { kubeController } from '../../src/kube-rest/kube-controller.js';
import { kubeconfigFor } from '../../src/kube-rest/kubeconfig.js';
import { startLoopback } from '../../src/kube-rest/loopback.js';
import { kubeRestHandlers } from '../../src/kube-rest/msw.js';

const store = () => new ObjectStore({ clock: new VirtualClock() });

describe('kube-rest options fail fast, naming the API and the fix', () => {
  it('createKubeApi', () => {
    expect(() => createKubeApi({} as KubeApiOptions)).toThrow(/^steadystate\.createKubeApi: pass \{ store \}/);
    expect(() => createKubeApi({ store: store(), requestLatencyMs: -1 })).toThrow(/steadystate\.createKubeApi: requestLatencyMs must be a finite number ≥ 0/);
    expect(() => createKubeApi({ store: store(), resources: [{ group: 'x.io', version: 'v1', kind: 'widget', plural: 'widgets' }] })).toThrow(/"kind" must be CamelCase like 'WebApp', got "widget"/);
    expect(() => createKubeApi({ store: store(), resources: [{ group: 'x.io', version: 'v1', kind: 'Widget', plural: 'Widgets' }] })).toThrow(/"plural" must be lower-case/);
  });

  it('kubeController', () => {
    expect(() => kubeController({ name: 'c', for: 'X' } as never)).toThrow(/^steadystate\.kubeController\(\{ name: "c" \}\): "start" must be a function/);
    expect(() => kubeController({ name: 'c', for: 'X', requestLatencyMs: 0, start: () => () => {} })).toThrow(/requestLatencyMs must be a number ≥ 1/);
    expect(() => kubeController({ name: 'bad name', for: 'X', start: () => () => {} })).toThrow(/steadystate\.defineController/);
    const def = kubeController({ name: 'c', for: 'X', start: () => () => {} });
    expect(def.process).toBeDefined();
    expect(def.name).toBe('c');
  });

  it('kubeconfigFor, kubeRestHandlers and startLoopback', async () => {
    expect(() => kubeconfigFor({ server: 'localhost:6443' })).toThrow(/steadystate\.kubeconfigFor: server must be an http\(s\) URL/);
    const api = createKubeApi({ store: store() });
    expect(() => kubeRestHandlers(api, { baseUrl: 'steadystate.invalid' })).toThrow(/steadystate\.kubeRestHandlers: baseUrl must be an http\(s\) URL/);
    await expect(startLoopback(api, { port: 70000 })).rejects.toThrow(/steadystate\.startLoopback: port must be an integer in 0\.\.65535/);
    expect(JSON.parse(kubeconfigFor({ server: 'http://127.0.0.1:1', token: 't', namespace: 'ns' }))).toMatchObject({
      clusters: [{ cluster: { server: 'http://127.0.0.1:1', 'insecure-skip-tls-verify': true } }],
      users: [{ user: { token: 't' } }],
      contexts: [{ context: { namespace: 'ns' } }],
    });
  });
});
