import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  CommandSchedule,
  ExternalStepRunner,
  FAILSAFE_COMMAND,
  RealTimeRunner,
  SimSession,
  VirtualClock,
  neutralCommand,
  parseReplayCsv,
  parseReplayData,
  readReplayFile,
  runReplay,
  tireParams,
  vehicleParams,
} from '../../src/plant/index.js';

const session = (vx = 10) => SimSession.create({ vehicle: vehicleParams(), tires: tireParams(), initial: { vx } });
const dir = mkdtempSync(join(tmpdir(), 'vils-plant-replay-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('external-step runner', () => {
  it('latches the command then ticks; run() asks for a command from the sim time', () => {
    const r = new ExternalStepRunner(session(), 0.01);
    r.step({ throttle: 0.3 });
    expect([r.session.simTime, r.session.applied.throttle]).toEqual([0.01, 0.3]);
    const asked: number[] = [];
    r.run(3, (t) => {
      asked.push(Number(t.toFixed(6)));
      return { steer: 0.01 };
    });
    expect(asked).toEqual([0.01, 0.02, 0.03]);
    expect(r.session.latchedCommand.steer).toBe(0.01);
    expect(() => new ExternalStepRunner(session(), 0)).toThrow(/dt must be > 0/);
  });
});

describe('real-time runner (spec §2.7): absolute schedule, command watchdog', () => {
  it('ticks on next = start + k·dt: after 1 s of wall time exactly 200 ticks and 1 s of sim time', async () => {
    const clock = new VirtualClock(100);
    const r = new RealTimeRunner(session(), { clock, tEndS: 1, cmdTimeoutS: 0 });
    const stats = await r.run();
    expect(stats.ticks).toBe(200);
    expect(r.session.simTime).toBeCloseTo(1, 12);
    expect(clock.now()).toBeCloseTo(100 + 0.995, 9);
    expect(stats.overruns).toBe(0);
  });
  it('no drift: a late wake-up does not shift later ticks (the schedule is absolute)', async () => {
    const clock = new VirtualClock(0);
    const starts: number[] = [];
    const r = new RealTimeRunner(session(), {
      clock,
      cmdTimeoutS: 0,
      tEndS: 0.05,
      onTick: (s) => {
        starts.push(clock.now());
        if (Math.abs(s.simTime - 0.02) < 1e-9) clock.advance(0.008); // an 8 ms hiccup during tick 4
      },
    });
    await r.run();
    expect(starts.map((t) => Number(t.toFixed(4)))).toEqual([0, 0.005, 0.01, 0.015, 0.023, 0.025, 0.03, 0.035, 0.04, 0.045]);
  });
  it('time scale shortens the wall-clock period (clamped to [0.05, 10])', async () => {
    const clock = new VirtualClock(0);
    const r = new RealTimeRunner(session(), { clock, cmdTimeoutS: 0, tEndS: 1, timeScale: 4 });
    await r.run();
    expect(clock.now()).toBeCloseTo((199 * 0.005) / 4, 9); // the 200th tick starts at 199 periods
    r.timeScale = 100;
    expect(r.timeScale).toBe(10);
  });
  it('without commands the fail-safe (throttle 0, brake 0.3) latches after cmd_timeout and is re-latched every tick', async () => {
    const clock = new VirtualClock(0);
    const s = session(15);
    const brakes: number[] = [];
    const r = new RealTimeRunner(s, { clock, tEndS: 0.3, cmdTimeoutS: 0.1025, onTick: (ss) => brakes.push(ss.latchedCommand.brake) });
    r.setInput({ throttle: 0.4 });
    const stats = await r.run();
    // command at t = 0; stale once more than 0.1025 s has passed: from the tick at t = 0.105
    expect(brakes.slice(0, 21).every((b) => b === 0)).toBe(true);
    expect(brakes.slice(21).every((b) => b === 0.3)).toBe(true);
    expect(stats.failsafeActive).toBe(true);
    expect(stats.failsafeTicks).toBe(60 - 21);
    expect(s.latchedCommand).toEqual({ ...FAILSAFE_COMMAND });
    expect(s.applied.throttle).toBe(0);
  });
  it('a fresh command (also one sent straight to the session) releases the fail-safe', async () => {
    const clock = new VirtualClock(0);
    const s = session(15);
    let failsafeBefore = false;
    const r = new RealTimeRunner(s, {
      clock,
      tEndS: 0.38,
      onTick: (ss) => {
        if (Math.abs(ss.simTime - 0.3) < 1e-9) {
          failsafeBefore = r.stats.failsafeActive;
          ss.setInput({ throttle: 0.2 });
        }
      },
    });
    const stats = await r.run();
    expect(failsafeBefore).toBe(true);
    expect(s.latchedCommand.throttle).toBe(0.2);
    expect(s.latchedCommand.brake).toBe(0);
    expect(stats.failsafeActive).toBe(false);
  });
  it('falling more than maxLagTicks behind counts an overrun and skips the missed ticks', async () => {
    const clock = new VirtualClock(0);
    const starts: number[] = [];
    const r = new RealTimeRunner(session(), {
      clock,
      cmdTimeoutS: 0,
      tEndS: 0.04,
      maxLagTicks: 2,
      onTick: (s) => {
        starts.push(clock.now());
        if (Math.abs(s.simTime - 0.01) < 1e-9) clock.advance(0.05); // a 50 ms stall
      },
    });
    const stats = await r.run();
    expect(stats.overruns).toBe(1);
    expect(starts.map((t) => Number(t.toFixed(4)))).toEqual([0, 0.005, 0.055, 0.06, 0.065, 0.07, 0.075, 0.08]);
  });
  it('on the system clock: 0.1 s of sim time takes about 0.1 s of wall time', async () => {
    const r = new RealTimeRunner(session(), { tEndS: 0.1, cmdTimeoutS: 0 });
    const t0 = performance.now();
    const stats = await r.run();
    const wall = (performance.now() - t0) / 1000;
    expect(stats.ticks).toBe(20);
    expect(wall).toBeGreaterThan(0.09);
    expect(wall).toBeLessThan(1); // a loaded machine may hold a tick; ten times the period per tick would not pass
  });
  it('secondsSinceLastInput() follows the clock and resets on setInput', () => {
    const clock = new VirtualClock(5);
    const r = new RealTimeRunner(session(), { clock });
    clock.advance(0.25);
    expect(r.secondsSinceLastInput()).toBeCloseTo(0.25, 12);
    r.setInput({ steer: 0.1 });
    expect(r.secondsSinceLastInput()).toBe(0);
  });
  it('stop() ends a running loop; run() twice at once is refused', async () => {
    const clock = new VirtualClock(0);
    const r = new RealTimeRunner(session(), { clock, cmdTimeoutS: 0, onTick: (s) => s.simTime > 0.1025 && r.stop() });
    const p = r.run();
    await expect(r.run()).rejects.toThrow(/already running/);
    const stats = await p;
    expect(stats.ticks).toBe(21);
  });
});

describe('replay (command schedules from CSV / JSON)', () => {
  const rows = [
    { t: 0, steer: 0, throttle: 0.2, brake: 0, gear: 1, handbrake: false },
    { t: 1, steer: 0.1, throttle: 0, brake: 0.5, gear: 1, handbrake: false },
  ];
  it('zero-order hold and linear interpolation', () => {
    const out = neutralCommand();
    const zoh = new CommandSchedule(rows, 'zoh');
    expect(zoh.commandAt(0.5, out)).toMatchObject({ steer: 0, throttle: 0.2 });
    expect(zoh.commandAt(1.5, out)).toMatchObject({ steer: 0.1, brake: 0.5 });
    const lin = new CommandSchedule(rows, 'linear');
    expect(lin.commandAt(0.25, out).steer).toBeCloseTo(0.025, 12);
    expect(lin.commandAt(0.25, out).throttle).toBeCloseTo(0.15, 12);
    expect(lin.commandAt(0.1, out).steer).toBeCloseTo(0.01, 12); // going back in time works
    expect(() => new CommandSchedule([rows[1], rows[0]])).toThrow(/times must increase/);
  });
  it('CSV: header names the columns, extra columns are ignored, missing channels are 0 with a warning', () => {
    const r = parseReplayCsv('t,x,steer_deg,throttle\n0,1,0,0.5\n0.5,2,5.7295779513,0.5\n', 'in.csv');
    expect(r.schedule.rows[1].steer).toBeCloseTo(0.1, 9);
    expect(r.warnings).toEqual(["in.csv: no 'brake' column; brake is 0"]);
    expect(() => parseReplayCsv('time,steer\n0,abc\n', 'bad.csv')).toThrow(/bad\.csv: key 'line 2\.steer': expected a finite number/);
    expect(() => parseReplayCsv('steer,throttle\n0,0\n', 'bad2.csv')).toThrow(/needs a 't' column/);
    expect(() => parseReplayCsv('t,throttle\n0,1.5\n', 'bad3.csv')).toThrow(/throttle.*must be in \[0, 1\]/);
    expect(() => parseReplayCsv('t,steer\n0,0,1\n', 'bad4.csv')).toThrow(/has 3 cells, the header has 2/);
  });
  it('JSON rows or {interpolation, controls}; VDSim legacy scenario YAML with its metadata', () => {
    expect(parseReplayData(rows, 'a.json').schedule.interpolation).toBe('zoh');
    const j = parseReplayData({ interpolation: 'linear', controls: [{ t: 0, throttle: 1 }, { t: 2, brake: 1, gear: -1 }] }, 'b.json');
    expect(j.schedule.interpolation).toBe('linear');
    expect(j.schedule.rows[1]).toEqual({ t: 2, steer: 0, throttle: 0, brake: 1, gear: -1, handbrake: false });
    expect(() => parseReplayData({ controls: [{ t: 0, gear: 2 }] }, 'c.json')).toThrow(/gear.*must be -1, 0 or 1/);
    const yamlPath = join(dir, 'scenario.yaml');
    writeFileSync(yamlPath, 'name: brake_test\ninitial_vx: 20\nduration: 3\ndt: 0.005\nmu: 0.8\ninterpolation: linear\ncontrols:\n  - { t: 0, throttle: 0, brake: 0, steer: 0 }\n  - { t: 1, throttle: 0, brake: 0.8, steer: 0 }\n');
    const y = readReplayFile(yamlPath);
    expect([y.initialVx, y.durationS, y.dtS, y.mu, y.schedule.interpolation]).toEqual([20, 3, 0.005, 0.8, 'linear']);
    const csvPath = join(dir, 'in.csv');
    writeFileSync(csvPath, 't,steer,throttle,brake\n0,0,0.3,0\n');
    expect(readReplayFile(csvPath).schedule.rows.length).toBe(1);
    expect(() => readReplayFile(join(dir, 'x.txt'))).toThrow(/cannot read file|unknown replay format/);
  });
  it('runReplay latches the scheduled command before every tick', () => {
    const s = session(0);
    const sched = new CommandSchedule([
      { t: 0, steer: 0, throttle: 0.5, brake: 0, gear: 1, handbrake: false },
      { t: 0.5, steer: 0, throttle: 0, brake: 1, gear: 1, handbrake: false },
    ]);
    let peak = 0;
    const ticks = runReplay(s, sched, { dt: 0.005, durationS: 1, onTick: (ss) => (peak = Math.max(peak, ss.truth.vx)) });
    expect(ticks).toBe(200);
    expect(s.simTime).toBeCloseTo(1, 12);
    expect(peak).toBeGreaterThan(0.5);
    expect(s.latchedCommand.brake).toBe(1);
    expect(s.truth.vx).toBeLessThan(peak);
  });
});
