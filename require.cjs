// The package is ES modules only. `require('animgraph')` (or a subpath) lands here, through the
// `require` condition of package.json's exports, to say so instead of Node's "No exports main".
const error = new Error(
  "animgraph is an ES module package and cannot be loaded with require(). Use import { ... } from 'animgraph', "
  + "or from CommonJS: const animgraph = await import('animgraph')",
);
error.code = 'ERR_REQUIRE_ESM';
throw error;
