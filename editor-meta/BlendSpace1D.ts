import type { BuiltInNodeMeta } from './types.ts';

export const BlendSpace1DMeta: BuiltInNodeMeta = {
  title: 'Blend Space 1D',
  category: 'Pose sources',
  summary: 'clips along one axis (speed) blended by an input, playing in step (example: `graphs/examples/sample-blend-space.json`).',
  description:
    'Blends clips placed along one axis (idle at speed 0, walk at 150, run at 400) by an input value: the two samples '
    + 'around it by linear interpolation, the first or last alone outside them. The samples play in step: the cycle '
    + 'takes the weighted mean of their lengths and each sample is at the same phase (or between the same sync markers), '
    + 'so a walk and a run blend without their feet crossing.',
  pins: {},
  properties: {
    samples: {
      title: 'Samples',
      description: 'The clips and where they sit on the axis; no two at the same x.',
      item: {
        clip: { title: 'Animation', description: "A clip declared in the asset's clips block." },
        x: { title: 'X', description: 'The sample\'s coordinate on the axis.' },
      },
    },
    x: { title: 'X', description: 'The input coordinate, usually bound to a speed parameter.' },
    smoothingTime: {
      title: 'Smoothing Time',
      description: 'Half-life of the input smoothing: the input covers half the way to a new value in this time. 0 follows at once.',
      unit: 's',
    },
    playRate: { title: 'Play Rate', description: 'Multiplier on delta time for the whole blend space.', unit: '×' },
    loop: { title: 'Loop', description: 'Whether the samples loop (on) or hold at their ends (off).' },
    syncGroup: {
      title: 'Sync Group',
      description: 'A name shared with players and other blend spaces to keep in step with (see SequencePlayer). Leave out to play independently.',
    },
  },
  reference: `
The samples are sorted by \`x\` at load; two at the same \`x\` are a load
error (\`duplicate-sample\`, at \`samples[i].x\`), and so is an \`x\` beyond ±1e15 (\`value-range\`: weights divide
differences of coordinates, which overflow near the largest double). Each frame the input, smoothed, weighs the two samples
around it linearly (\`(x - x0) / (x1 - x0)\`); below the first sample the first plays alone, above the
last the last (clamped).

Smoothing: the input follows exponentially with a half-life of \`smoothingTime\`
seconds (\`x += (input - x) × (1 - 2^(-dt / smoothingTime))\`); the first update takes the input as it
is. A non-finite input holds the last good one; finite inputs of any size, even further apart than a
double holds (opposite ends of its range), are smoothed without overflow.

Playback in step (Unreal's blend spaces): every sample has its own clip clock. The sample of highest
weight leads and advances by delta time × play rate × its length / Σ weightᵢ × lengthᵢ, so the blend's
cycle lasts the weighted mean length; every other sample takes the leader's position, between the
same two sync markers when both clips carry them, else at the same normalised time. Root motion is
each sample's over its own step, times its weight (and the branch's). A \`sequenceLooped\` event fires
when the leading sample wraps. Samples at a weight of 0.00001 or below are not sampled.

See \`graphs/examples/sample-blend-space.json\` (idle, walk and run by \`speed\` on the built-in biped).

Debug: \`X: 275.000 Leader: 'walk' Play Time: 0.367\`; values \`coordinates\`, \`weights\` (in the order
written), \`times\`, \`leader\`.

\`\`\`json
"locomotion": { "type": "BlendSpace1D", "properties": {
  "samples": [{ "clip": "idle", "x": 0 }, { "clip": "walk", "x": 150 }, { "clip": "run", "x": 400 }],
  "x": { "param": "speed" }, "smoothingTime": 0.1 } }
\`\`\`
`,
};
