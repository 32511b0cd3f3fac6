/** The Website operator with a framework that calls process.exit(1) when a watch fails. */
import { WebsiteOperator } from './website.js';

await new WebsiteOperator({ exitOnWatchError: true }).start();
