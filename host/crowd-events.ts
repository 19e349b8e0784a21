import { EventEmitter } from 'eventemitter3';
import { AnimGraphError } from '../runtime/core/errors.ts';
import type { AnimGraphInstance } from '../runtime/graph/graph.ts';
import type { AnimGraphEvents } from '../runtime/node/events.ts';
import type { CrowdWorkerError } from './crowd-errors.ts';

/**
 * The instance events a Crowd can deliver on the calling thread, with their arguments' kinds in
 * order (s: a string, n: a number, b: a boolean), which say how each crosses threads. Not
 * parameterChanged: a crowd's parameters are set on the calling thread, through the crowd.
 */
const EVENT_ARGUMENTS = {
  sequenceLooped: 'ssn',
  sequenceEnded: 'ssn',
  nodeBecameRelevant: 'ss',
  inertializationStarted: 'sn',
  inertializationEnded: 'snb',
  motionOutOfRange: 'snn',
  notify: 'ssn',
  notifyBegin: 'ssn',
  notifyEnd: 'ssn',
  slotEnded: 'sssb',
  montageStarted: 'ss',
  montageSectionChanged: 'ssss',
  montageNotify: 'sssb',
  montageBlendingOut: 'ssb',
  montageEnded: 'ssb',
  stateEntered: 'ss',
  stateExited: 'ss',
  transitionStarted: 'sssn',
} as const satisfies Record<Exclude<keyof AnimGraphEvents, 'parameterChanged'>, string>;

/** An instance event a Crowd can forward (CrowdOptions.events). */
export type CrowdEventName = keyof typeof EVENT_ARGUMENTS;

/** The forwardable event names, in the order their records number them. */
export const CROWD_EVENT_NAMES = Object.keys(EVENT_ARGUMENTS) as readonly CrowdEventName[];
const KINDS: readonly string[] = CROWD_EVENT_NAMES.map((name) => EVENT_ARGUMENTS[name]);

type WithCharacter<F> = F extends (...args: infer A) => void ? (character: number, ...args: A) => void : never;

/** Where a character's frame left a number that is not finite (CrowdEvents.nonFinitePose). */
export type NonFiniteAttribute = 'translation' | 'rotation' | 'scale' | 'rootMotion';

/**
 * What Crowd.events emits: each forwarded instance event with the character's index first, then
 * the instance event's own arguments; `eventsDropped` when a frame had more events than the
 * crowd keeps (CrowdOptions.eventsPerCharacter), with how many were lost; `nonFinitePose`
 * (CrowdOptions.checkFinite) for a character whose frame left a NaN or an infinity in its pose or
 * root motion, with the first such bone (null for the root motion) and attribute; `workerFailed`
 * (CrowdOptions.restartWorkers) for a worker thread that failed and is being started again.
 */
export type CrowdEvents = { [K in CrowdEventName]: WithCharacter<AnimGraphEvents[K]> } & {
  eventsDropped: (count: number) => void;
  nonFinitePose: (character: number, bone: string | null, attribute: NonFiniteAttribute) => void;
  workerFailed: (error: CrowdWorkerError) => void;
};

export class CrowdEventEmitter extends EventEmitter<CrowdEvents> {}

/** Doubles per event record: [event, character, up to four arguments]. */
const RECORD = 6;
/** Bytes of each thread's log of the strings its events carried (names of nodes, clips, notifies, states, slots). */
export const EVENT_STRING_BYTES = 1 << 16;
/** Default room for events per character per frame, pooled over a thread's share. */
export const DEFAULT_EVENTS_PER_CHARACTER = 4;

/** The shared arrays through which a crowd's threads hand their characters' events to the calling thread. */
export interface CrowdEventBuffers {
  /** Events a thread recorded this frame: thread t's from record first[t] * perCharacter. */
  records: Float64Array;
  /** Per thread: [records written this frame, events dropped this frame, strings logged, string bytes used]. */
  counts: Int32Array;
  /** Per thread, EVENT_STRING_BYTES: each new string as its UTF-8 length (two bytes, little-endian) and its bytes. */
  strings: Uint8Array;
}

/** Where the records of the share starting at character `firstCharacter` begin in CrowdEventBuffers.records. */
function recordsStart(firstCharacter: number, perCharacter: number): number {
  return firstCharacter * perCharacter * RECORD;
}

export function crowdEventBuffers(characters: number, perCharacter: number, threads: number, events: boolean): CrowdEventBuffers {
  const records = events ? characters * perCharacter * RECORD : 0;
  return {
    records: new Float64Array(new SharedArrayBuffer(Math.max(records, 1) * 8)).subarray(0, records),
    counts: new Int32Array(new SharedArrayBuffer(threads * 4 * 4)),
    strings: new Uint8Array(new SharedArrayBuffer(events ? threads * EVENT_STRING_BYTES : 1)),
  };
}

/**
 * Checks a crowd's `events` option; returns the names, each once. Throws an AnimGraphError naming
 * what a crowd cannot forward: `unknown-name` for a name that is no event it forwards,
 * `invalid-argument` for parameterChanged or events that are not an array.
 */
export function checkCrowdEvents(events: readonly string[] | undefined): CrowdEventName[] {
  if (events === undefined) return [];
  if (!Array.isArray(events)) throw new AnimGraphError('invalid-argument', `events must be an array of event names; got ${String(events)}`);
  const names = new Set<CrowdEventName>();
  for (const name of events) {
    if (name === 'parameterChanged') {
      throw new AnimGraphError('invalid-argument', "a crowd does not forward 'parameterChanged': its parameters are set on the calling thread, through the crowd");
    }
    if (!(CROWD_EVENT_NAMES as readonly string[]).includes(name)) {
      throw new AnimGraphError('unknown-name', `a crowd cannot forward event '${name}' (events: ${CROWD_EVENT_NAMES.join(', ')})`);
    }
    names.add(name as CrowdEventName);
  }
  return [...names];
}

/** A crowd's `eventsPerCharacter` option (default DEFAULT_EVENTS_PER_CHARACTER); an AnimGraphError unless a whole number from 1 to 256. */
export function checkEventsPerCharacter(perCharacter: number | undefined): number {
  const n = perCharacter ?? DEFAULT_EVENTS_PER_CHARACTER;
  // 48 bytes an event: 256 a character is 12 KB a character, more than its pose.
  if (!Number.isInteger(n) || n < 1 || n > 256) throw new AnimGraphError(typeof n === 'number' ? 'out-of-range' : 'invalid-argument', `eventsPerCharacter must be a whole number from 1 to 256; got ${perCharacter}`);
  return n;
}

/** What a recording listener is called with as `this`: one per character. */
interface RecordingContext {
  readonly recorder: CrowdEventRecorder;
  readonly character: number;
}

/**
 * One thread's side: listeners on its characters' instances that write their events, in the order
 * they fire, into the thread's records, strings as indices into the thread's string log. An event
 * past the share's room, or whose string no longer fits the log, is counted as dropped instead.
 * Allocates nothing once every string has been seen once.
 */
export class CrowdEventRecorder {
  private readonly indices = new Map<string, number>();
  private readonly first: number;
  private readonly capacity: number;
  private readonly countsAt: number;
  private readonly stringsAt: number;

  constructor(private readonly buffers: CrowdEventBuffers, thread: number, firstCharacter: number, characters: number, perCharacter: number) {
    this.first = recordsStart(firstCharacter, perCharacter);
    this.capacity = characters * perCharacter;
    this.countsAt = thread * 4;
    this.stringsAt = thread * EVENT_STRING_BYTES;
  }

  /** Forwards `events` of `instance`, character `character` of the crowd. */
  listen(instance: AnimGraphInstance, character: number, events: readonly CrowdEventName[]): void {
    const context: RecordingContext = { recorder: this, character };
    for (const name of events) instance.events.on(name, RECORDERS[CROWD_EVENT_NAMES.indexOf(name)] as never, context);
  }

  record(event: number, character: number, a: unknown, b: unknown, c: unknown, d: unknown): void {
    const counts = this.buffers.counts, at = this.countsAt;
    const written = counts[at];
    if (written >= this.capacity) {
      counts[at + 1]++;
      return;
    }
    const kinds = KINDS[event], records = this.buffers.records, from = this.first + written * RECORD;
    records[from] = event;
    records[from + 1] = character;
    for (let k = 0; k < kinds.length; k++) {
      const value = k === 0 ? a : k === 1 ? b : k === 2 ? c : d;
      const kind = kinds.charCodeAt(k);
      let encoded: number;
      if (kind === S) {
        encoded = this.stringIndex(value as string);
        if (encoded < 0) {
          counts[at + 1]++;
          return;
        }
      } else if (kind === B) encoded = value === true ? 1 : 0;
      else encoded = value as number;
      records[from + 2 + k] = encoded;
    }
    counts[at] = written + 1;
  }

  /** `text`'s index in this thread's string log, logged first if new; -1 if the log is full. */
  private stringIndex(text: string): number {
    const known = this.indices.get(text);
    if (known !== undefined) return known;
    const bytes = new TextEncoder().encode(text);
    const counts = this.buffers.counts, at = this.countsAt, used = counts[at + 3];
    if (bytes.length > 0xffff || used + 2 + bytes.length > EVENT_STRING_BYTES) return -1;
    const log = this.buffers.strings, from = this.stringsAt + used;
    log[from] = bytes.length & 0xff;
    log[from + 1] = bytes.length >> 8;
    log.set(bytes, from + 2);
    counts[at + 3] = used + 2 + bytes.length;
    const index = counts[at + 2]++;
    this.indices.set(text, index);
    return index;
  }
}

const S = 's'.charCodeAt(0), B = 'b'.charCodeAt(0);

/** One listener per event, shared by every character: it learns the character from its context. */
const RECORDERS = CROWD_EVENT_NAMES.map((_, event) => function (this: RecordingContext, a: unknown, b: unknown, c: unknown, d: unknown): void {
  this.recorder.record(event, this.character, a, b, c, d);
});

/**
 * The calling thread's side: after a frame, emits every running thread's recorded events on
 * `emitter`, threads in order (their shares are contiguous, so characters in order), each thread's
 * in the order they fired, then `eventsDropped` if any were lost. `clear` empties the records before
 * the next frame; `forget` a thread's strings, before a new thread takes its place.
 */
export class CrowdEventDispatcher {
  /** Per thread, the strings of its log decoded so far. */
  private readonly strings: string[][];
  /** Per thread, the bytes of its log decoded so far (where the next new string starts). */
  private readonly decodedBytes: Int32Array;

  constructor(
    private readonly buffers: CrowdEventBuffers,
    /** Per thread, the first character of its share. */
    private readonly firstCharacters: readonly number[],
    private readonly perCharacter: number,
    private readonly emitter: CrowdEventEmitter,
    /** Per thread: 1 while it takes part in frames; a failed thread's records are left alone. */
    private readonly running: Uint8Array,
  ) {
    this.strings = firstCharacters.map(() => []);
    this.decodedBytes = new Int32Array(firstCharacters.length);
  }

  /** Forgets the last frame's records (before a frame starts: a listener that threw may have stopped dispatch part way). */
  clear(): void {
    const counts = this.buffers.counts;
    for (let t = 0; t < this.firstCharacters.length; t++) {
      counts[t * 4] = 0;
      counts[t * 4 + 1] = 0;
    }
  }

  /** Forgets thread t's string log and counts: a new thread, starting its log afresh, takes its share. */
  forget(t: number): void {
    this.strings[t] = [];
    this.decodedBytes[t] = 0;
    this.buffers.counts.fill(0, t * 4, t * 4 + 4);
  }

  dispatch(): void {
    const counts = this.buffers.counts, records = this.buffers.records, emitter = this.emitter;
    let dropped = 0;
    for (let t = 0; t < this.firstCharacters.length; t++) {
      if (this.running[t] !== 1) continue;
      const strings = this.learnStrings(t);
      const written = counts[t * 4];
      dropped += counts[t * 4 + 1];
      for (let r = 0, at = recordsStart(this.firstCharacters[t], this.perCharacter); r < written; r++, at += RECORD) {
        const event = records[at], kinds = KINDS[event], name = CROWD_EVENT_NAMES[event];
        const character = records[at + 1];
        const a = decode(kinds, 0, records[at + 2], strings), b = decode(kinds, 1, records[at + 3], strings);
        if (kinds.length === 2) emitter.emit(name, character, a as never, b as never);
        else if (kinds.length === 3) emitter.emit(name, character, a as never, b as never, decode(kinds, 2, records[at + 4], strings) as never);
        else emitter.emit(name, character, a as never, b as never, decode(kinds, 2, records[at + 4], strings) as never, decode(kinds, 3, records[at + 5], strings) as never);
      }
    }
    if (dropped > 0) emitter.emit('eventsDropped', dropped);
  }

  /** Thread t's strings, with those it logged since the last frame decoded (allocates only for new ones). */
  private learnStrings(t: number): string[] {
    const strings = this.strings[t], logged = this.buffers.counts[t * 4 + 2];
    if (strings.length === logged) return strings;
    const log = this.buffers.strings;
    let at = t * EVENT_STRING_BYTES + this.decodedBytes[t];
    const decoder = new TextDecoder();
    while (strings.length < logged) {
      const length = log[at] | (log[at + 1] << 8);
      // A copy: TextDecoder does not read views of shared memory.
      strings.push(decoder.decode(log.slice(at + 2, at + 2 + length)));
      at += 2 + length;
    }
    this.decodedBytes[t] = at - t * EVENT_STRING_BYTES;
    return strings;
  }
}

function decode(kinds: string, k: number, value: number, strings: readonly string[]): string | number | boolean {
  const kind = kinds.charCodeAt(k);
  return kind === S ? strings[value] : kind === B ? value === 1 : value;
}
