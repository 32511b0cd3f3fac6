export const chain = ['f'];
