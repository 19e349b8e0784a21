import { DEFAULT_SAMPLE_RATE } from '../runtime/jobs/pose-search/index.ts';
import type { BuiltInNodeMeta } from './types.ts';

export const PoseSearchBlendMeta: BuiltInNodeMeta = {
  title: 'Pose Search Blend',
  category: 'Pose sources',
  summary: 'plays one of several clips, starting each at the frame that best matches the pose (pose search).',
  description:
    'Plays one of a list of clips, chosen by Motion. When Motion changes, it starts the new clip at the frame whose pose '
    + 'best matches the pose it has been outputting (bone rotations, and positions and velocities relative to the root '
    + 'and its heading, each weighted and normalised over the clips), then crossfades or inertializes into it, so the '
    + 'feet carry on instead of flailing. The database of frames is built once per graph (or read from a file written by '
    + '`animgraph index`) and searched exactly with a KD-tree. Debug shows the chosen frame, its cost, each channel\'s '
    + 'share of the cost and the runner-up frame.',
  pins: {},
  properties: {
    clips: {
      title: 'Clips',
      description: 'The clips to choose from, in Motion order (the first is motion 0).',
    },
    motion: {
      title: 'Motion',
      description:
        'Index of the clip to play. Usually bound to an int parameter; each change searches the new clip for the best '
        + 'start frame and blends to it. An out-of-range value keeps the clip playing (clip 0 on the first frame), is shown '
        + 'in the debug line and raises a motionOutOfRange event once; back in range, it switches as usual.',
    },
    blendTime: {
      title: 'Blend Time',
      description:
        'Duration of the blend after a switch. Frames of a non-looping clip closer to its end than this are not '
        + 'considered as start frames. 0 switches at once.',
      unit: 's',
    },
    blendCurve: {
      title: 'Blend Curve',
      description: 'The curve a crossfaded switch follows over the blend time, as in BlendList (linear when absent).',
    },
    blendMode: {
      title: 'Blend Mode',
      description:
        'crossfade: blend from the old clip, which keeps playing, to the new one over the blend time. inertial: switch '
        + 'at once and let the difference from the last output pose decay over the blend time (one clip evaluated).',
    },
    loop: {
      title: 'Loop',
      description: 'Whether clips wrap at their end; otherwise they hold their last frame and cannot start within Blend Time of it.',
    },
    features: {
      title: 'Features',
      description:
        'The feature schema: channels rotations (local rotations, all bones by default), positions and velocities (listed '
        + 'bones relative to the root bone and its heading), each with a weight; normalize (divide each channel by its '
        + `deviation over the clips, default true); sampleRate (database frames per second, default ${DEFAULT_SAMPLE_RATE}); rootBone; upAxis. `
        + 'Default: rotations of every bone with weight 1.',
    },
    database: {
      title: 'Database File',
      description:
        'An index file written by `animgraph index GRAPH --out FILE`, relative to the graph file, so a large library '
        + 'is indexed once. It must have been built from the same clips, skeleton and features: a stale file is a load error.',
    },
  },
  reference: `
Plays \`clips[motion]\` (as a SequencePlayer at rate 1, root motion included). When \`motion\` changes, it starts the new clip at
the frame whose pose best matches the pose the node has been outputting instead of at 0 (with
Unreal PoseSearch's features and cost), then blends: \`crossfade\` keeps the old clip
playing under a linear crossfade (a switch mid-blend adds a pose; up to four blend at once);
\`inertial\` switches at once and inertializes the difference from its own last two output poses (as
InertialBlend). A \`motion\` out of range keeps the clip playing (clip 0 on the first frame), with no
search; the debug line says \`motion 7 out of range [0, 2]\`, \`values\` has \`requestedMotion\` and
\`motionOutOfRange\`, and the \`motionOutOfRange\` event (node id, motion, clip count) fires when the
value becomes one out of range (again for each other such value, not every frame). Back in range,
a different clip is switched to as usual.

- **Features**, per channel \`{ "weight": w, "bones": [...] }\`: \`rotations\`, local rotations of the
  bones (every bone by default), q and −q being the same rotation; \`positions\`, component-space
  positions relative to the root bone and its heading (its twist about the up axis), so a match
  does not depend on where the character stands or faces; \`velocities\`, the change of those per
  second (which way each limb is moving). Also \`normalize\` (true), \`sampleRate\` (${DEFAULT_SAMPLE_RATE} frames per
  second of clip time), \`rootBone\` (the skeleton root), \`upAxis\` (\`y\`). Without \`features\`:
  rotations of every bone, weight 1 (the simplest pose match).
- **Cost**: each channel is divided by the standard deviation of its feature vector over the
  node's clips (the square root of its dimensions' summed variances; a channel without variance
  is left as is), so every channel has unit total variance whatever its number of bones and the
  weights alone say how much it counts; cost = Σ weight × (squared distance / deviation²), each
  quaternion counted the shorter way. The query comes from the node's last two output poses (the
  database takes velocities over one key of the clip). Without a second pose, or over a frame
  shorter than 1e-6 s (too short to measure over), the velocities are left out of that search; without any (a switch before anything was evaluated) the clip starts at 0.
- **Search**: frames of a non-looping clip closer to its end than \`blendTime\` are left out. The
  search is exact: a KD-tree over the scaled features (tight boxes per node; for quaternions the
  box distance of q or −q, whichever is smaller), nearest child first, pruned by the best cost.
  A clip longer than 8 leaves (128 frames) can also have a subtree of its own, which a search of
  that clip alone (what the node does) descends; a shorter clip is scanned, which is as fast. A
  long clip keeps its subtree only if it beats a scan of the clip for queries from the other
  clips (at a switch the pose comes from another clip, and a query far from every frame of the
  clip visits most of its tree): the database counts the frames scored and boxes measured by 16
  such queries when it is built and prices them in scanned frames (\`clipTreeCosts\`), so the
  choice is the same on every machine, and the answer is the same either way.
  A frame's cost is summed over the channel of most weight per dimension first (usually the few
  positions before many rotations), so a frame that cannot win is given up early.
  Ties go to the earliest frame, so tree and scan agree exactly. The database is built once per
  graph and shared by its instances, or read from \`database\` (see \`animgraph index\`).
- **Debug**: the active clip and time, the blend, and for the last search the chosen frame and
  time, its cost, each channel's share of it, and the runner-up (the best frame at least 0.2 s from
  the chosen one; a second search, made only when the debug tree or \`lastRunnerUp\` asks for it, so
  the frame loop does not pay for it). \`values\`: \`clip\`, \`time\`, \`weights\`, \`matchFrame\`, \`matchTime\`, \`matchCost\`,
  \`matchShares\` ([rotations, positions, velocities]), \`velocityMatched\`, \`runnerUpFrame\`,
  \`runnerUpTime\`, \`runnerUpCost\`, \`framesScored\`; always \`motion\` (the clip playing),
  \`requestedMotion\` and \`motionOutOfRange\`.

\`\`\`json
"locomotion": { "type": "PoseSearchBlend", "properties": {
  "clips": ["walk", "walk2", "run"], "motion": { "param": "motion" }, "blendTime": 0.3,
  "features": {
    "rotations": { "weight": 1 },
    "positions": { "weight": 1, "bones": ["CC_Base_L_Foot", "CC_Base_R_Foot", "CC_Base_L_Hand", "CC_Base_R_Hand"] },
    "velocities": { "weight": 1, "bones": ["CC_Base_L_Foot", "CC_Base_R_Foot", "CC_Base_L_Hand", "CC_Base_R_Hand"] } } } }
\`\`\`

\`\`\`sh
npx animgraph run graphs/examples/cmu-pose-search.json --seconds 1.5 --set motion=2@0.5 --set motion=0@1.2 --debug text
npx animgraph index graphs/examples/cmu-pose-search.json --out graphs/examples/cmu-pose-search.psindex
\`\`\`

\`\`\`
frame 15 time 0.500
Output[output]<W:100.0%>
  PoseSearchBlend[locomotion]<W:100.0%> ('run' Time: 0.033 Blend: 0.033 / 0.300 Match: frame 42 @ 1.400 cost 3.558 [rot 62% pos 18% vel 20%] runner-up: frame 21 @ 0.700 cost 3.670)
\`\`\`

On the CMU walk and run (\`tests/nodes/PoseSearchBlend.test.ts\`): over 30 switches the chosen frame
is the minimum of the cost above computed independently, and the mean foot and hand jump from the
last walk frame to the first blended one is 2.30 cm against 2.87 cm for a crossfade into the run
at time 0 (the walk itself moves them 2.03 cm a frame; features normalised over both walks and the
run, as in the example graph); with rotations only (the default schema), a
walk frame whose left foot swings forward at 259 cm/s matches a run frame whose left foot moves
back at 208 cm/s, and with velocities none of the 24 forward-swing frames tested matches backwards.
`,
};
