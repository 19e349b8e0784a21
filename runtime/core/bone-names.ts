/*
 * Bone-name conventions, read once at load: which bone of a humanoid a name means (its role), which
 * side it is on, and the name of its mirror partner. Retargeting matches bones of two skeletons by
 * role; mirroring swaps each bone with its partner. One reading serves both, so a rig whose bones
 * retarget also mirrors.
 *
 * The conventions read:
 * - prefixes and namespaces: `mixamorig:LeftUpLeg`, `Armature|Hips`, `CC_Base_L_Thigh`, `Bip01 L Thigh`,
 *   `DEF-thigh.L` (everything up to the last `:` or `|`, and the prefixes `CC_Base_`, `Bip01`/`Bip001`,
 *   `DEF`, `ORG`, `MCH` are dropped);
 * - sides: a word `Left`/`Right` (`LeftUpLeg`, Mixamo, LAFAN, CMU's Mixamo-style exports), a lone
 *   `L`/`R` or `l`/`r` before or after the name (`L_Thigh`, `thigh_l` as the Unreal mannequin,
 *   `Foot.L` as Blender, `lThigh` as CMU's original files), separated by `_`, `.`, `-`, a space or
 *   a change of case;
 * - body parts by their common words (ROLE_WORDS below): `UpLeg`, `Thigh`, `UpperLeg` are one
 *   role; `Leg` after `UpLeg` is the calf (Mixamo), `Arm` the upper arm, `Shoulder` the clavicle
 *   where no `Clavicle` or `Collar` exists.
 * - structure where names disagree across rigs: the pelvis is the nearest common ancestor of the
 *   two thighs (Mixamo's `Hips`, the mannequin's `pelvis`, the robot's `Body`, CC's `CC_Base_Pelvis`),
 *   and the spine is the chain of bones from there to the neck.
 *
 * Twist, share, roll, IK and pole bones (`CC_Base_L_ThighTwist01`, `CC_Base_L_KneeShareBone`,
 * `PoleTarget.L`) take no role: they are helpers that follow the bones that do. A twist bone takes
 * a role only where no other bone has it (`CC_Base_NeckTwist01` is the CC rigs' neck).
 */
import type { Skeleton } from './skeleton.ts';

export type BoneSide = 'left' | 'right' | 'center';

/** The roles a humanoid's bones are matched by. Sided roles end in `.L` or `.R` (`thigh.L`). */
export const SIDED_ROLES = [
  'clavicle', 'upperarm', 'forearm', 'hand', 'thigh', 'calf', 'foot', 'toe',
  'thumb1', 'thumb2', 'thumb3', 'index1', 'index2', 'index3', 'middle1', 'middle2', 'middle3',
  'ring1', 'ring2', 'ring3', 'pinky1', 'pinky2', 'pinky3',
] as const;
export const CENTER_ROLES = ['pelvis', 'neck', 'head'] as const;

/**
 * The words naming each role, by rank: a bone named by a word of lower rank wins the role over one
 * of higher rank on the same side (a rig with both `Clavicle` and `Shoulder` bones).
 */
const ROLE_WORDS: Record<string, readonly [role: string, rank: number]> = {
  hips: ['pelvis', 0], pelvis: ['pelvis', 0], hip: ['pelvis', 1],
  neck: ['neck', 0], head: ['head', 0],
  clavicle: ['clavicle', 0], collar: ['clavicle', 0], shoulder: ['clavicle', 1],
  upperarm: ['upperarm', 0], uparm: ['upperarm', 0], shldr: ['upperarm', 0], arm: ['upperarm', 1],
  forearm: ['forearm', 0], lowerarm: ['forearm', 0], loarm: ['forearm', 0], elbow: ['forearm', 2],
  hand: ['hand', 0], wrist: ['hand', 1], palm: ['hand', 2],
  thigh: ['thigh', 0], upleg: ['thigh', 0], upperleg: ['thigh', 0],
  calf: ['calf', 0], lowerleg: ['calf', 0], loleg: ['calf', 0], shin: ['calf', 0], leg: ['calf', 1], knee: ['calf', 2],
  foot: ['foot', 0], ankle: ['foot', 1],
  toebase: ['toe', 0], toe: ['toe', 0], toes: ['toe', 0], ball: ['toe', 1],
};
const FINGER_WORDS: Record<string, string> = { thumb: 'thumb', index: 'index', middle: 'middle', mid: 'middle', ring: 'ring', pinky: 'pinky', little: 'pinky' };
/** Words that make a bone a helper with no role of its own. */
const HELPER_WORDS = new Set(['share', 'roll', 'ik', 'pole', 'target', 'end', 'nub', 'site', 'helper', 'corrective', 'ctrl', 'control']);
const PREFIX = /^(CC_Base_|Bip0*1[ _]?|DEF[-_.]|ORG[-_.]|MCH[-_.])/i;

/** A name's words, lower case: namespace and known prefixes dropped, split at separators, case changes and digits. */
export function nameWords(name: string): string[] {
  const base = name.slice(Math.max(name.lastIndexOf(':'), name.lastIndexOf('|')) + 1).replace(PREFIX, '');
  return base
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/([A-Za-z])([0-9])/g, '$1 $2')
    .replace(/([0-9])([A-Za-z])/g, '$1 $2')
    .split(/[\s_.\-]+/)
    .filter((w) => w.length > 0)
    .map((w) => w.toLowerCase());
}

/** The side a name says: a word left/right, or a lone l/r. */
export function boneSide(name: string): BoneSide {
  for (const w of nameWords(name)) {
    if (w === 'left' || w === 'l') return 'left';
    if (w === 'right' || w === 'r') return 'right';
  }
  return 'center';
}

/** What a name says of its bone: role (with `.L`/`.R` for a sided one), rank, and whether it is a twist bone; null for none. */
export function boneRole(name: string): { role: string; rank: number; twist: boolean; number: number } | null {
  const words = nameWords(name);
  let side: BoneSide = 'center', number = 0, twist = false;
  const rest: string[] = [];
  for (const w of words) {
    if (HELPER_WORDS.has(w)) return null;
    if (w === 'left' || w === 'l') side = 'left';
    else if (w === 'right' || w === 'r') side = 'right';
    else if (/^[0-9]+$/.test(w)) number = Number(w);
    else if (w === 'twist') twist = true;
    else if (w !== 'bone' && w !== 'jnt' && w !== 'joint') rest.push(w);
  }
  let key = rest.join('');
  // Mixamo's LeftHandThumb1: the finger, not the hand.
  if (key.startsWith('hand') && FINGER_WORDS[key.slice(4)] !== undefined) key = key.slice(4);
  const finger = FINGER_WORDS[key];
  const suffix = side === 'left' ? '.L' : side === 'right' ? '.R' : '';
  if (finger !== undefined) {
    if (side === 'center') return null;
    return { role: `${finger}${Math.min(Math.max(number, 1), 3)}${suffix}`, rank: 0, twist, number };
  }
  const found = Object.hasOwn(ROLE_WORDS, key) ? ROLE_WORDS[key] : undefined;
  if (found === undefined) return null;
  const [role, rank] = found;
  const sided = (SIDED_ROLES as readonly string[]).includes(role);
  if (sided !== (side !== 'center')) return null;
  return { role: `${role}${suffix}`, rank: rank + (twist ? 10 : 0), twist, number };
}

// A lone L or R (not RL), or a lowercase l or r before a capital (lShldr).
const SIDE_SWAP = /(?<![a-z])(Left|LEFT|left|Right|RIGHT|right)|(?<![A-Za-z])([LR])(?![A-Za-z])|(?<![A-Za-z])([lr])(?![a-z])/g;
const SWAPPED: Record<string, string> = { Left: 'Right', LEFT: 'RIGHT', left: 'right', Right: 'Left', RIGHT: 'LEFT', right: 'left', L: 'R', R: 'L', l: 'r', r: 'l' };

/** The name with every side word swapped (Foot.L → Foot.R, LeftArm → RightArm, thigh_l → thigh_r, lShldr → rShldr). */
export function mirroredName(name: string): string {
  return name.replace(SIDE_SWAP, (m) => SWAPPED[m] ?? m);
}

/**
 * Each bone's mirror partner (its own index for a bone with none): the bone whose name is this
 * one's with the sides swapped, when the skeleton has it; `pairs` given by hand take precedence
 * (each names two bones, both then partnered only with each other).
 */
export function mirrorPartners(skeleton: Skeleton, pairs: readonly (readonly [string, string])[] = []): Int32Array {
  const n = skeleton.boneCount;
  const partner = new Int32Array(n);
  for (let b = 0; b < n; b++) {
    const other = skeleton.indexOf(mirroredName(skeleton.boneNames[b]));
    partner[b] = other >= 0 ? other : b;
  }
  // Swapping sides twice gives the name back, so automatic pairs are mutual; a pair given by hand
  // first frees the bones it takes from their automatic partners.
  for (const [a, b] of pairs) {
    const i = skeleton.indexOf(a), j = skeleton.indexOf(b);
    if (i < 0 || j < 0) continue;
    partner[partner[i]] = partner[i];
    partner[partner[j]] = partner[j];
    partner[i] = j;
    partner[j] = i;
  }
  return partner;
}

/**
 * The bones of each role a skeleton has, by name and structure: role → bone indices (one bone,
 * or several siblings of the same rank: the robot's three palms are all its hand). The pelvis is
 * the nearest common ancestor of the two thighs when both are found; `spine` lists the bones from
 * the pelvis (excluded) to the neck (excluded), or to the head without a neck, along the hierarchy.
 */
export function boneRoles(skeleton: Skeleton): Map<string, number[]> {
  const candidates = new Map<string, { bone: number; rank: number; number: number }[]>();
  const n = skeleton.boneCount, parents = skeleton.parents, depths = skeleton.depths;
  for (let b = 0; b < n; b++) {
    const found = boneRole(skeleton.boneNames[b]);
    if (found === null) continue;
    const list = candidates.get(found.role) ?? [];
    list.push({ bone: b, rank: found.rank, number: found.number });
    candidates.set(found.role, list);
  }
  const roles = new Map<string, number[]>();
  for (const [role, list] of candidates) {
    // The best rank, then the lowest number, then the shallowest; with its siblings of that rank.
    list.sort((a, b) => a.rank - b.rank || a.number - b.number || depths[a.bone] - depths[b.bone] || a.bone - b.bone);
    const top = list[0];
    roles.set(role, list.filter((c) => c.rank === top.rank && parents[c.bone] === parents[top.bone]).map((c) => c.bone));
  }
  const left = roles.get('thigh.L')?.[0], right = roles.get('thigh.R')?.[0];
  if (left !== undefined && right !== undefined) {
    const pelvis = commonAncestor(parents, left, right);
    if (pelvis >= 0) roles.set('pelvis', [pelvis]);
  }
  const pelvis = roles.get('pelvis')?.[0];
  const top = roles.get('neck')?.[0] ?? roles.get('head')?.[0];
  if (pelvis !== undefined && top !== undefined) roles.set('spine', pathBetween(parents, pelvis, top));
  return roles;
}

/** The nearest common ancestor of two bones (either may be it), or -1. */
export function commonAncestor(parents: Int32Array, a: number, b: number): number {
  const above = new Set<number>();
  for (let x = a; x >= 0; x = parents[x]) above.add(x);
  for (let x = b; x >= 0; x = parents[x]) if (above.has(x)) return x;
  return -1;
}

/** The bones on the hierarchy's path from `from` to `to`, both excluded: up to their common ancestor (included when it is neither), then down. */
function pathBetween(parents: Int32Array, from: number, to: number): number[] {
  const common = commonAncestor(parents, from, to);
  if (common < 0) return [];
  const up: number[] = [];
  for (let x = parents[from]; x >= 0 && x !== parents[common]; x = parents[x]) {
    if (x === common && (common === from || common === to)) break;
    up.push(x);
  }
  const down: number[] = [];
  for (let x = parents[to]; x >= 0 && x !== common; x = parents[x]) down.unshift(x);
  return from === common ? down : [...up, ...down];
}

/**
 * The bones of `target` matched to bones of `source` by role: target bone index → source bone
 * index, or -1 where nothing matches. Every target bone of a role takes the source's bone of that
 * role (the source's shallowest); the spine chains are matched by their place along the chain
 * (the target's first and last spine bones to the source's first and last, those between
 * proportionally), whatever the number of bones in each.
 */
export function autoBoneMap(source: Skeleton, target: Skeleton): Int32Array {
  const map = new Int32Array(target.boneCount).fill(-1);
  const from = boneRoles(source), to = boneRoles(target);
  for (const [role, bones] of to) {
    const src = from.get(role);
    if (src === undefined || src.length === 0) continue;
    if (role === 'spine') {
      const m = src.length, k = bones.length;
      bones.forEach((b, i) => {
        map[b] = src[k === 1 ? m - 1 : Math.round((i * (m - 1)) / (k - 1))];
      });
      continue;
    }
    const s = src.reduce((a, b) => (source.depths[b] < source.depths[a] ? b : a));
    for (const b of bones) map[b] = s;
  }
  return map;
}
