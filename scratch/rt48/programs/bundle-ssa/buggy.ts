import { main } from './operator.js';
main('merge');
