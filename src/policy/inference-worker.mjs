// The policy's rows graph in a worker thread (PolicySession with inference 'worker', VILS_INFERENCE=worker):
// the measured alternative to synchronous inference on the main thread. Inputs and outputs live in
// SharedArrayBuffers the main thread binds once per session ('bind'); each 'run' sets the batch's shapes,
// runs the native session synchronously here, and answers with the compute time.
// Plain JavaScript (like src/record/mcap-worker.mjs), so it runs as is from src/ and from dist/.
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';

if (!parentPort) throw new Error('inference-worker.mjs runs as a worker thread');
const require = createRequire(import.meta.url);
const { binding, initOrt } = require('onnxruntime-node/dist/binding.js');
initOrt();
const session = new binding.InferenceSession();
const graph = workerData.graph;
session.loadModel(graph.buffer, graph.byteOffset, graph.byteLength, workerData.options);

/** per session id: its shared buffers, and local copies the native session reads and writes */
const bound = new Map();
// onnxruntime-node's binding does not take typed arrays on SharedArrayBuffers: each run copies the batch's
// part of the shared inputs into local arrays, and the outputs back
const tensor = (type, data, width) => ({ type, dims: width === undefined ? [0] : [0, width], data, location: 'cpu' });
const local = (shared) => new shared.constructor(shared.length);

parentPort.on('message', (m) => {
  if (m.kind === 'bind') {
    const b = m.buffers;
    const shared = {
      ego: new Float32Array(b.ego), partners: new Float32Array(b.partners), partnerAgent: new BigInt64Array(b.partnerAgent),
      partnerPad: new Uint8Array(b.partnerPad), roads: new Float32Array(b.roads), roadAgent: new BigInt64Array(b.roadAgent),
      roadPad: new Uint8Array(b.roadPad), logits: new Float32Array(b.logits), action: new BigInt64Array(b.action),
    };
    const own = Object.fromEntries(Object.entries(shared).map(([k, v]) => [k, local(v)]));
    bound.set(m.id, {
      shared, own,
      feeds: {
        ego: tensor('float32', own.ego, 6),
        partner_rows: tensor('float32', own.partners, 6),
        partner_agent: tensor('int64', own.partnerAgent, 1),
        partner_pad: tensor('bool', own.partnerPad, 1),
        road_rows: tensor('float32', own.roads, 13),
        road_agent: tensor('int64', own.roadAgent, 1),
        road_pad: tensor('bool', own.roadPad, 1),
      },
      fetches: { logits: tensor('float32', own.logits, 91), action: tensor('int64', own.action) },
    });
  } else if (m.kind === 'run') {
    const s = bound.get(m.id);
    const { shared, own, feeds: f } = s;
    const copy = (k, n) => own[k].set(shared[k].subarray(0, n));
    copy('ego', m.n * 6); copy('partnerPad', m.n); copy('roadPad', m.n);
    copy('partners', m.p * 6); copy('partnerAgent', m.p);
    copy('roads', m.r * 13); copy('roadAgent', m.r);
    f.ego.dims[0] = m.n; f.partner_pad.dims[0] = m.n; f.road_pad.dims[0] = m.n;
    f.partner_rows.dims[0] = m.p; f.partner_agent.dims[0] = m.p;
    f.road_rows.dims[0] = m.r; f.road_agent.dims[0] = m.r;
    s.fetches.logits.dims[0] = m.n; s.fetches.action.dims[0] = m.n;
    const t0 = performance.now();
    let error = null;
    try {
      session.run(f, s.fetches, {});
    } catch (err) {
      error = String(err?.message ?? err);
    }
    const ms = performance.now() - t0;
    shared.logits.set(own.logits.subarray(0, m.n * 91));
    shared.action.set(own.action.subarray(0, m.n));
    parentPort.postMessage({ id: m.id, ms, error });
  } else if (m.kind === 'forget') {
    bound.delete(m.id);
  } else if (m.kind === 'close') {
    session.dispose();
    parentPort.close();
  }
});
