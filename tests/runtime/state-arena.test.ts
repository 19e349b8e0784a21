import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadGraphFile } from '../../host/files.ts';
import { StateArena, stateFloat64, stateInt32, stateUint8, withStateArena } from '../../runtime/state-arena.ts';

const LOCOMOTION = fileURLToPath(new URL('../../graphs/examples/sample-locomotion.json', import.meta.url));

describe('StateArena', () => {
  it('hands out zeroed, 8-byte aligned views one after another in one buffer', () => {
    const arena = new StateArena(256);
    const [a, b, c, d] = withStateArena(arena, () => [stateFloat64(3), stateUint8(5), stateInt32(3), stateFloat64(2)] as const);
    expect(b.buffer).toBe(a.buffer);
    expect(d.buffer).toBe(a.buffer);
    expect([a.byteOffset, b.byteOffset, c.byteOffset, d.byteOffset]).toEqual([0, 24, 32, 48]);
    expect([...a, ...b, ...c, ...d].every((v) => v === 0)).toBe(true);
    a.fill(1); b.fill(255); c.fill(-1);
    expect(Array.from(d)).toEqual([0, 0]); // neighbours do not overlap
  });

  it('starts a new chunk when one is full, gives a large request a buffer of its own, and is current only inside withStateArena', () => {
    const arena = new StateArena(64);
    const [first, second, large] = withStateArena(arena, () => [stateFloat64(6), stateFloat64(4), stateFloat64(100)] as const);
    expect(second.buffer).not.toBe(first.buffer);
    expect(second.byteOffset).toBe(0);
    expect(large.buffer.byteLength).toBe(800);
    const outside = stateFloat64(4);
    expect(outside.buffer.byteLength).toBe(32);
    expect(stateFloat64(0).length).toBe(0);
    // Restored after a throw too.
    expect(() => withStateArena(arena, () => { throw new Error('build failed'); })).toThrow('build failed');
    expect(stateInt32(2).buffer.byteLength).toBe(8);
  });

  it("holds an instance's state in a few buffers, and a batch's characters' state in character order", () => {
    const graph = loadGraphFile(LOCOMOTION);
    const instance = graph.createInstance();
    // The instance's own output pose and parameters share one arena buffer.
    expect(instance.evaluate().rotations.buffer).toBe(instance.parameterValues.buffer);
    const batch = graph.createInstances(3);
    const offsets = batch.instances.map((c) => c.parameterValues.byteOffset);
    expect(batch.instances[1].parameterValues.buffer).toBe(batch.instances[0].parameterValues.buffer);
    expect(offsets[0]).toBeLessThan(offsets[1]);
    expect(offsets[1] - offsets[0]).toBe(offsets[2] - offsets[1]); // each character takes the same room
    // Each character's parameters are its own.
    batch.instances[1].setParameter('gait', 2);
    expect(batch.instances.map((c) => c.getParameter('gait'))).toEqual([1, 2, 1]);
  });
});
