// medians per file over the A/B rounds in runs/ (summed test s and CPU s of vitest + children)
const fs = require('fs');
const R = __dirname + '/runs/';
const files = {
  'e2e/cli-hostile': [['cli-hostile-before', 'cli-hostile-after'], ['cli-hostile-before2', 'cli-hostile-after2'], ['e2e-cli-hostile-before3', 'e2e-cli-hostile-after3']],
  'e2e/cli-hostile-replay': [['cli-hostile-replay-before', 'cli-hostile-replay-after'], ['cli-hostile-replay-before2', 'cli-hostile-replay-after2'], ['e2e-cli-hostile-replay-before3', 'e2e-cli-hostile-replay-after3']],
  'e2e/cli-hostile-host': [['cli-hostile-host-before', 'cli-hostile-host-after'], ['cli-hostile-host-before2', 'cli-hostile-host-after2'], ['e2e-cli-hostile-host-before3', 'e2e-cli-hostile-host-after3']],
  'e2e/cli-fd1': [['cli-fd1-before', 'cli-fd1-after'], ['cli-fd1-before2', 'cli-fd1-after2'], ['e2e-cli-fd1-before3', 'e2e-cli-fd1-after3']],
  'e2e/cli-hostile-fork': [['cli-hostile-fork-before2', 'cli-hostile-fork-after2'], ['e2e-cli-hostile-fork-before3', 'e2e-cli-hostile-fork-after3']],
  'e2e/cli-hostile-corpus': [['cli-hostile-corpus-before2', 'cli-hostile-corpus-after2'], ['e2e-cli-hostile-corpus-before3', 'e2e-cli-hostile-corpus-after3']],
  'robustness/cli-usage': [['cli-usage-rob-before1', 'cli-usage-rob-after3'], ['robustness-cli-usage-before3', 'robustness-cli-usage-after3']],
  'e2e/cli-program-service': [['cli-program-service-before', 'cli-program-service-after'], ['e2e-cli-program-service-before3', 'e2e-cli-program-service-after3']],
  'e2e/cli-program': [['e2e-cli-program-before3', 'e2e-cli-program-after3']],
};
function read(label) {
  try {
    const r = JSON.parse(fs.readFileSync(R + label + '.json', 'utf8'));
    const [w, u, s] = fs.readFileSync(R + label + '.time', 'utf8').trim().split('\n').pop().split(' ').map(Number);
    let sum = 0, failed = 0;
    for (const t of r.testResults) for (const a of t.assertionResults) { sum += a.duration || 0; if (a.status === 'failed') failed++; }
    return { sum: sum / 1000, cpu: u + s, wall: w, failed };
  } catch { return undefined; }
}
const med = (xs) => { const s = [...xs].sort((a, b) => a - b); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
let tb = 0, ta = 0, cb = 0, ca = 0;
console.log('| file | rounds | summed test s before → after (median) | CPU s before → after (median) | failed before / after |');
console.log('|---|---|---|---|---|');
for (const [f, pairs] of Object.entries(files)) {
  const ok = pairs.map(([b, a]) => [read(b), read(a)]).filter(([b, a]) => b && a);
  if (!ok.length) continue;
  const sb = med(ok.map(([b]) => b.sum)), sa = med(ok.map(([, a]) => a.sum)), xb = med(ok.map(([b]) => b.cpu)), xa = med(ok.map(([, a]) => a.cpu));
  tb += sb; ta += sa; cb += xb; ca += xa;
  console.log(`| ${f} | ${ok.length} | ${sb.toFixed(0)} → ${sa.toFixed(0)} (${ok.map(([b, a]) => b.sum.toFixed(0) + '→' + a.sum.toFixed(0)).join(', ')}) | ${xb.toFixed(1)} → ${xa.toFixed(1)} (${ok.map(([b, a]) => b.cpu.toFixed(0) + '→' + a.cpu.toFixed(0)).join(', ')}) | ${ok.map(([b]) => b.failed).join(',')} / ${ok.map(([, a]) => a.failed).join(',')} |`);
}
console.log(`| total | | ${tb.toFixed(0)} → ${ta.toFixed(0)} (−${(tb - ta).toFixed(0)} s) | ${cb.toFixed(1)} → ${ca.toFixed(1)} (−${(cb - ca).toFixed(1)} s) | |`);

// CI estimate: the last clean-clone run's summed time per file, scaled by the measured ratios
const ci = JSON.parse(fs.readFileSync('/tmp/tmp.kKBn52wWZQ/.vitest-results.json', 'utf8'));
const ciSum = (f) => { const t = ci.testResults.find((t) => t.name.endsWith(`test/${f}.test.ts`)); return t ? t.assertionResults.reduce((a, x) => a + (x.duration || 0), 0) / 1000 : 0; };
let lo = 0, hi = 0, base = 0;
console.log('\n| file | CI summed s (last clean clone) | × CPU ratio | × summed ratio |');
console.log('|---|---|---|---|');
for (const [f, pairs] of Object.entries(files)) {
  const ok = pairs.map(([b, a]) => [read(b), read(a)]).filter(([b, a]) => b && a);
  if (!ok.length) continue;
  const c = ciSum(f);
  const rc = med(ok.map(([, a]) => a.cpu)) / med(ok.map(([b]) => b.cpu));
  const rs = med(ok.map(([, a]) => a.sum)) / med(ok.map(([b]) => b.sum));
  base += c; lo += c * (1 - rc); hi += c * (1 - Math.min(rs, 1));
  console.log(`| ${f} | ${c.toFixed(0)} | −${(c * (1 - rc)).toFixed(0)} (${rc.toFixed(2)}) | −${(c * (1 - Math.min(rs, 1))).toFixed(0)} (${rs.toFixed(2)}) |`);
}
console.log(`| total | ${base.toFixed(0)} | −${lo.toFixed(0)} | −${hi.toFixed(0)} |`);
