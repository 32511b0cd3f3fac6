import { main } from './operator.js';
main('get-compare-put');
