import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (p: string) => fileURLToPath(new URL(p, import.meta.url));
export default defineConfig({
  resolve: {
    alias: [
      { find: /^steadystate\/vitest$/, replacement: src('../../src/vitest/index.ts') },
      { find: /^steadystate$/, replacement: src('../../src/index.ts') },
    ],
  },
  test: { include: ['scratch/rt48/*.test.ts'], testTimeout: 300_000, pool: 'threads', maxWorkers: 1 },
});
