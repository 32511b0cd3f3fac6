import { main } from './operator.js';
main('apply');
