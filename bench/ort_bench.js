// ONNX Runtime (onnxruntime-node, CPU provider) latency of one model, THREADS intra-op threads (1),
// timed through the Node binding: each call includes the binding's overhead (about 0.04 ms, which
// matters on small networks). bench/run.sh times ORT natively instead (`edgefold bench --ort`);
// bench/segments/run.sh still uses this script.
// Usage: node bench/ort_bench.js MODEL.onnx INPUT.bin OUTPUT.bin RUNS WARMUP [THREADS]
// INPUT.bin is the raw float32 input; its shape is read from the model. Writes the first
// output as raw float32 to OUTPUT.bin and prints
//   median_ms=<x> vmhwm_kb=<peak RSS of this process>
// NODE_PATH must point at the node_modules holding onnxruntime-node.
const fs = require('fs');
const ort = require('onnxruntime-node');

async function main() {
  const [model, inputPath, outputPath, runsArg, warmupArg, threadsArg] = process.argv.slice(2);
  const runs = parseInt(runsArg || '50', 10), warmup = parseInt(warmupArg || '5', 10);
  const threads = parseInt(threadsArg || '1', 10);
  const session = await ort.InferenceSession.create(model, {
    executionProviders: ['cpu'],
    graphOptimizationLevel: 'all',
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
  });
  const raw = fs.readFileSync(inputPath);
  const data = new Float32Array(raw.buffer, raw.byteOffset, raw.length / 4);
  const meta = session.inputMetadata ? session.inputMetadata[0] : null;
  const dims = meta && meta.shape ? meta.shape : null;
  if (!dims) throw new Error('cannot read the input shape of ' + model);
  const feeds = {[session.inputNames[0]]: new ort.Tensor('float32', data, dims)};
  let out = null;
  const ms = [];
  for (let r = 0; r < warmup + runs; ++r) {
    const t0 = process.hrtime.bigint();
    out = await session.run(feeds);
    const t1 = process.hrtime.bigint();
    if (r >= warmup) ms.push(Number(t1 - t0) / 1e6);
  }
  ms.sort((a, b) => a - b);
  const y = out[session.outputNames[0]].data;
  fs.writeFileSync(outputPath, Buffer.from(y.buffer, y.byteOffset, y.byteLength));
  const hwm = /VmHWM:\s+(\d+)/.exec(fs.readFileSync('/proc/self/status', 'utf8'));
  console.log(`median_ms=${ms[Math.floor(ms.length / 2)].toFixed(4)} vmhwm_kb=${hwm ? hwm[1] : 0}`);
}

main().catch((e) => { console.error('ort_bench: ' + e.message); process.exit(1); });
