import { chain as rest } from './f.js';

export const chain = ['e', ...rest];
