/**
 * The README tutorial's three classic bugs, each a one-line change to the correct controller
 * (examples/tutorial/dns-record.ts, which the README shows): the README test applies each to
 * the README's own code and proves the check catches it with the property named here, and the
 * bench times the hot loop's find + shrink.
 */
export interface TutorialBug {
  name: string;
  /** The property that catches it. */
  property: string;
  /** What the change does, for the README. */
  description: string;
  /** Lines of the correct controller, and what the buggy one has instead. */
  changes: { from: string; to: string }[];
}

export const tutorialBugs: readonly TutorialBug[] = [
  {
    name: 'hot-loop',
    property: 'no-hot-loop',
    description: 'stamps status.lastSyncTime on every reconcile and writes status unconditionally',
    changes: [{ from: '    if (!isDeepStrictEqual(rec.status, status)) await ctx.client.updateStatus({ ...rec, status });', to: '    await ctx.client.updateStatus({ ...rec, status: { ...status, lastSyncTime: new Date(ctx.clock.now()).toISOString() } });' }],
  },
  {
    name: 'stuck-deletion',
    property: 'deletion-completes',
    description: 'deletes the record it remembers in status, so a record already gone (404) fails cleanup forever',
    changes: [{ from: '      for (const r of mine) await provider(ctx, \'DELETE\', `/records/${r.id}`);', to: "      if (rec.status.recordId) { const res = await ctx.fetch(`${DNS_API}/records/${rec.status.recordId}`, { method: 'DELETE' }); if (!res.ok) throw new Error(`DELETE: ${res.status}`); }" }],
  },
  {
    name: 'duplicate-record',
    property: 'no-duplicate-side-effects',
    description: 'trusts status.recordId instead of asking the provider, and creates without an idempotency key: a create whose id never reached status (a crash, a lost response) is published twice',
    changes: [
      { from: '    let record = mine[0];', to: '    let record = mine.find((r) => r.id === rec.status.recordId);' },
      { from: "    if (!record) record = await provider<ProviderRecord>(ctx, 'POST', '/records', want, `${rec.metadata.uid}/${rec.status.recordId ?? 'first'}`);", to: "    if (!record) record = await provider<ProviderRecord>(ctx, 'POST', '/records', want);" },
    ],
  },
];

/** The controller's source with one bug in it. @throws when the line is not there (the README and the bug drifted apart) */
export function withBug(source: string, bug: TutorialBug): string {
  let out = source;
  for (const c of bug.changes) {
    if (!out.includes(c.from)) throw new Error(`tutorial bug ${bug.name}: the controller has no line ${JSON.stringify(c.from)}`);
    out = out.replace(c.from, c.to);
  }
  return out;
}
