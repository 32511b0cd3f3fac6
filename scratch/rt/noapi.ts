// npx tsx scratch/rt/noapi.ts: node-report's twin that writes ConfigMap status, with the ConfigMap created without apiVersion
import { check, defaultProperties, properties } from '../../src/index.js';
import { nodeReportCase, nodeReportNoApiTwin } from './fixtures/controllers.js';
const props = [...defaultProperties().filter((p) => p.name !== 'same-end-state' && p.name !== 'recovery'), properties.sameEndState({ masks: ['spec.nodeName', 'status.hostIP', 'status.podIP', 'status.pods', 'status.running'] })];
const r = await check([nodeReportNoApiTwin], { ...nodeReportCase.options, properties: props, runs: 30, seed: 1 });
console.log(r.ok ? 'PASS (hole: kube answers 404 to every status write of a ConfigMap)' : `FAIL ${r.property}: ${r.summary}`);
