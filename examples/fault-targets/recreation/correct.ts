import { defineController } from '../../../src/index.js';
import { DATABASE } from './database.js';
import { reconcileDatabase } from './reconcile-database.js';
import { RESYNC_MS } from '../resync.js';

/** Correct: keys the note by uid, so a recreated object is a new object. */
export const databaseCorrect = defineController({
  name: 'database-correct',
  for: DATABASE,
  resyncPeriodMs: RESYNC_MS,
  reconcile: reconcileDatabase((db) => db.metadata.uid),
});
