import { build } from 'esbuild';
for (const entry of process.argv.slice(2)) {
  const r = await build({ entryPoints: [entry], bundle: true, write: false, metafile: true, platform: 'node', format: 'esm', packages: 'external', logLevel: 'silent' });
  const ins = Object.entries(r.metafile.inputs);
  const own = ins.reduce((s, [, v]) => s + v.bytes, 0);
  const ext = new Set(); for (const [, v] of ins) for (const i of v.imports) if (i.external && !i.path.startsWith('node:')) ext.add(i.path);
  const byDir = new Map(); for (const [k, v] of ins) { const d = k.split('/').slice(0, 2).join('/'); byDir.set(d, (byDir.get(d) ?? [0, 0])); byDir.get(d)[0]++; byDir.get(d)[1] += v.bytes; }
  console.log(entry, ins.length, 'files', (own / 1024).toFixed(0), 'KiB; external pkgs:', [...ext].join(' '));
  console.log('  ', [...byDir].sort((a, b) => b[1][1] - a[1][1]).map(([d, [n, b]]) => `${d} ${n}/${(b / 1024).toFixed(0)}K`).join(', '));
}
