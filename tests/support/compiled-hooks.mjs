// Node module hooks for the compiled sources (compiled-sources.ts): a TypeScript file of the
// repository, however it is named (a relative import, a URL made at run time), loads as its
// compiled copy. Plain JavaScript: Node loads it before anything is compiled for it.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * The compiled copy's URL of `specifier` (a file: URL or an absolute path) when it names a .ts file
 * under `root` (the repository's URL) compiled into `dir` (the folder's URL); else undefined.
 */
export function compiledUrl(specifier, root, dir) {
  const url = /^[a-z][a-z0-9+.-]*:/i.test(specifier) ? specifier : specifier.startsWith('/') ? pathToFileURL(specifier).href : '';
  if (!url.startsWith(root) || !url.endsWith('.ts')) return undefined;
  const compiled = `${dir}${url.slice(root.length, -3)}.js`;
  return existsSync(fileURLToPath(compiled)) ? compiled : undefined;
}

let root = '', dir = '';

export function initialize(data) {
  ({ root, dir } = data);
}

export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  const compiled = compiledUrl(resolved.url, root, dir);
  return compiled === undefined ? resolved : { url: compiled, format: 'module', shortCircuit: true };
}
