// Names as messages echo them. An asset's names (clips, nodes, bones, parameters, states) have no
// length limit and may be many: a 1 MB clip name made a 1 MB message line, and an unknown clip's
// message listed all 20,000 declared names (149 KB). Messages quote a name through `quoted` and
// list names through `nameList`, which keep them readable whatever the asset holds, and say where
// through `jsonPath`.

/** The most characters of a name a message echoes; a longer one is cut there and ends in '…'. */
export const MAX_ECHOED_NAME = 80;
/** The most names a message lists; the rest are counted ("and 19980 more"). */
export const MAX_LISTED_NAMES = 20;

/** `name` at most MAX_ECHOED_NAME characters, cut with '…' (never inside a surrogate pair). */
export function shortName(name: string): string {
  if (name.length <= MAX_ECHOED_NAME) return name;
  let end = MAX_ECHOED_NAME;
  const last = name.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${name.slice(0, end)}…`;
}

/** `name` quoted as messages write names: 'walk'. */
export function quoted(name: string): string {
  return `'${shortName(name)}'`;
}

/**
 * Names for a message: "walk, run", the first MAX_LISTED_NAMES and "and N more", or `none`; each
 * shortened, then written by `write` (`(n) => `"${n}"`` quotes them).
 */
export function nameList(names: Iterable<string>, none = 'none', write: (name: string) => string = (name) => name): string {
  const shown: string[] = [];
  let count = 0;
  for (const name of names) {
    if (count++ < MAX_LISTED_NAMES) shown.push(write(shortName(name)));
  }
  if (count === 0) return none;
  return count > MAX_LISTED_NAMES ? `${shown.join(', ')} and ${count - MAX_LISTED_NAMES} more` : shown.join(', ');
}

/**
 * JSON path text for a path of keys, e.g. ['nodes', 'blend', 'inputs', 0] -> `$.nodes.blend.inputs[0]`: where the loader's problems are,
 * and (without the `$.`) the fields of a node type's problems.
 */
export function jsonPath(keys: readonly PropertyKey[]): string {
  let out = '$';
  for (const key of keys) {
    if (typeof key === 'number') out += `[${key}]`;
    else if (typeof key === 'string' && /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key)) out += `.${key}`;
    else out += `[${JSON.stringify(String(key))}]`;
  }
  return out;
}
