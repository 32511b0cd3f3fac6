import { defineController } from '../../../src/index.js';
import { DATABASE } from './database.js';
import { reconcileDatabase } from './reconcile-database.js';

/**
 * Buggy: remembers handled generations by name. A Database deleted and recreated under the
 * same name starts again at generation 1, which the note says was handled long ago, so the new
 * object is never provisioned.
 */
export const databaseBuggy = defineController({
  name: 'database-buggy',
  for: DATABASE,
  reconcile: reconcileDatabase((db) => `${db.metadata.namespace}/${db.metadata.name}`),
});
