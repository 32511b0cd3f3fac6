/** Module state of restarts.cjs: a fresh object per incarnation when the module is re-required. */
module.exports = { loads: 0 };
