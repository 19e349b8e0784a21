import { quoted } from '../../runtime/core/names.ts';
import { jsonPath, MAX_PROBLEMS, moreProblems, type GraphProblem } from './problems.ts';

/** A key an object of a JSON text repeats: where (the keys down to the object) and which key. */
export interface DuplicateJsonKey {
  /** The keys and indices from the root down to the object holding the repeated key. */
  readonly path: readonly (string | number)[];
  readonly key: string;
}

/**
 * Each key that an object in `text` repeats, in text order (the second and later of each). JSON.parse
 * keeps the last of them silently, so a graph whose `nodes` names one id twice, or whose clip is
 * declared twice, loaded whichever came last without a word. `text` must be valid JSON (parse it
 * first); the scan is a loop over the characters, so nesting of any depth is safe. It stops at the
 * `limit`th repeat found.
 */
export function duplicateJsonKeys(text: string, limit = Infinity): DuplicateJsonKey[] {
  const found: DuplicateJsonKey[] = [];
  // One frame per open object or array: its keys so far (null for an array) and, for the value
  // being read, its key or index.
  const keys: (Set<string> | null)[] = [];
  const at: (string | number)[] = [];
  // Whether the next string read is an object's key (after '{' or ',' inside an object).
  let expectKey = false;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      const start = i;
      for (i++; text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c /* \ */) i++;
      if (!expectKey) continue;
      // Keys compare as JSON.parse reads them: "a" and "\u0061" are one key.
      const key = JSON.parse(text.slice(start, i + 1)) as string;
      const seen = keys[keys.length - 1]!;
      if (seen.has(key)) {
        found.push({ path: at.slice(0, -1), key });
        if (found.length >= limit) return found;
      } else seen.add(key);
      at[at.length - 1] = key;
      expectKey = false;
    } else if (c === 0x7b /* { */) {
      keys.push(new Set());
      at.push('');
      expectKey = true;
    } else if (c === 0x5b /* [ */) {
      keys.push(null);
      at.push(0);
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      keys.pop();
      at.pop();
      expectKey = false; // an empty object's '{' asked for a key that never came
    } else if (c === 0x2c /* , */) {
      const top = at.length - 1;
      if (keys[top] === null) at[top] = (at[top] as number) + 1;
      else expectKey = true;
    }
  }
  return found;
}

/**
 * A `duplicate-key` problem for each key an object of `text` (valid JSON) repeats, at the repeat's
 * path: the first MAX_PROBLEMS, then one saying there are more.
 */
export function duplicateKeyProblems(text: string): GraphProblem[] {
  const found = duplicateJsonKeys(text, MAX_PROBLEMS + 1);
  const problems: GraphProblem[] = found.slice(0, MAX_PROBLEMS).map(({ path, key }) => ({
    path: jsonPath([...path, key]), code: 'duplicate-key',
    message: `${quoted(key)} appears more than once in this object; JSON keeps only the last, so the others would be ignored`,
  }));
  if (found.length > MAX_PROBLEMS) problems.push(moreProblems(0));
  return problems;
}

/**
 * A graph asset's JSON text parsed (a byte-order mark skipped), with what JSON.parse cannot say: the
 * keys an object repeats. Or, for text that is not JSON, the problem at `$`.
 */
export function parseGraphText(text: string): { json: unknown; repeated: GraphProblem[] } | { problems: GraphProblem[] } {
  // A byte-order mark, as some Windows editors write: the skeleton file and glTF readers skip it too.
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch (e) {
    return { problems: [{ path: '$', code: 'schema', message: `not valid JSON: ${(e as Error).message}` }] };
  }
  return { json, repeated: duplicateKeyProblems(body) };
}
