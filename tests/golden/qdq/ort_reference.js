// ONNX Runtime's outputs for the QDQ test models of make_qdq_models.py: runs
// data/<name>.onnx on each input of data/<name>_input.npy [T, 1, ...] (CPU provider, default
// graph optimizations, which fuse the QDQ groups into ORT's int8 kernels) and writes
// data/<name>_ort.npy [T, classes] float32; stamps the onnxruntime version into MANIFEST.json.
// Run: node tests/golden/qdq/ort_reference.js   (onnxruntime-node on NODE_PATH)
'use strict';
const fs = require('fs');
const path = require('path');
const ort = require('onnxruntime-node');

const DATA = path.join(__dirname, 'data');

function readNpyFloat32(file) {
  const buf = fs.readFileSync(file);
  const headerLen = buf.readUInt16LE(8);
  const header = buf.toString('latin1', 10, 10 + headerLen);
  if (!header.includes("'<f4'")) throw new Error(`${file}: not float32`);
  const shape = header.match(/'shape': \(([^)]*)\)/)[1].split(',').filter((s) => s.trim()).map(Number);
  const start = 10 + headerLen;
  const data = new Float32Array(buf.buffer.slice(buf.byteOffset + start, buf.byteOffset + buf.length));
  return { shape, data };
}

function writeNpyFloat32(file, shape, data) {
  let header = `{'descr': '<f4', 'fortran_order': False, 'shape': (${shape.join(', ')}${shape.length === 1 ? ',' : ''}), }`;
  while ((10 + header.length + 1) % 64 !== 0) header += ' ';
  header += '\n';
  const head = Buffer.alloc(10);
  head.write('\x93NUMPY', 0, 'latin1');
  head.writeUInt8(1, 6);
  head.writeUInt8(0, 7);
  head.writeUInt16LE(header.length, 8);
  fs.writeFileSync(file, Buffer.concat([head, Buffer.from(header, 'latin1'), Buffer.from(data.buffer)]));
}

async function main() {
  const manifestFile = path.join(DATA, 'MANIFEST.json');
  const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8'));
  const version = JSON.parse(fs.readFileSync(require.resolve('onnxruntime-node/package.json'), 'utf8')).version;
  for (const name of Object.keys(manifest.models)) {
    const session = await ort.InferenceSession.create(path.join(DATA, `${name}.onnx`));
    const input = readNpyFloat32(path.join(DATA, `${name}_input.npy`));
    const runs = input.shape[0];
    const one = input.shape.slice(1);
    const per = one.reduce((a, b) => a * b, 1);
    const outputs = [];
    for (let i = 0; i < runs; ++i) {
      const x = new ort.Tensor('float32', input.data.slice(i * per, (i + 1) * per), one);
      const result = await session.run({ [session.inputNames[0]]: x });
      outputs.push(result[session.outputNames[0]].data);
    }
    const classes = outputs[0].length;
    const all = new Float32Array(runs * classes);
    outputs.forEach((o, i) => all.set(o, i * classes));
    writeNpyFloat32(path.join(DATA, `${name}_ort.npy`), [runs, classes], all);
    manifest.models[name].onnxruntime_node = version;
  }
  fs.writeFileSync(manifestFile, JSON.stringify(manifest, null, 1) + '\n');
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
