'use strict';
// rt48 CJS-1 probe: records, in a ConfigMap, how many times its ES-module dependency's top level state was used
const { next } = require('./counter.mjs');
const k8s = require('@kubernetes/client-node');
const kc = new k8s.KubeConfig();
kc.loadFromDefault();
const core = kc.makeApiClient(k8s.CoreV1Api);
const n = next();
core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: `incarnation-${n}` }, data: { n: String(n) } } }).catch(() => undefined);
setInterval(() => undefined, 60_000);
