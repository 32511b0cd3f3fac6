import { main } from './operator.js';
main('retry-same-version');
