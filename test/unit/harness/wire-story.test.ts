import { describe, expect, it } from 'vitest';
import { wireParagraph, wireStory } from '../../../src/harness/wire-story.js';
import type { TraceEntry } from '../../../src/sim/trace.js';

const who = { controller: 'copier', replica: 0 };
const req = (t: number, method: string, path: string, status = 200, extra: Record<string, unknown> = {}): TraceEntry => ({ t, type: 'http:request', ...who, method, path, status, ms: 5, ...extra });
const tail: TraceEntry = { t: 60_000, type: 'run:phase', phase: 'tail' };

describe('wireStory', () => {
  it('says nothing for runs without hosted programs', () => {
    expect(wireStory([{ t: 0, type: 'reconcile:start', controller: 'c', key: 'a' }, tail])).toEqual([]);
    expect(wireParagraph([tail])).toBe('');
  });

  it('names a watch that ended and was never opened again (nor its resource listed), with the fault at that instant', () => {
    const trace: TraceEntry[] = [
      req(10, 'GET', '/api/v1/secrets'),
      req(20, 'GET', '/api/v1/secrets?watch=true&resourceVersion=3', 200, { watch: true }),
      { t: 1200, type: 'fault:inject', kind: 'watch-disconnect', ...who },
      { t: 1200, type: 'watch:close', ...who, path: '/api/v1/secrets?watch=true&resourceVersion=3', openedAt: 20, by: 'server', how: 'cut', events: 2 },
      tail,
    ];
    expect(wireStory(trace)).toEqual(['after the watch on /api/v1/secrets was cut (watch-disconnect) at t=1.2 s, copier/0 never opened another watch or list of it']);
    // re-watched: nothing to say
    expect(wireStory([...trace.slice(0, -1), req(2200, 'GET', '/api/v1/watch/secrets?resourceVersion=9', 200, { watch: true }), tail])).toEqual([]);
  });

  it('names an exit with the last line printed, and a refused write never retried', () => {
    const trace: TraceEntry[] = [
      req(10, 'PATCH', '/api/v1/namespaces/team-a/secrets/db?fieldManager=copier', 404),
      req(15, 'PATCH', '/api/v1/namespaces/team-b/secrets/db', 500),
      req(30, 'PATCH', '/api/v1/namespaces/team-b/secrets/db', 200),
      { t: 40, type: 'process:exit', ...who, kind: 'exit', code: 1, message: 'process.exit(1)', lastOutput: 'Malformed event object' },
      tail,
    ];
    expect(wireStory(trace)).toEqual([
      'copier/0 exited with code 1 after printing "Malformed event object" at t=0.04 s',
      'PATCH /api/v1/namespaces/team-a/secrets/db by copier/0 answered 404 at t=0.01 s and was never retried',
    ]);
    expect(wireParagraph(trace)).toBe(`On the wire: ${wireStory(trace).join('; ')}.`);
  });

  it('names a failed list (5xx, 429) never retried, and not a read answered 404', () => {
    const trace: TraceEntry[] = [
      req(10, 'GET', '/apis/apps/v1/deployments', 500),
      req(12, 'GET', '/api/v1/namespaces/team-a/secrets/db', 404),
      req(14, 'GET', '/api/v1/namespaces?limit=500', 429),
      req(520, 'GET', '/api/v1/namespaces', 200),
      tail,
    ];
    expect(wireStory(trace)).toEqual(['GET /apis/apps/v1/deployments by copier/0 answered 500 at t=0.01 s and was never retried']);
    // listed again later, or watched: retried
    expect(wireStory([...trace.slice(0, -1), req(5_010, 'GET', '/apis/apps/v1/deployments?watch=true&resourceVersion=0', 200, { watch: true }), tail])).toEqual([]);
  });

  it("does not blame a delete answered 404 or a create answered 409 (answers, not refusals), and calls a 422 invalid, not unretried", () => {
    const trace: TraceEntry[] = [
      req(10, 'DELETE', '/api/v1/namespaces/team-a/secrets/db', 404),
      req(11, 'POST', '/api/v1/namespaces/team-a/secrets', 409),
      req(12, 'POST', '/api/v1/namespaces/team-b/configmaps', 422),
      // the same invalid create sent again and refused again: still no valid one
      req(20, 'POST', '/api/v1/namespaces/team-b/configmaps', 422),
      tail,
    ];
    expect(wireStory(trace)).toEqual(['POST /api/v1/namespaces/team-b/configmaps by copier/0 was refused as invalid (422) at t=0.02 s and no valid one followed']);
    // a valid create followed: nothing to say
    expect(wireStory([...trace.slice(0, -1), req(30, 'POST', '/api/v1/namespaces/team-b/configmaps', 201), tail])).toEqual([]);
  });
});
