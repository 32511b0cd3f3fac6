import { main } from './operator.js';
main('relist');
