import { VirtualClock } from '../../src/sim/clock.js';
import { ObjectStore } from '../../src/store/store.js';
// CPU of 20,000 updates of a Pod with resources (a Pod template write path), 3 rounds
const rounds: number[] = [];
for (let r = 0; r < 4; r++) {
  const store = new ObjectStore({ clock: new VirtualClock() });
  const containers = [0, 1, 2].map((i) => ({ name: `c${i}`, image: 'x:1', resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '1', memory: '1Gi' } } }));
  let d = store.create('u', { kind: 'Deployment', metadata: { name: 'd', namespace: 'default' }, spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers } } } });
  const t0 = process.cpuUsage();
  for (let i = 0; i < 20_000; i++) d = store.update('u', { ...d, spec: { ...(d.spec as object), replicas: i % 5 } });
  const u = process.cpuUsage(t0);
  rounds.push((u.user + u.system) / 1000);
}
console.log('CPU ms per round', rounds.map(Math.round), 'median of last 3', Math.round([...rounds.slice(1)].sort((a, b) => a - b)[1]!));
