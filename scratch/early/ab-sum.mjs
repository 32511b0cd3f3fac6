// Sums per-test durations of the A/B JSON reports: node ab-sum.mjs  (reads /tmp/early-ab)
import { readdirSync, readFileSync } from 'node:fs';
const dir = '/tmp/early-ab';
const rows = new Map();
for (const f of readdirSync(dir).filter((f) => f.endsWith('.json'))) {
  const [v, ...rest] = f.replace('.json', '').split('-');
  const rep = rest.pop();
  const file = rest.join('-');
  const r = JSON.parse(readFileSync(`${dir}/${f}`, 'utf8'));
  let sum = 0, failed = 0;
  for (const t of r.testResults) for (const a of t.assertionResults) { sum += a.duration ?? 0; if (a.status !== 'passed') failed++; }
  const k = `${file}`;
  if (!rows.has(k)) rows.set(k, { base: [], mine: [] });
  rows.get(k)[v].push(`${(sum / 1000).toFixed(1)}${failed ? `(${failed} failed)` : ''}`);
}
for (const [k, v] of rows) console.log(k.padEnd(22), 'base', v.base.join(' '), '| mine', v.mine.join(' '));
