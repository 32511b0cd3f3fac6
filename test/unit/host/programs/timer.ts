/**
 * Host fixture: a program as users write one. It builds its client at module load with
 * loadFromDefault(), stamps times with Date, waits with setTimeout and timers/promises, logs with
 * console, and writes one ConfigMap per step so the test can read what happened when.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';

const kc = new KubeConfig();
kc.loadFromDefault();
const core = kc.makeApiClient(CoreV1Api);
const loadedAt = Date.now();
let steps = 0;

async function mark(name: string): Promise<void> {
  steps++;
  await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name }, data: { date: new Date().toISOString(), perf: String(Math.round(performance.now())), loadedAt: String(loadedAt), steps: String(steps), host: process.env['HOSTNAME'] ?? '', args: process.argv.slice(2).join(' ') } } });
}

console.log(`started as ${process.env['HOSTNAME']} with ${process.argv.slice(2).join(' ')}`);
setTimeout(() => void mark(`${process.env['HOSTNAME']}-timeout`), 2_500);
const ticker = setInterval(() => {
  if (steps >= 3) clearInterval(ticker);
  else void mark(`${process.env['HOSTNAME']}-tick-${steps}`);
}, 1_000);
await sleep(4_000);
await mark(`${process.env['HOSTNAME']}-slept`);
console.error('done sleeping');
