/**
 * The long variants of tests that also have a quick one: fuzz and property-test counts, long
 * searches. `npm test` runs the quick variants, which keep every assertion and stay within a few
 * seconds of CPU a test; with ANIMGRAPH_STRESS=1 (.ci/run sets it) the long ones run in their place:
 * `ANIMGRAPH_STRESS=1 npm test`, or one file: `ANIMGRAPH_STRESS=1 npx vitest run tests/graphs/fuzz.test.ts`.
 * The allocation probes measure windows of the same frames in both (a probe that stops at the
 * floor warms up over fewer frames in the quick one: bytesPerFrame in allocation.ts); a test that
 * repeats one probe or one page for every example graph runs it, in the quick variant, on the
 * examples that between them hold every node type (examplesCoveringNodeTypes in
 * example-instances.ts); pictures taken only for the docs are taken in the long variant.
 */
export const STRESS = !['', '0', 'false'].includes(process.env.ANIMGRAPH_STRESS ?? '');

/** `quick` in a plain `npm test`, `full` with ANIMGRAPH_STRESS=1. */
export function stress<T>(quick: T, full: T): T {
  return STRESS ? full : quick;
}
