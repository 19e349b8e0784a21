import { Clip, clipTimingProblem, type TrackLayout } from '../core/clip.ts';
import { quatFromEulerDegrees } from '../core/math.ts';
import { AnimGraphError } from '../core/errors.ts';
import { Pose } from '../core/pose.ts';
import { MAX_BONES, Skeleton } from '../core/skeleton.ts';
import { quoted } from '../core/names.ts';

/** One problem in a BVH file, with the 1-based line it was found on. */
export interface BvhProblem {
  line: number;
  message: string;
  /** Set for a file over one of the library's limits (more joints than MAX_BONES), not a malformed one. */
  tooLarge?: true;
}

/** A BVH file that cannot be read, with every problem found and its line (code `bad-file`). */
export class BvhError extends AnimGraphError {
  constructor(readonly source: string, readonly problems: BvhProblem[]) {
    super('bad-file', `malformed BVH ${source}:\n${problems.map((p) => `  line ${p.line}: ${p.message}`).join('\n')}`);
    this.name = 'BvhError';
  }
}

export interface BvhJoint {
  name: string;
  parent: number;
  offset: [number, number, number];
  /** Channel names in file order, e.g. ['Xposition', 'Yposition', 'Zposition', 'Zrotation', 'Yrotation', 'Xrotation']. */
  channels: string[];
}

export interface BvhData {
  joints: BvhJoint[];
  frameCount: number;
  frameTime: number;
  /** frameCount rows of channel values, joints in file order, channels in each joint's order. */
  values: Float64Array;
  channelCount: number;
}

const CHANNEL_NAMES = new Set(['Xposition', 'Yposition', 'Zposition', 'Xrotation', 'Yrotation', 'Zrotation']);

/**
 * Parses BVH text. Every problem found is reported at once in a BvhError: unbalanced braces,
 * unknown channels or one listed twice, joint names used twice, a channel count that does not match
 * the numbers on a data row, numbers that do not parse, a frame count that does not match the rows,
 * a frame time or duration out of range (clipTimingProblem).
 */
export function parseBvh(text: string, source = '<bvh>'): BvhData {
  const lines = text.split(/\r?\n/);
  const problems: BvhProblem[] = [];
  const joints: BvhJoint[] = [];
  const jointLines = new Map<string, number>();
  const stack: number[] = [];
  let pendingJoint = -1; // joint whose '{' is expected next
  let inEndSite = false;
  let endSiteDepth = 0;
  let lineIndex = 0;
  const num = (token: string | undefined, line: number, what: string): number => {
    const v = token === undefined ? NaN : Number(token);
    if (!Number.isFinite(v)) problems.push({ line, message: `${what}: '${token ?? ''}' is not a number` });
    return Number.isFinite(v) ? v : 0;
  };

  while (lineIndex < lines.length && lines[lineIndex].trim() === '') lineIndex++;
  if (lines[lineIndex]?.trim() !== 'HIERARCHY') {
    throw new BvhError(source, [{ line: lineIndex + 1, message: "expected 'HIERARCHY' at the start of the file" }]);
  }
  lineIndex++;
  let sawMotion = false;
  for (; lineIndex < lines.length; lineIndex++) {
    const lineNo = lineIndex + 1;
    const tokens = lines[lineIndex].trim().split(/\s+/).filter((t) => t.length > 0);
    if (tokens.length === 0) continue;
    const head = tokens[0];
    if (head === 'MOTION') {
      sawMotion = true;
      lineIndex++;
      break;
    }
    if (head === 'ROOT' || head === 'JOINT') {
      // Stopped at once: the motion rows of so many joints would be read for nothing.
      if (joints.length === MAX_BONES) throw new BvhError(source, [{ line: lineNo, message: `more than ${MAX_BONES.toLocaleString('en-US')} joints, the most bones a skeleton may have (MAX_BONES)`, tooLarge: true }]);
      if (head === 'JOINT' && stack.length === 0) problems.push({ line: lineNo, message: 'JOINT outside any ROOT' });
      if (tokens.length < 2) problems.push({ line: lineNo, message: `${head} needs a name` });
      const name = tokens.slice(1).join(' ') || `joint${joints.length}`;
      // Bones are found by name (clips, masks, IK): a second joint of the same name is an error here,
      // with its line, rather than the skeleton's own error later without one.
      const first = jointLines.get(name);
      if (first !== undefined) problems.push({ line: lineNo, message: `joint name ${quoted(name)} is used twice (first on line ${first})` });
      else jointLines.set(name, lineNo);
      joints.push({ name, parent: stack.length > 0 ? stack[stack.length - 1] : -1, offset: [0, 0, 0], channels: [] });
      pendingJoint = joints.length - 1;
    } else if (head === 'End') {
      inEndSite = true;
      endSiteDepth = 0;
    } else if (head === '{') {
      if (inEndSite) endSiteDepth++;
      else if (pendingJoint >= 0) {
        stack.push(pendingJoint);
        pendingJoint = -1;
      } else problems.push({ line: lineNo, message: "'{' without a ROOT or JOINT before it" });
    } else if (head === '}') {
      if (inEndSite) {
        endSiteDepth--;
        if (endSiteDepth <= 0) inEndSite = false;
      } else if (stack.length === 0) problems.push({ line: lineNo, message: "'}' closes nothing" });
      else stack.pop();
    } else if (head === 'OFFSET') {
      if (tokens.length !== 4) problems.push({ line: lineNo, message: `OFFSET needs 3 numbers, found ${tokens.length - 1}` });
      const offset: [number, number, number] = [num(tokens[1], lineNo, 'OFFSET x'), num(tokens[2], lineNo, 'OFFSET y'), num(tokens[3], lineNo, 'OFFSET z')];
      if (!inEndSite && stack.length > 0) joints[stack[stack.length - 1]].offset = offset;
    } else if (head === 'CHANNELS') {
      const declared = Number(tokens[1]);
      const names = tokens.slice(2);
      if (!Number.isInteger(declared) || declared !== names.length) {
        problems.push({ line: lineNo, message: `CHANNELS declares ${tokens[1]} channels but lists ${names.length}` });
      }
      for (const n of names) if (!CHANNEL_NAMES.has(n)) problems.push({ line: lineNo, message: `unknown channel '${n}'` });
      // A rotation is three angles in the listed order, a position three coordinates: a channel
      // listed twice has no meaning (a fourth Euler angle, a coordinate set twice).
      names.forEach((n, i) => {
        if (CHANNEL_NAMES.has(n) && names.indexOf(n) !== i) problems.push({ line: lineNo, message: `channel '${n}' listed twice` });
      });
      if (stack.length > 0 && !inEndSite) joints[stack[stack.length - 1]].channels = names.filter((n) => CHANNEL_NAMES.has(n));
    } else {
      problems.push({ line: lineNo, message: `unexpected '${head}' in HIERARCHY` });
    }
  }
  if (stack.length > 0) problems.push({ line: lineIndex, message: `${stack.length} joint(s) not closed with '}'` });
  if (joints.length === 0) problems.push({ line: 1, message: 'no ROOT joint' });
  if (!sawMotion) {
    problems.push({ line: lines.length, message: "no 'MOTION' section" });
    throw new BvhError(source, problems);
  }

  const channelCount = joints.reduce((sum, j) => sum + j.channels.length, 0);
  let frameCount = 0;
  let frameTime = 0;
  const header = (prefix: RegExp, what: string): number => {
    while (lineIndex < lines.length && lines[lineIndex].trim() === '') lineIndex++;
    const line = lines[lineIndex] ?? '';
    const m = prefix.exec(line.trim());
    if (!m) {
      problems.push({ line: lineIndex + 1, message: `expected '${what}'` });
      return 0;
    }
    lineIndex++;
    return num(m[1], lineIndex, what);
  };
  frameCount = header(/^Frames:\s*(\S+)$/, 'Frames: N');
  frameTime = header(/^Frame Time:\s*(\S+)$/, 'Frame Time: seconds');
  if (!(frameTime > 0)) problems.push({ line: lineIndex, message: `frame time must be positive, got ${frameTime}` });
  else {
    const timing = clipTimingProblem(frameTime, Number.isInteger(frameCount) && frameCount >= 1 ? frameCount : 1);
    if (timing !== null) problems.push({ line: lineIndex, message: timing });
  }
  if (!Number.isInteger(frameCount) || frameCount < 1) problems.push({ line: lineIndex, message: `frame count must be a positive integer, got ${frameCount}` });

  const rows: number[][] = [];
  let badRows = 0;
  for (; lineIndex < lines.length; lineIndex++) {
    const trimmed = lines[lineIndex].trim();
    if (trimmed === '') continue;
    const tokens = trimmed.split(/\s+/);
    const lineNo = lineIndex + 1;
    if (tokens.length !== channelCount) {
      if (badRows++ < 20) problems.push({ line: lineNo, message: `data row has ${tokens.length} values but the hierarchy declares ${channelCount} channels` });
      rows.push(new Array<number>(channelCount).fill(0));
      continue;
    }
    const row = tokens.map((t, i) => {
      const v = Number(t);
      if (!Number.isFinite(v) && badRows++ < 20) problems.push({ line: lineNo, message: `value ${i + 1} '${t}' is not a number` });
      return Number.isFinite(v) ? v : 0;
    });
    rows.push(row);
  }
  if (badRows > 20) problems.push({ line: lines.length, message: `${badRows - 20} more bad data rows not listed` });
  if (Number.isInteger(frameCount) && frameCount >= 1 && rows.length !== frameCount) {
    problems.push({ line: lines.length, message: `header says ${frameCount} frames but ${rows.length} data rows follow` });
  }
  if (problems.length > 0) throw new BvhError(source, problems);

  const values = new Float64Array(rows.length * channelCount);
  rows.forEach((row, f) => values.set(row, f * channelCount));
  return { joints, frameCount: rows.length, frameTime, values, channelCount };
}

/** The skeleton a BVH hierarchy describes: one bone per joint, reference pose from the offsets. */
export function bvhSkeleton(data: BvhData): Skeleton {
  const pose = new Pose(data.joints.length);
  data.joints.forEach((j, i) => pose.translations.set(j.offset, i * 3));
  return new Skeleton(data.joints.map((j) => j.name), data.joints.map((j) => j.parent), pose);
}

/**
 * The clip a BVH motion section describes. Rotation channels become a rotation track (the Euler
 * angles applied in channel order as intrinsic rotations: "Zrotation Yrotation Xrotation" is
 * Rz * Ry * Rx). Position channels become a translation track whose values replace the joint's
 * offset on the axes they cover (three.js's BVHLoader adds them to the offset instead; the two
 * agree at a zero offset, the usual root).
 */
export function bvhClip(data: BvhData, name: string): Clip {
  const tracks: TrackLayout[] = data.joints.map((j) => ({
    bone: j.name,
    translation: j.channels.some((c) => c.endsWith('position')),
    rotation: j.channels.some((c) => c.endsWith('rotation')),
    scale: false,
  }));
  const n = tracks.length;
  const clip = new Clip({ name, frameRate: 1 / data.frameTime, frameCount: data.frameCount, tracks });
  const angles = new Float64Array(3);
  for (let f = 0; f < data.frameCount; f++) {
    let c = f * data.channelCount;
    data.joints.forEach((joint, j) => {
      const t = (f * n + j) * 3;
      clip.translations[t] = joint.offset[0];
      clip.translations[t + 1] = joint.offset[1];
      clip.translations[t + 2] = joint.offset[2];
      let order = '';
      let k = 0;
      for (const channel of joint.channels) {
        const v = data.values[c++];
        const axis = channel.charCodeAt(0) - 88; // 'X' -> 0
        if (channel.endsWith('position')) clip.translations[t + axis] = v;
        else {
          order += channel[0];
          angles[k++] = v;
        }
      }
      if (order.length > 0) quatFromEulerDegrees(clip.rotations, (f * n + j) * 4, order, angles);
    });
  }
  return clip;
}

/** Parses a BVH file's text into its skeleton and its clip. */
export function loadBvh(text: string, name: string, source = name): { skeleton: Skeleton; clip: Clip; data: BvhData } {
  const data = parseBvh(text, source);
  return { skeleton: bvhSkeleton(data), clip: bvhClip(data, name), data };
}
