// File paths as an asset writes them, joined without node:path so the loader runs in a browser:
// '/' separates (a '\' is taken as one too, so a Windows folder still has a parent), '.' and
// 'a/..' fold away, and a path with a leading '/', a drive ('C:') or a scheme ('https:') is absolute.

const ABSOLUTE = /^(?:[/\\]|[A-Za-z]:[/\\]|[A-Za-z][A-Za-z0-9+.-]+:)/;

/** Whether `path` stands on its own (joined to nothing). */
export function isAbsolutePath(path: string): boolean {
  return ABSOLUTE.test(path);
}

/** `path` with '.' segments and 'name/..' pairs folded; leading '..' kept; '' becomes '.'. */
export function normalizePath(path: string): string {
  const lead = /^(?:[A-Za-z]:)?[/\\]|^[A-Za-z][A-Za-z0-9+.-]+:\/*/.exec(path)?.[0] ?? '';
  const out: string[] = [];
  for (const segment of path.slice(lead.length).split(/[/\\]/)) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..' && out.length > 0 && out[out.length - 1] !== '..') out.pop();
    else if (segment === '..' && lead !== '') continue; // above the root is the root
    else out.push(segment);
  }
  const body = out.join('/');
  return lead + body || '.';
}

/** The folder of `path` ('.' for a bare name). */
export function dirnamePath(path: string): string {
  const cut = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
  if (cut < 0) return '.';
  return cut === 0 ? path.slice(0, 1) : path.slice(0, cut);
}

/** `path` relative to the folder `base` (or `path` itself when it is absolute), normalised. */
export function joinPath(base: string, path: string): string {
  return normalizePath(isAbsolutePath(path) || base === '' || base === '.' ? path : `${base}/${path}`);
}
