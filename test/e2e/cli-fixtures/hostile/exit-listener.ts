// HOLE rt42 F11 (red team, stop 42): with `--workers 0` the module runs in the CLI's thread, and
// the CLI ran every `exit` listener after it had written the reports and the shard result: this
// one rewrites shard-result.json as a pass (the exit code stays 1, but `merge` trusts the file).
// The CLI now runs only the exit listeners present before the module loaded.
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { makeBuggy } from './buggy.js';
export { checkOptions } from './buggy.js';

// the CLI's command line (process.argv shows the checked code `node <module>` since stop 43)
const argv = readFileSync('/proc/self/cmdline', 'utf8').split('\0');
const i = argv.indexOf('--report-dir');
const file = resolve(i >= 0 ? argv[i + 1]! : 'reports', 'shard-result.json');
process.on('exit', () => {
  try {
    const f = JSON.parse(readFileSync(file, 'utf8')) as { result: Record<string, unknown> };
    f.result = { ...f.result, ok: true, property: null };
    writeFileSync(file, JSON.stringify(f));
  } catch {
    // no shard result
  }
});
export const exitListener = makeBuggy('exit-listener');
