import type { PropertyDoc } from './types.ts';

/** What FABRIK and CCDIK document alike: the chain, the target, the tip's rotation, precision and iterations. */
export const chainIKPropertyDocs: Readonly<Record<string, PropertyDoc>> = {
  rootBone: { title: 'Root Bone', description: 'The first bone of the chain: it stays where it is and turns. Must be an ancestor of Tip Bone.' },
  tipBone: { title: 'Tip Bone', description: 'The last bone of the chain, the one that reaches for the target (Unreal\'s Tip Bone / effector).' },
  targetMode: {
    title: 'Target Mode',
    description: "'vector': Target is a component-space position. 'bone': Target Bone's position, offset by Target in that bone's space.",
  },
  target: {
    title: 'Target',
    description:
      "In 'vector' mode the component-space position the tip reaches for (bind it to a vec3 parameter); in 'bone' mode an "
      + "offset in Target Bone's space (zero: the bone itself).",
    unit: 'units',
  },
  targetBone: { title: 'Target Bone', description: "The bone reached for in 'bone' mode (required there, ignored otherwise)." },
  tipRotation: {
    title: 'Tip Rotation',
    description:
      "The tip's rotation after the solve (Unreal's EffectorRotationSource). 'keepComponent': its input component-space "
      + "rotation. 'keepLocal': its input rotation relative to its parent, turning with it. 'copyTarget': Target Bone's "
      + "component-space rotation in 'bone' mode, Target Rotation in 'vector' mode.",
  },
  targetRotation: {
    title: 'Target Rotation',
    description: "The tip's component-space rotation with 'copyTarget' in 'vector' mode: Euler angles in degrees [x, y, z], Rx·Ry·Rz.",
    unit: '°',
  },
  precision: { title: 'Precision', description: 'The solver stops once the tip is this close to the target (Unreal\'s Precision).', unit: 'units' },
  maxIterations: { title: 'Max Iterations', description: 'The most iterations one solve runs (Unreal\'s MaxIterations); 0 leaves the chain as it is unless the target is out of reach (FABRIK).' },
  alpha: {
    title: 'Alpha',
    description: "Strength of the control: 0 leaves the input untouched and skips the work, 1 applies the IK fully; in between each chain bone's component-space translation is lerped and rotation nlerped toward the solution.",
  },
};

export const chainIKPins = {
  pose: {
    title: 'Component Pose',
    description: 'The pose to modify, read in component space (a local-space node linked here is converted).',
  },
};
