import { deletionCompletes } from '../../../properties/deletion-completes.js';
import { sameEndState } from '../../../properties/same-end-state.js';
import { fakeRestService } from '../../../src/index.js';
import { CLIENT_TIMEOUT_MS, endStateMasks, type BugZooEntry } from '../zoo-entry.js';
import { buggyDnsRecord } from './buggy.js';
import { dnsRecord } from './correct.js';
import { DNS_API, DNS_KIND } from './dns-record.js';

export const stuckDeletion: BugZooEntry = {
  name: 'stuck-deletion',
  family: 'classic bug',
  description: 'a DNSRecord controller with a finalizer treats "record already gone" (404) as a cleanup failure, so an interrupted cleanup never finishes',
  caughtBy: 'deletion-completes',
  property: () => deletionCompletes(),
  buggy: [buggyDnsRecord],
  correct: [dnsRecord],
  options: {
    objects: {
      kind: DNS_KIND,
      name: 'www',
      spec: [
        { fqdn: 'www.example.com', type: 'A', value: '203.0.113.10' },
        { fqdn: 'www.example.com', type: 'A', value: '203.0.113.20', ttl: 60 },
      ],
    },
    downstream: () => ({ services: [fakeRestService({ baseUrl: DNS_API, idempotencyKeyHeader: 'Idempotency-Key' })], timeoutMs: CLIENT_TIMEOUT_MS }),
  },
  extraFaults: [],
  properties: [sameEndState({ masks: endStateMasks('status.recordId') })],
  reproduction: {
    seed: 1,
    controllers: [{ name: 'dns-record' }],
    initialObjects: [],
    workload: [
      { at: 0, type: 'create', object: { kind: DNS_KIND, metadata: { name: 'www', namespace: 'default' }, spec: { fqdn: 'www.example.com', type: 'A', value: '203.0.113.10' } } },
      { at: 5_000, type: 'delete', kind: DNS_KIND, key: 'default/www' },
    ],
    // the controller's third write is the finalizer removal: someone touches the object first (409)
    faults: { events: [{ kind: 'api-conflict', nth: 2 }], background: [] },
    options: { faultWindowMs: 10_000, settleMs: 30_000 },
  },
};
