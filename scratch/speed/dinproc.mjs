// cold in-process check on the compiled build (plain JS, real line numbers): rs|hotbug|hotok, runs
const D = '/tmp/s48/dist';
const t0 = process.cpuUsage();
const { check } = await import(`${D}/src/index.js`);
const w = process.argv[2] ?? 'rs'; const runs = Number(process.argv[3] ?? 20);
let ctl, options;
if (w === 'rs') { ctl = (await import(`${D}/examples/bug-zoo/stale-snapshot/correct.js`)).replicaSet; options = (await import(`${D}/examples/bug-zoo/stale-snapshot/scenario.js`)).staleSnapshot.options; }
else { const s = (await import(`${D}/examples/bug-zoo/hot-loop/scenario.js`)).hotLoop; options = s.options; ctl = w === 'hotbug' ? (await import(`${D}/examples/bug-zoo/hot-loop/buggy.js`)).buggyWebsite : (await import(`${D}/examples/bug-zoo/hot-loop/correct.js`)).website; }
const t1 = process.cpuUsage(t0);
const r = await check(ctl, { ...options, runs, seed: 1 });
const t2 = process.cpuUsage(t0);
const ms = (c) => ((c.user + c.system) / 1000).toFixed(0);
console.log(w, r.ok ? 'pass' : `fail ${r.property}`, 'load ms', ms(t1), 'total ms', ms(t2));
