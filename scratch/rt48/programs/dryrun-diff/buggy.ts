import { main } from './operator.js';
main('always-dry');
