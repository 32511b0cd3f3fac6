import { check } from '../src/check.js';
import { hotLoopCorrect, hotLoopBuggy } from '../examples/property-targets/hot-loop.js';
import { podsCorrect } from '../examples/property-targets/pods.js';
import { dnsCorrect, dnsDownstream } from '../examples/property-targets/dns.js';
import { levelTriggered } from '../examples/replicas/level-triggered.js';
const which = process.argv[2];
const targets: Record<string, [unknown, object]> = {
  widget: [hotLoopCorrect, { objects: { kind: 'Widget', spec: { size: 2 } } }],
  widgetBuggy: [hotLoopBuggy, { objects: { kind: 'Widget', spec: { size: 2 } } }],
  level: [levelTriggered, { objects: { kind: 'ReplicaSet', spec: { replicas: 3 }, status: { replicas: 0 } } }],
  pods: [podsCorrect, { objects: { kind: 'ReplicaSet', spec: { replicas: 2 } } }],
  dns: [dnsCorrect, { objects: { kind: 'Domain', spec: { host: 'a.example.com' } }, downstream: dnsDownstream }],
};
const [c, extra] = targets[which]!;
const t0 = performance.now();
const r = await check(c as never, { runs: Number(process.argv[3] ?? 100), seed: 1, ...extra } as never);
console.log(which, r.ok, r.runs, ((performance.now() - t0) / 1000).toFixed(1) + 's');
if (!r.ok) console.log(r.property, r.summary, '\n', r.explanation, '\n', JSON.stringify(r.scenario));
