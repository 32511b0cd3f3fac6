import { chain as rest } from './d.js';

export const chain = ['c', ...rest];
