import { describe, expect, it } from 'vitest';
import { check, cluster } from '../../src/index.js';
import { levelTriggered } from '../../examples/replicas/level-triggered.js';
import { deploymentMirror } from '../../examples/deployment-mirror/correct.js';

describe('check defaults', () => {
  it('leaves environment faults out when no environment actor runs (they could never fire)', async () => {
    const r = await check(levelTriggered, { runs: 5, seed: 1 });
    const kinds = r.coverage.map((c) => c.kind);
    expect(kinds).toContain('crash-restart');
    expect(kinds.filter((k) => k.startsWith('environment-'))).toEqual([]);
  });

  it('includes them when the check runs environment actors', async () => {
    const r = await check(deploymentMirror, { runs: 5, seed: 1, environment: [cluster] });
    expect(r.coverage.map((c) => c.kind)).toContain('environment-pod-never-ready');
  });
});
