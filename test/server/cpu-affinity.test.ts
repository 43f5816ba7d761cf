/**
 * vils serve --cpus (src/server/cpu-affinity.ts): the CPU lists as taskset writes them, what auto, all and a
 * list mean for a process allowed on some CPUs with or without a real-time egos' thread, and this process kept
 * on one CPU and given its CPUs back (Linux, with at least two CPUs to choose from).
 */
import { describe, expect, it } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import { applyCpus, allowedCpus, chooseCpus, formatCpuList, parseCpuList, parseCpuSetting, processCpus } from '../../src/server/cpu-affinity.js';

/** The CPUs each thread of this process may run on (a thread that ended meanwhile: null). */
function threadCpus(): Array<number[] | null> {
  return readdirSync('/proc/self/task').map((t) => {
    try {
      return allowedCpus(readFileSync(`/proc/self/task/${t}/status`, 'utf8'));
    } catch {
      return null;
    }
  });
}

describe('--cpus', () => {
  it('reads and writes CPU lists as taskset and /proc do, refusing anything else with the reason', () => {
    expect(parseCpuList('1')).toEqual([1]);
    expect(parseCpuList('0,2-3')).toEqual([0, 2, 3]);
    expect(parseCpuList('3-4, 1,1')).toEqual([1, 3, 4]);
    expect(formatCpuList([0, 2, 3, 4, 7])).toBe('0,2-4,7');
    expect(formatCpuList(parseCpuList('0-1,5'))).toBe('0-1,5');
    for (const bad of ['', 'x', '3-1', '-1', '1,,2', '1.5', '9000']) expect(() => parseCpuSetting(bad), bad).toThrow(/--cpus must be auto, all or a list of CPU numbers such as 1 or 0,2-3, got/);
    expect(parseCpuSetting(undefined)).toBe('auto');
    expect(parseCpuSetting('all')).toBe('all');
    expect(parseCpuSetting('1')).toEqual([1]);
    expect(allowedCpus('Name:\tnode\nCpus_allowed:\t3\nCpus_allowed_list:\t0-1\nMems_allowed:\t1\n')).toEqual([0, 1]);
    expect(allowedCpus('Name:\tnode\n')).toBeNull();
  });

  it('auto keeps the main thread on the last CPU only beside a real-time egos\' thread and with a CPU to spare; a list outside the allowed ones is refused', () => {
    expect(chooseCpus('auto', [0, 1], true).cpus).toEqual([1]);
    expect(chooseCpus('auto', [0, 1], true).reason).toMatch(/^CPU 1, leaving 0 to the stacks it co-simulates with/);
    expect(chooseCpus('auto', [2, 3, 5], true).cpus).toEqual([5]);
    expect(chooseCpus('auto', [0, 1], false).cpus).toBeNull();
    expect(chooseCpus('auto', [0], true)).toEqual({ cpus: null, reason: 'all its CPUs (only one to run on)' });
    expect(chooseCpus('all', [0, 1], true).cpus).toBeNull();
    expect(chooseCpus([0], [0, 1], false).cpus).toEqual([0]);
    expect(() => chooseCpus([1, 4], [0, 1], true)).toThrow('--cpus 1,4: this process may only run on CPUs 0-1, not 4');
  });

  const before = processCpus();
  it.skipIf(!before || before.length < 2)('keeps every thread of a process on one CPU and gives them their CPUs back', () => {
    const all = before!;
    const last = all[all.length - 1];
    try {
      expect(applyCpus([last])).toBeNull();
      expect(processCpus()).toEqual([last]);
      expect(threadCpus().filter((c) => c !== null)).toEqual(threadCpus().filter((c) => c !== null).map(() => [last]));
    } finally {
      expect(applyCpus(all)).toBeNull();
    }
    expect(processCpus()).toEqual(all);
    expect(applyCpus([4095])).toMatch(/.+/); // a CPU the machine does not have: the reason, no throw
    expect(processCpus()).toEqual(all);
  });
});
