import { main } from './operator.js';
main('diff');
