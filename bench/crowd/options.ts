/**
 * The crowd bench's command line and its case list: what each case runs on animgraph's side, on
 * the Crowd's, and which reference (peer, three.js) it is measured against.
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import type { Crowd } from '../../host/crowd.ts';
import type { KernelPrecision } from '../../runtime/kernel/sampling-kernel.ts';
import type { AnimGraphInstance } from '../../runtime/graph/instance.ts';
import { CROWD_MONTAGE_EVERY, CROWD_SEARCH_EVERY, CROWD_STATE_EVERY, CROWD_STRIDE_SCALE, crowdLodRate, type CrowdGraphKind } from '../crowd-cases.ts';
import type { ThreeCrowdMode } from '../three-crowd.ts';

/** Every character advances this much per frame, on every side. */
export const DT = 1 / 60;

export interface Options {
  quick: boolean;
  json: string | null;
  counts: number[];
  cases: string[];
  three: boolean;
  allocProfile: boolean;
  /** Worker threads of the Crowd side (besides the calling thread); 0: no Crowd side. */
  workers: number;
}

export interface CaseDefinition {
  name: string;
  kind: CrowdGraphKind;
  component: boolean;
  /** Whether the hand-written peer does this case (it does the player and blend arithmetic only). */
  peer: boolean;
  /**
   * Measure against the same crowd at full update rate instead of the peer (for the 'lod' case:
   * ag/peer is then the saving, max diff the interpolation's).
   */
  fullRate?: boolean;
  /** three.js's reference; `same`: it does the same work, so its poses are compared with animgraph's. */
  three: { mode: ThreeCrowdMode; component: boolean; same: boolean; note: string };
  /** Brings a fresh crowd into the state the case measures (before warm-up). */
  start?: (instances: readonly AnimGraphInstance[]) => void;
  /** The same for the Crowd side. */
  startCrowd?: (crowd: Crowd) => void;
  /** Checks, after warm-up, that the crowd is in that state. */
  check?: (instance: AnimGraphInstance) => void;
  /** See GraphCrowd: frames between two switches of a character's 'motion' parameter. */
  switchEvery?: number;
  /** The node type the case is about, when it is one that may not have landed yet. */
  node?: string;
  /** InstanceBatchOptions.precision (and CrowdOptions.precision) of animgraph's side; default 'double'. */
  precision?: KernelPrecision;
}

export const ALL_CASES: readonly CaseDefinition[] = [
  { name: 'player', kind: 'player', component: false, peer: true, three: { mode: 'player', component: false, same: true, note: 'one action' } },
  { name: 'blend', kind: 'blend', component: false, peer: true, three: { mode: 'blend', component: false, same: true, note: 'crossFadeTo held at 0.5' } },
  { name: 'player+cs', kind: 'player', component: true, peer: true, three: { mode: 'player', component: true, same: true, note: 'one action + updateMatrixWorld' } },
  { name: 'blend+cs', kind: 'blend', component: true, peer: true, three: { mode: 'blend', component: true, same: true, note: 'crossfade + updateMatrixWorld' } },
  // The same three with the kernel sampling in single precision (InstanceBatchOptions.precision).
  { name: 'player/f32', kind: 'player', component: false, peer: true, precision: 'single', three: { mode: 'player', component: false, same: true, note: 'one action' } },
  { name: 'blend/f32', kind: 'blend', component: false, peer: true, precision: 'single', three: { mode: 'blend', component: false, same: true, note: 'crossFadeTo held at 0.5' } },
  { name: 'blend+cs/f32', kind: 'blend', component: true, peer: true, precision: 'single', three: { mode: 'blend', component: true, same: true, note: 'crossfade + updateMatrixWorld' } },
  {
    name: 'inertial', kind: 'inertial', component: false, peer: false,
    three: { mode: 'blend', component: false, same: false, note: 'nearest: crossfade (no inertialization in three.js)' },
    start: (instances) => {
      // One frame on A, then switch: the transition starts on the next update and never ends.
      for (const instance of instances) {
        instance.update(DT);
        instance.evaluate();
        instance.setParameter('useA', false);
      }
    },
    startCrowd: (crowd) => {
      crowd.update(DT);
      for (let i = 0; i < crowd.count; i++) crowd.setParameter(i, 'useA', false);
    },
    check: (instance) => {
      if (instance.gatherDebug().children[0]?.values?.active !== true) throw new Error('inertial: the crowd is not in a transition');
    },
  },
  {
    name: 'stride+cs', kind: 'stride', component: true, peer: false,
    three: { mode: 'stride', component: true, same: false, note: 'nearest: player + updateMatrixWorld + CCDIKSolver on both legs' },
    check: (instance) => {
      const scale = instance.gatherDebug().children[0]?.values?.strideScale;
      if (scale !== CROWD_STRIDE_SCALE) throw new Error(`stride+cs: StrideWarping runs at scale ${String(scale)}`);
    },
  },
  {
    name: 'posesearch', kind: 'posesearch', component: false, peer: false, switchEvery: CROWD_SEARCH_EVERY, node: 'PoseSearchBlend',
    three: { mode: 'blend', component: false, same: false, note: 'nearest: crossfade (no pose search in three.js)' },
    check: (instance) => {
      // Character 0 flips 'motion' on frames 10, 20, ... (frame 0 sets it to the clip it starts on).
      if (!(Number(instance.gatherDebug().children[0]?.values?.matchFrame) >= 0)) throw new Error('posesearch: no search has matched a frame');
    },
  },
  {
    name: 'statemachine', kind: 'statemachine', component: false, peer: false, switchEvery: CROWD_STATE_EVERY, node: 'StateMachine',
    three: { mode: 'blend', component: false, same: false, note: 'nearest: crossfade (no state machine in three.js)' },
    check: (instance) => {
      // Character 0 flips 'motion' every CROWD_STATE_EVERY frames; the transition starts in the same update.
      const state = instance.gatherDebug().children[0]?.values?.activeState;
      const want = instance.getParameter('motion') === 1 ? 'run' : 'walk';
      if (state !== want) throw new Error(`statemachine: active state ${String(state)} while 'motion' asks for ${want}`);
    },
  },
  {
    // The statemachine case under an upper-body Slot and an AimOffset; every 4th character plays a
    // montage whose middle section loops (a section change every second).
    name: 'montage', kind: 'montage', component: false, peer: false, switchEvery: CROWD_STATE_EVERY, node: 'Slot',
    three: { mode: 'blend', component: false, same: false, note: 'nearest: crossfade (no montages or aim offsets in three.js)' },
    start: (instances) => instances.forEach((instance, i) => {
      if (i % CROWD_MONTAGE_EVERY === 0) instance.playMontage('swing');
    }),
    startCrowd: (crowd) => {
      for (let i = 0; i < crowd.count; i += CROWD_MONTAGE_EVERY) crowd.playMontage(i, 'swing');
    },
    check: (instance) => {
      if (!instance.isMontagePlaying('swing')) throw new Error('montage: character 0 plays no montage');
    },
  },
  {
    name: 'layered', kind: 'layered', component: false, peer: false, node: 'LayeredBlendPerBone',
    three: { mode: 'blend', component: false, same: false, note: 'nearest: crossfade (no per-bone layers in three.js)' },
  },
  {
    name: 'lod', kind: 'blend', component: false, peer: false, fullRate: true,
    three: { mode: 'blend', component: false, same: false, note: 'nearest: crossfade every frame (no update-rate optimisation in three.js)' },
    start: (instances) => instances.forEach((instance, i) => {
      const { rate, phase } = crowdLodRate(i);
      instance.setUpdateRate(rate, phase);
    }),
    startCrowd: (crowd) => {
      for (let i = 0; i < crowd.count; i++) {
        const { rate, phase } = crowdLodRate(i);
        crowd.setUpdateRate(i, rate, phase);
      }
    },
  },
  {
    // The same rates, the skipped frames holding the last pose (interpolate: false).
    name: 'lod-hold', kind: 'blend', component: false, peer: false, fullRate: true,
    three: { mode: 'blend', component: false, same: false, note: 'nearest: crossfade every frame (no update-rate optimisation in three.js)' },
    start: (instances) => instances.forEach((instance, i) => {
      const { rate, phase } = crowdLodRate(i);
      instance.setUpdateRate(rate, phase, { interpolate: false });
    }),
    startCrowd: (crowd) => {
      for (let i = 0; i < crowd.count; i++) {
        const { rate, phase } = crowdLodRate(i);
        crowd.setUpdateRate(i, rate, phase, { interpolate: false });
      }
    },
  },
  {
    name: 'bendroll+cs', kind: 'bendroll', component: true, peer: false, node: 'BendRollHelper',
    three: { mode: 'player', component: true, same: false, note: 'nearest: player + updateMatrixWorld (no helper bones in three.js)' },
  },
  {
    name: 'controls+cs', kind: 'controls', component: true, peer: false, node: 'FABRIK',
    three: { mode: 'player', component: true, same: false, note: 'nearest: player + updateMatrixWorld (no look-at or FABRIK in three.js)' },
    check: (instance) => {
      const reach = instance.gatherDebug().children[0];
      if (!(Number(reach?.values?.iterations) >= 0) || !(Number(reach?.children[0]?.values?.angle) > 0)) {
        throw new Error('controls+cs: FABRIK or LookAt did not run');
      }
    },
  },
];

/** A TODO line for a case whose graph cannot be built (its node has not landed, or has changed). */
export function pendingNote(def: CaseDefinition, error: unknown): string {
  const file = `nodes/${def.node ?? '?'}.ts`;
  const landed = existsSync(new URL(`../../${file}`, import.meta.url));
  const why = error instanceof Error ? error.message : String(error);
  return `TODO ${def.name}: ${landed ? `${file} is there but the crowd graph did not build (${why})` : `${file} has not landed yet`}; not measured`;
}

export function parseOptions(argv: readonly string[]): Options {
  const options: Options = {
    quick: false, json: null, counts: [100, 1000], cases: ALL_CASES.map((c) => c.name), three: true, allocProfile: false,
    workers: Math.max(availableParallelism() - 1, 0),
  };
  const usage = `usage: node --expose-gc --import tsx bench/crowd.ts [--quick] [--json FILE] [--counts 100,1000] [--cases ${ALL_CASES.map((c) => c.name).join(',')}] [--no-three] [--alloc-profile] [--workers N]`;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = (): string => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${arg} needs a value`);
      return v;
    };
    if (arg === '--quick') options.quick = true;
    else if (arg === '--json') options.json = value();
    else if (arg === '--counts') options.counts = value().split(',').map((s) => Number.parseInt(s, 10));
    else if (arg === '--cases') options.cases = value().split(',');
    else if (arg === '--no-three') options.three = false;
    else if (arg === '--alloc-profile') options.allocProfile = true;
    else if (arg === '--workers') options.workers = Number.parseInt(value(), 10);
    else if (arg === '--help' || arg === '-h') {
      console.log(usage);
      process.exit(0);
    } else throw new Error(`unknown argument '${arg}'\n${usage}`);
  }
  if (options.counts.some((n) => !(n > 0))) throw new Error('--counts takes positive integers');
  if (!(options.workers >= 0)) throw new Error('--workers takes a whole number, 0 for no Crowd side');
  const unknown = options.cases.filter((c) => !ALL_CASES.some((d) => d.name === c));
  if (unknown.length > 0) throw new Error(`unknown case(s) ${unknown.join(', ')}; have ${ALL_CASES.map((c) => c.name).join(', ')}`);
  return options;
}
