import { responsiveness } from '../../../properties/responsiveness.js';
import { sameEndState } from '../../../properties/same-end-state.js';
import { fakeRestService, type NewObject } from '../../../src/index.js';
import { CLIENT_TIMEOUT_MS, endStateMasks, type BugZooEntry } from '../zoo-entry.js';
import { buggyCertificate } from './buggy.js';
import { ACME_DNS_API, CERT_KIND } from './certificate.js';
import { certificate } from './correct.js';

function cert(name: string, dnsName: string): NewObject {
  return { kind: CERT_KIND, metadata: { name, namespace: 'default' }, spec: { dnsName } };
}

export const blockingReconcile: BugZooEntry = {
  name: 'blocking-reconcile',
  family: 'anti-pattern',
  description: 'a Certificate controller sleeps 10 s inside reconcile waiting for a DNS-01 challenge to propagate, starving every other certificate',
  caughtBy: 'responsiveness',
  property: () => responsiveness(),
  buggy: [buggyCertificate],
  correct: [certificate],
  options: {
    objects: { kind: CERT_KIND, name: 'shop', spec: [{ dnsName: 'shop.example.com' }, { dnsName: 'www.shop.example.com' }] },
    downstream: () => ({ services: [fakeRestService({ baseUrl: ACME_DNS_API })], timeoutMs: CLIENT_TIMEOUT_MS }),
  },
  extraFaults: [],
  properties: [sameEndState({ masks: endStateMasks() })],
  reproduction: {
    seed: 1,
    controllers: [{ name: 'certificate' }],
    initialObjects: [],
    workload: [
      { at: 0, type: 'create', object: cert('shop', 'shop.example.com') },
      { at: 0, type: 'create', object: cert('api', 'api.example.com') },
    ],
    faults: { events: [], background: [] },
    options: { faultWindowMs: 5_000, settleMs: 50_000 },
  },
};
