// Per-test durations of one file's A/B reports: node ab-tests.mjs <file-name> (reads /tmp/early-ab)
import { readdirSync, readFileSync } from 'node:fs';
const dir = '/tmp/early-ab', name = process.argv[2];
const t = new Map();
for (const f of readdirSync(dir).filter((f) => f.endsWith('.json') && f.includes(`-${name}-`))) {
  const v = f.split('-')[0];
  const r = JSON.parse(readFileSync(`${dir}/${f}`, 'utf8'));
  for (const x of r.testResults) for (const a of x.assertionResults) {
    if (!t.has(a.title)) t.set(a.title, { base: [], mine: [] });
    t.get(a.title)[v].push(Math.round(a.duration ?? 0));
  }
}
for (const [k, v] of t) console.log(`${v.base.join(',').padStart(14)} | ${v.mine.join(',').padEnd(14)} ${k.slice(0, 110)}`);
