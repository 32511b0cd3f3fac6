/** The Website operator with a framework that watches again after a failed watch. */
import { WebsiteOperator } from './website.js';

await new WebsiteOperator({ exitOnWatchError: false }).start();
