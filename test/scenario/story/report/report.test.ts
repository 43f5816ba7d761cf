/**
 * The attempt report on a CCRb-like story on the straight test road, the ego moved by the test: the trace's
 * TTC is the min_ttc criterion's quantity, the SVG is well-formed with its labels, verdict and series, the HTML
 * names no URL and escapes what came from files, the campaign table counts right, and the trace stays bounded.
 */
import { describe, expect, it } from 'vitest';
import { parseStory } from '../../../../src/scenario/story/parse.js';
import { StoryRunner } from '../../../../src/scenario/story/runner.js';
import type { AttemptResult, StoryVehicle } from '../../../../src/scenario/story/world.js';
import { AttemptTrace, campaignTable, followedIds, renderAttemptHtml, renderAttemptSvg, type TraceJson } from '../../../../src/scenario/story/report/index.js';
import { ego, move, straightRoad, ttcAhead, type Ego } from '../roads.js';
import { wellFormedXml } from './xml.js';

const road = straightRoad(2);

/** CCRb: the lead 12 m ahead at 50 km/h brakes at 6 m/s² after 1 s */
const ccrb = {
  actors: [{ id: 'lead', start: { ahead_of: 'sim1', gap_m: 12, speed_kmh: 50 } }],
  events: [{ id: 'brake', trigger: { after_s: 1 }, actions: [{ actor: 'lead', speed: { target_kmh: 0, accel_mps2: 6 } }] }],
  criteria: [{ no_collision: 'sim1' }, { min_ttc: { ego: 'sim1', to: 'lead', s: 1.5 } }, { min_distance: { ego: 'sim1', to: 'lead', m: 0.5 } }, { peak_decel: { ego: 'sim1', max_mps2: 10 } }],
  end: { any: [{ collision: 'sim1' }, { stopped: { of: 'sim1', for_s: 1 } }, { after_s: 20 }] },
};

/** Steps the story as a host would, recording the trace before each step (step moves the shared poses). */
function runTraced(doc: unknown, e: Ego, control: (t: number, lead: StoryVehicle) => number, maxRows?: number) {
  const spec = parseStory(doc, 'case.yaml');
  const runner = new StoryRunner(spec, road);
  const poses = runner.newPoses();
  const world = { t: 0, vehicles: [e] as StoryVehicle[] };
  runner.place(world, poses);
  world.vehicles = [e, ...poses];
  const trace = new AttemptTrace({ ...followedIds(spec), headingOf: (v) => runner.headingOf(v), maxRows });
  const ttcs: number[] = [];
  const dt = 0.1;
  let k = 0;
  for (; k < 400 && !runner.isEnded; k++) {
    world.t = k * dt;
    const a = control(world.t, poses[0]);
    ttcs.push(ttcAhead(e, poses[0]));
    trace.sample(world);
    trace.note(runner.step(world, dt, poses).happenings);
    move(e, a, dt);
  }
  runner.finish(k * dt);
  return { trace, result: runner.result(), ttcs };
}

/** an AEB braking at 9 m/s² below `at` s of TTC */
const aeb = (e: Ego, at: number) => (_t: number, lead: StoryVehicle) => (ttcAhead(e, lead) < at ? -9 : 0);

describe('story report: the trace', () => {
  it('follows the criteria\'s egos and the actors; its TTC is the min_ttc criterion\'s quantity', () => {
    expect(followedIds(parseStory(ccrb, 'x'))).toEqual({ egos: ['sim1'], others: ['lead'] });
    for (const brakeAt of [2, 1.2]) {
      const e = ego(100, 50);
      const { trace, result, ttcs } = runTraced(ccrb, e, aeb(e, brakeAt));
      const crit = result.criteria.find((c) => c.kind === 'min_ttc')!;
      const min = trace.minTtcOf('sim1', 'lead');
      expect(min.value).toBe(crit.value);
      expect(min.at_s).toBe(crit.at_s);
      expect(crit.verdict).toBe(brakeAt === 2 ? 'pass' : 'fail');
      // on the straight road it is bumper gap / closing speed, sample by sample
      const json = trace.toJSON();
      expect(json.rows).toBe(ttcs.length);
      json.pairs[0].ttc.forEach((x, i) => (Number.isFinite(ttcs[i]) ? expect(x).toBeCloseTo(ttcs[i], 5) : expect(x).toBeNull()));
      expect(json.happenings.filter((h) => h.kind === 'event_started')).toEqual([{ t: 1, kind: 'event_started', id: 'brake', detail: '' }]);
    }
  });

  it('stays bounded past its cap: decimates to a whole stride, keeps the exact minimum and the happenings cap', () => {
    const a = { id: 'a', x: 0, y: 0, yaw: 0, speed: 10, accel: 0, length: 4, width: 2 };
    const b = { id: 'b', x: 50, y: 0, yaw: 0, speed: 5, accel: 0, length: 4, width: 2 };
    const trace = new AttemptTrace({ egos: ['a'], others: ['b'], headingOf: (v) => v.yaw, maxRows: 100, maxHappenings: 5 });
    const world = { t: 0, vehicles: [a, b] };
    const n = 10_001;
    for (let k = 0; k < n; k++) {
      world.t = k * 0.01;
      // a closes in, except one sample (not on the stride) where b jumps back: the minimum TTC is there
      b.x = k === 4321 ? 5 : 50;
      trace.record(world, [{ t: world.t, kind: 'action_done', id: `e.${k}`, detail: '' }]);
    }
    expect(trace.samples).toBe(n);
    expect(trace.rows).toBeLessThanOrEqual(100);
    expect(trace.rows).toBeGreaterThan(50);
    expect(trace.stride).toBe(128);
    const json = trace.toJSON();
    // every kept row is sample k · stride
    json.t.forEach((t, i) => expect(t).toBeCloseTo(i * 128 * 0.01, 9));
    expect(json.pairs[0].ttc.length).toBe(json.rows);
    expect(trace.minTtcOf('a', 'b')).toEqual({ value: (5 - 4) / 5, at_s: 4321 * 0.01 });
    expect(json.happenings.length).toBe(5);
    expect(json.happenings_dropped).toBe(n - 5);
  });
});

describe('story report: the SVG', () => {
  it('is well-formed XML with the event labels, the verdict, the limits and a polyline per series', () => {
    const e = ego(100, 50);
    const { trace, result } = runTraced(ccrb, e, aeb(e, 2));
    expect(result.status).toBe('passed');
    const svg = renderAttemptSvg(result, trace, { title: 'CCRb 50 km/h, 12 m' });
    expect(wellFormedXml(svg)).toBe('');
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    expect(svg).toContain('>PASSED<');
    expect(svg).toMatch(/class="event"[^>]*>brake 1\.00 s</);
    expect(svg).toContain('min_ttc: TTC ≥ 1.5 s');
    for (const s of ['speed:sim1', 'speed:lead', 'gap:sim1:lead', 'ttc:sim1:lead']) expect(svg).toContain(`<polyline data-series="${s}"`);
    for (const c of result.criteria) expect(svg).toContain(`>${c.name}`);
    // rebuilt from its JSON: the same picture
    const json = JSON.parse(JSON.stringify(trace)) as TraceJson;
    expect(renderAttemptSvg(result, json, { title: 'CCRb 50 km/h, 12 m' })).toBe(svg);
  });

  it('says FAILED with the collision, NOT STARTED and ABORTED', () => {
    const e = ego(100, 50);
    const { trace, result } = runTraced(ccrb, e, () => 0);
    const svg = renderAttemptSvg(result, trace);
    expect(wellFormedXml(svg)).toBe('');
    expect(svg).toContain('>FAILED<');
    expect(svg).toContain('>hit lead<');
    for (const status of ['not_started', 'aborted'] as const) {
      expect(renderAttemptSvg({ ...result, status }, trace)).toContain(status === 'aborted' ? '>ABORTED<' : '>NOT STARTED<');
    }
  });
});

describe('story report: the HTML page', () => {
  it('names no URL and escapes what came from files', () => {
    const e = ego(100, 50);
    const { trace, result } = runTraced(ccrb, e, aeb(e, 2));
    const evil = '<script>alert(1)</script>';
    const bad: AttemptResult = { ...result, events: result.events.map((x) => ({ ...x, id: evil })), criteria: result.criteria.map((c) => ({ ...c, detail: `"${evil}"&` })) };
    const json = trace.toJSON();
    json.happenings = json.happenings.map((h) => (h.kind === 'event_started' ? { ...h, id: evil } : h));
    const html = renderAttemptHtml(bad, json, { caseName: `ccrb ${evil}`, seed: 7, params: { gap_m: 12, [evil]: evil }, date: '2025-01-02' });
    expect(html).not.toMatch(/https?:\/\//);
    expect(html).not.toContain('<script');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('<svg width=');
    expect(html).toContain('2025-01-02');
    // the inline SVG stays well-formed with the escaped id in its labels
    expect(wellFormedXml(html.slice(html.indexOf('<svg'), html.indexOf('</svg>') + 6))).toBe('');
  });
});

describe('story report: the campaign table', () => {
  it('one row per attempt, the parameters, per-criterion value and verdict, the totals', () => {
    const rows = [2, 1.2, -1].map((brakeAt, i) => {
      const e = ego(100, 50);
      const doc = brakeAt < 0 ? { ...ccrb, events: [{ ...ccrb.events[0], trigger: { at_s: 99 } }], start_timeout_s: 2 } : ccrb;
      const { result } = runTraced(doc, e, aeb(e, brakeAt));
      return { case: i === 2 ? '=cmd|x' : 'ccrb', params: { brake_ttc_s: brakeAt, ...(i === 1 ? { note: 'a, "b"' } : {}) }, result };
    });
    expect(rows.map((r) => r.result.status)).toEqual(['passed', 'failed', 'not_started']);
    const t = campaignTable(rows);
    expect(t.totals).toMatchObject({ attempts: 3, passed: 1, failed: 1, not_started: 1 });
    const csv = t.csv.trim().split('\n');
    expect(csv[0]).toBe('attempt,case,brake_ttc_s,note,status,reason,no_collision value,no_collision verdict,min_ttc value,min_ttc verdict,min_distance value,min_distance verdict,peak_decel value,peak_decel verdict');
    expect(csv.length).toBe(4);
    expect(csv[2]).toMatch(/^2,ccrb,1\.2,"a, ""b""",failed,min_ttc failed: TTC to lead 1\.27 s < 1\.5 s at 2\.10 s; also failed: min_distance,/);
    expect(csv[3]).toMatch(/^3,'=cmd\|x,-1,,not_started,/);
    const md = t.markdown.split('\n').filter((l) => l.startsWith('|'));
    expect(md.length).toBe(2 + 3);
    expect(md[3]).toContain('| failed |');
    expect(md[3]).toMatch(/\| FAIL \d\.\d\d s \|/);
    expect(md[4]).toContain('=cmd\\|x');
    expect(t.markdown).toContain('**Totals:** 3 attempts: 1 passed, 1 failed, 1 not started');
    expect((t.html.match(/<tr>/g) ?? []).length).toBe(1 + 3 + 1);
    expect(t.html).toContain('3 attempts: 1 passed, 1 failed, 1 not started');
  });
});
