// make_refs.mjs - computes the reference outputs of the test models with ONNX Runtime (CPU).
//
// For every testdata/NAME.onnx with a folder NAME/test_data_set_K/, reads input_N.pb (ONNX
// TensorProto), runs the model with onnxruntime-node, and writes output_N.pb in the order of the
// model's outputs.  References therefore never come from webnnc itself.
//
// Usage (onnxruntime-node installed in a scratch folder outside the repository):
//   mkdir -p /tmp/ort && cd /tmp/ort && npm install --ignore-scripts onnxruntime-node
//   NODE_PATH=/tmp/ort/node_modules node --experimental-default-type=module testdata/make_refs.mjs
// or pass the folder holding node_modules as the first argument:
//   node testdata/make_refs.mjs /tmp/ort
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { makeCodec } from './tensor_pb.mjs';

// MODELS_DIR (optional) names another folder of NAME.onnx + NAME/test_data_set_K/ (e.g. testdata/contrib/ops).
const here = process.env.MODELS_DIR ? path.resolve(process.env.MODELS_DIR) : path.dirname(fileURLToPath(import.meta.url));
const ortRoot = process.argv[2] ?? process.env.ORT_NODE_ROOT ?? process.cwd();
const ort = createRequire(path.join(path.resolve(ortRoot), 'noop.js'))('onnxruntime-node');

const { decodeTensor, encodeTensor } = makeCodec(ort);

// ---- run every model's test sets ------------------------------------------------------------------
let written = 0;
for (const file of fs.readdirSync(here).filter((f) => f.endsWith('.onnx')).sort()) {
  const stem = file.slice(0, -5), dir = path.join(here, stem);
  if (!fs.existsSync(dir)) continue;
  const session = await ort.InferenceSession.create(path.join(here, file),
    { executionProviders: ['cpu'], graphOptimizationLevel: 'disabled' });
  for (const set of fs.readdirSync(dir).filter((d) => d.startsWith('test_data_set_')).sort()) {
    const setDir = path.join(dir, set), feeds = {};
    for (const f of fs.readdirSync(setDir).filter((f) => /^input_\d+\.pb$/.test(f))) {
      const [name, tensor] = decodeTensor(fs.readFileSync(path.join(setDir, f)));
      feeds[name] = tensor;
    }
    const results = await session.run(feeds);
    session.outputNames.forEach((name, i) => {
      fs.writeFileSync(path.join(setDir, `output_${i}.pb`), encodeTensor(name, results[name]));
      written++;
    });
    console.log(`${stem}/${set}: ${session.outputNames.length} output(s)`);
  }
}
console.log(`wrote ${written} reference output(s) with onnxruntime-node ${ort.env.versions?.common ?? ''}`);
