// run_ort.mjs - runs the gqa_*.onnx models of this folder with onnxruntime-node (CPU) on the inputs
// of gqa_cases.json (made by gen_gqa.py) and adds ORT's three outputs per case to it: the
// external reference of tests/passes/test_decompose_gqa.c.
//
// Usage (onnxruntime-node installed outside the repository, e.g.
//   mkdir -p /tmp/ort && cd /tmp/ort && npm install --ignore-scripts onnxruntime-node):
//   node testdata/contrib/gqa/run_ort.mjs /tmp/ort
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const ortRoot = process.argv[2] ?? process.env.ORT_NODE_ROOT ?? process.cwd();
const ort = createRequire(path.join(path.resolve(ortRoot), 'noop.js'))('onnxruntime-node');

const ARRAYS = { float32: Float32Array, int32: Int32Array };
function toTensor(t) {
  if (t.dtype === 'float16') { // exact: the generator stored float16 values
    const f = new Float32Array(t.data);
    const h = new Uint16Array(f.length);
    const view = new DataView(new ArrayBuffer(4));
    f.forEach((x, i) => {
      view.setFloat32(0, x);
      const bits = view.getUint32(0), sign = (bits >>> 16) & 0x8000;
      let exp = ((bits >>> 23) & 0xff) - 112, man = bits & 0x7fffff;
      if (exp <= 0) { h[i] = sign | ((man | 0x800000) >> (14 - exp)); return; } // subnormal (exact)
      h[i] = sign | (exp << 10) | (man >> 13);
    });
    return new ort.Tensor('float16', h, t.shape);
  }
  return new ort.Tensor(t.dtype, ARRAYS[t.dtype].from(t.data), t.shape);
}
function fromTensor(x) {
  let data = Array.from(x.data);
  if (x.type === 'float16') data = data.map((b) => {
    const s = b & 0x8000 ? -1 : 1, e = (b >> 10) & 0x1f, m = b & 0x3ff;
    return e === 0 ? s * m * 2 ** -24 : s * (1 + m / 1024) * 2 ** (e - 15);
  });
  return { dtype: x.type, shape: x.dims, data };
}

const spec = JSON.parse(fs.readFileSync(path.join(here, 'gqa_cases.json'), 'utf8'));
for (const c of spec.cases) {
  const session = await ort.InferenceSession.create(path.join(here, c.model),
    { executionProviders: ['cpu'], graphOptimizationLevel: 'disabled' });
  const feeds = Object.fromEntries(c.inputs.map((t) => [t.name, toTensor(t)]));
  const results = await session.run(feeds);
  c.outputs = session.outputNames.map((name) => fromTensor(results[name]));
  console.log(`${c.name}: ${session.outputNames.length} outputs`);
}
fs.writeFileSync(path.join(here, 'gqa_cases.json'), JSON.stringify(spec));
console.log(`wrote gqa_cases.json with onnxruntime-node ${ort.env.versions?.common ?? ''}`);
