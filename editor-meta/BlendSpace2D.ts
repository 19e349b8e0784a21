import type { BuiltInNodeMeta } from './types.ts';

export const BlendSpace2DMeta: BuiltInNodeMeta = {
  title: 'Blend Space',
  category: 'Pose sources',
  summary: 'clips on a plane (speed × direction), triangulated and blended by barycentric weights, playing in step.',
  description:
    'Blends clips placed on a plane (speed × direction) by two input values: the samples are triangulated at load, '
    + 'and the three samples of the triangle holding the input are weighed by barycentric coordinates; outside the '
    + 'samples the input is moved to the nearest point of their outline. The samples play in step, as in Blend Space 1D.',
  pins: {},
  properties: {
    samples: {
      title: 'Samples',
      description: 'The clips and where they sit on the plane: not all on one line, no two at the same point.',
      item: {
        clip: { title: 'Animation', description: "A clip declared in the asset's clips block." },
        x: { title: 'X', description: 'The sample\'s horizontal coordinate.' },
        y: { title: 'Y', description: 'The sample\'s vertical coordinate.' },
      },
    },
    x: { title: 'X', description: 'The horizontal input coordinate (speed, say).' },
    y: { title: 'Y', description: 'The vertical input coordinate (direction, say).' },
    xSmoothingTime: { title: 'X Smoothing Time', description: 'Half-life of the smoothing of x. 0 follows at once.', unit: 's' },
    ySmoothingTime: { title: 'Y Smoothing Time', description: 'Half-life of the smoothing of y. 0 follows at once.', unit: 's' },
    playRate: { title: 'Play Rate', description: 'Multiplier on delta time for the whole blend space.', unit: '×' },
    loop: { title: 'Loop', description: 'Whether the samples loop (on) or hold at their ends (off).' },
    syncGroup: {
      title: 'Sync Group',
      description: 'A name shared with players and other blend spaces to keep in step with (see SequencePlayer). Leave out to play independently.',
    },
  },
  reference: `
At load the samples are scaled per axis to the unit square they span (so that axes in different units, cm/s and degrees,
weigh alike) and triangulated (Delaunay, Bowyer–Watson, points inserted in the order written:
deterministic, co-circular points included). Two samples at one point are a load error
(\`duplicate-sample\`, at \`samples[i]\`, the later one), and so are samples all on one line
(\`collinear-samples\`, at \`samples\`): there is no triangle to blend in. A coordinate beyond ±1e15 is a load
error too (\`value-range\`, at \`samples[i].x\` or \`.y\`: the triangulation's products would overflow,
and samples at ±1e308 looked collinear).

Each frame the input, smoothed per axis (a half-life per axis, as BlendSpace1D's), weighs the three
samples of the first triangle holding it by barycentric coordinates. Outside every triangle (outside
the samples' convex hull) the input is projected to the nearest point of the hull, in the scaled
coordinates, and weighs the two samples of that edge linearly (one sample at a corner). Playback in
step, root motion, events and skipping of negligible samples are as in BlendSpace1D.

Debug: \`X: 200.000 Y: -45.000 Leader: 'walkLeft' Play Time: 0.367\`; values \`coordinates\`,
\`weights\` (in the order written), \`times\`, \`leader\`.
`,
};
