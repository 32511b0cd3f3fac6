/**
 * The steadystate version written into every report and reproduction file. Kept as a constant
 * (not read from package.json at run time) so report code stays free of I/O; a test checks it
 * against package.json.
 * @public
 */
export const version = '0.1.0';
