import { responsiveness } from '../../../properties/responsiveness.js';
import { sameEndState } from '../../../properties/same-end-state.js';
import type { NewObject } from '../../../src/index.js';
import { endStateMasks, type BugZooEntry } from '../zoo-entry.js';
import { buggyIngress } from './buggy.js';
import { ingress } from './correct.js';
import { FOR_ANNOTATION, INGRESS_KIND, SECRET_KIND, type IngressSpec } from './ingress.js';

// generated objects are named shop-0, shop-tls-0, …: the first Ingress serves the first Secret
const shop: IngressSpec = { host: 'shop.example.com', backend: 'shop:8080', tlsSecret: 'shop-tls-0' };
const cert = (version: number) => ({ host: 'shop.example.com', 'tls.crt': `CERTIFICATE(shop.example.com, v${version})` });

function create(kind: string, name: string, spec: IngressSpec | ReturnType<typeof cert>, annotations?: Record<string, string>): NewObject {
  return { kind, metadata: { name, namespace: 'default', ...(annotations ? { annotations } : {}) }, spec: { ...spec } };
}

export const heavyHandler: BugZooEntry = {
  name: 'heavy-handler',
  family: 'anti-pattern',
  description: 'an Ingress controller looks each certificate up at the CA (3 s) inside its Secret watch handler, so every route change waits behind it',
  caughtBy: 'responsiveness',
  property: () => responsiveness(),
  buggy: [buggyIngress],
  correct: [ingress],
  options: {
    // the Ingress first: a generated world holds it alone, or it with its TLS Secret
    objects: [
      { kind: INGRESS_KIND, name: 'shop', spec: [{ ...shop }, { ...shop, backend: 'shop-v2:8080' }] },
      { kind: SECRET_KIND, name: 'shop-tls', annotations: { [FOR_ANNOTATION]: 'shop-0' }, spec: [cert(1), cert(2)] },
    ],
  },
  extraFaults: [],
  properties: [sameEndState({ masks: endStateMasks() })],
  reproduction: {
    seed: 1,
    controllers: [{ name: 'ingress' }],
    initialObjects: [],
    workload: [
      { at: 0, type: 'create', object: create(SECRET_KIND, 'shop-tls-0', cert(1), { [FOR_ANNOTATION]: 'shop-0' }) },
      { at: 0, type: 'create', object: create(INGRESS_KIND, 'shop-0', shop) },
    ],
    faults: { events: [], background: [] },
    options: { faultWindowMs: 5_000, settleMs: 20_000 },
  },
};
