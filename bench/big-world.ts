/**
 * `npx tsx bench/big-world.ts [objects]`: simulates that many objects of one kind (default
 * 1,000,000), first without a controller, then with one, each in its own process at node's
 * default stack, and prints wall time, trace size and heap. Issue 17 item 15; too slow for the
 * suite, which runs the same fixture at 20,000 objects on a small stack.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const fixture = fileURLToPath(new URL('../test/robustness/fixtures/big-world.ts', import.meta.url));
const n = process.argv[2] ?? '1000000';
for (const mode of ['none', 'controller']) {
  const out = execFileSync(process.execPath, ['--import', 'tsx', fixture, n, mode], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  console.log(`  → ${out.trim()}`);
}
