import type { BuiltInNodeMeta } from './types.ts';

export const LookAtMeta: BuiltInNodeMeta = {
  title: 'Look At',
  category: 'Skeletal controls',
  summary: "Unreal's LookAt: a bone turns its look axis toward a target.",
  description:
    "Turns one bone in component space so that its Look Axis points at a target (a vector, or a bone with an offset: a "
    + 'socket), optionally only about its Up Axis, at most by Clamp Angle, following a moving target through an eased '
    + "interpolation. The bone's children follow it; its position does not change. Alpha blends the result over the input. "
    + 'If a bone is missing from the skeleton the pose passes through.',
  pins: {
    pose: {
      title: 'Component Pose',
      description: 'The pose to modify, read in component space (a local-space node linked here is converted).',
    },
  },
  properties: {
    bone: { title: 'Bone to Modify', description: 'The bone that turns (a head, an eye, a turret); its children turn with it.' },
    targetMode: {
      title: 'Target Mode',
      description: "'vector': Target is a component-space position. 'bone': Target Bone's position, offset by Target in that bone's space (a socket).",
    },
    target: {
      title: 'Target',
      description:
        "In 'vector' mode the component-space position to look at (bind it to a vec3 parameter); in 'bone' mode an offset "
        + "in Target Bone's space (zero: the bone itself).",
      unit: 'units',
    },
    targetBone: { title: 'Target Bone', description: "The bone looked at in 'bone' mode (required there, ignored otherwise)." },
    lookAxis: { title: 'Look Axis', description: "The bone's axis, in its own space, that points at the target (Unreal's LookAt_Axis); normalised." },
    upAxis: { title: 'Up Axis', description: "The bone's axis, in its own space, that Use Up Axis turns about (Unreal's LookUp_Axis); normalised." },
    useUpAxis: {
      title: 'Use Up Axis',
      description: 'Turn only about Up Axis (a yaw): the target is projected onto the plane normal to it first. The loader rejects an Up Axis parallel to Look Axis unless this is false.',
    },
    clampAngle: { title: 'Clamp Angle', description: 'The largest angle the look axis turns from the input pose; 0: no limit.', unit: '°' },
    interpolation: { title: 'Interpolation', description: 'The easing of a move from one target to the next over Interpolation Time (Unreal\'s InterpolationType).' },
    interpolationTime: { title: 'Interpolation Time', description: 'Seconds a move from one target to the next takes; 0: look at each target at once.', unit: 's' },
    interpolationTriggerThreshold: {
      title: 'Interpolation Trigger Threshold',
      description: 'How far the target must move from where the look is going before a new move starts; 0: every move of the target counts.',
      unit: 'units',
    },
    alpha: {
      title: 'Alpha',
      description: 'Strength of the control: 0 leaves the input untouched and skips the work, 1 turns the bone fully; in between its rotation is nlerped toward the result.',
    },
  },
  reference: `
Unreal's LookAt. The bone's \`lookAxis\` and \`upAxis\` (in the bone's space) are carried into
component space by its input rotation; the bone then turns, about its own position, by the smallest
rotation that points the look axis at the target (so its roll about the look axis is kept). With
\`useUpAxis\` the direction to the target is first projected onto the plane normal to the up axis,
so the bone only yaws about it (Unreal's bUseLookUpAxis). With \`clampAngle\` above 0 a target
farther than that from the look axis is looked toward along the great circle, the axis ending
exactly \`clampAngle\` from where it was (Unreal scales the chord instead, which turns a little
less). A target on the bone gives no turn; a target straight behind turns about the up axis (with
\`useUpAxis\`) or about the component axis least aligned with the look axis; never NaN.

The target is followed as Unreal's node follows it: when it moves more than
\`interpolationTriggerThreshold\` from where the look is going, a move starts from there to it
(the clock restarting if the last move had ended), eased by \`interpolation\` over
\`interpolationTime\` seconds of updates: \`linear\`; \`cubic\` 3t² − 2t³; \`sinusoidal\`
(1 − cos πt) / 2; \`easeInOutExponentN\` (2t)ⁿ/2, then 1 − (2 − 2t)ⁿ/2. The first target after the
node initializes (a state entered) is looked at at once. The solver is \`solveLookAt\` in
\`runtime/jobs/look-at.ts\`. Debug: \`Alpha: 100.0% head -> target\`, with \`values\` \`target\`
(where the bone looks this frame) and \`angle\` (degrees turned).

\`\`\`json
"look": { "type": "LookAt", "inputs": { "pose": "walk" },
          "properties": { "bone": "head", "target": { "param": "lookTarget" }, "clampAngle": 70,
                          "interpolation": "sinusoidal", "interpolationTime": 0.3, "interpolationTriggerThreshold": 5 } }
\`\`\`

From the command line: \`animgraph run look.json --set lookTarget=0,150,100\`.
`,
};
