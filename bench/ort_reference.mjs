// ort_reference.mjs - ONNX Runtime (CPU) references for ORT-GenAI-shaped model folders
// (bench/make_genai_model.py output): for each MODEL_DIR given, runs test_data_set_0 (the 8-token
// prefill whose inputs make_genai_model.py wrote) and writes its output_N.pb, then writes
// test_data_set_1 as the corpus does (../shared/models/README.md): one decode step, input_ids [123],
// an attention mask of 9 ones, position 8 (when the model takes position_ids), the pasts = the
// presents of step 0; inputs and ONNX Runtime's outputs.  References never come from webnnc.
//
// usage: node bench/ort_reference.mjs ORT_NODE_ROOT MODEL_DIR...
//   ORT_NODE_ROOT holds node_modules/onnxruntime-node (npm install --ignore-scripts onnxruntime-node
//   in a folder outside the repository; the npm package carries its linux-x64 binary).
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { makeCodec } from '../testdata/tensor_pb.mjs';

const [ortRoot, ...dirs] = process.argv.slice(2);
if (!ortRoot || !dirs.length) {
  console.error('usage: node bench/ort_reference.mjs ORT_NODE_ROOT MODEL_DIR...');
  process.exit(2);
}
const ort = createRequire(path.join(path.resolve(ortRoot), 'noop.js'))('onnxruntime-node');
const { decodeTensor, encodeTensor } = makeCodec(ort);
const DECODE_TOKEN = 123n;

function readSet(setDir) {
  const names = fs.readdirSync(setDir).filter((f) => /^input_\d+\.pb$/.test(f))
    .sort((a, b) => parseInt(a.slice(6)) - parseInt(b.slice(6)));
  return names.map((f) => decodeTensor(fs.readFileSync(path.join(setDir, f))));
}

function writeSet(setDir, pairs, prefix) {
  fs.mkdirSync(setDir, { recursive: true });
  pairs.forEach(([name, t], i) => fs.writeFileSync(path.join(setDir, `${prefix}_${i}.pb`), encodeTensor(name, t)));
}

async function runSet(session, setDir, inputs) {
  const results = await session.run(Object.fromEntries(inputs));
  const outs = session.outputNames.map((n) => [n, results[n]]);
  writeSet(setDir, outs, 'output');
  return Object.fromEntries(outs);
}

for (const dir of dirs) {
  const session = await ort.InferenceSession.create(path.join(dir, 'model.onnx'),
    { executionProviders: ['cpu'], graphOptimizationLevel: 'disabled' });
  const set0 = path.join(dir, 'test_data_set_0');
  const prefill = readSet(set0);
  const presents = await runSet(session, set0, prefill);
  const past = prefill.find(([n]) => n === 'attention_mask')[1].dims[1];
  const decode = prefill.map(([name, t]) => {
    if (name === 'input_ids') return [name, new ort.Tensor('int64', BigInt64Array.of(DECODE_TOKEN), [1, 1])];
    if (name === 'attention_mask') return [name, new ort.Tensor('int64', new BigInt64Array(past + 1).fill(1n), [1, past + 1])];
    if (name === 'position_ids') return [name, new ort.Tensor('int64', BigInt64Array.of(BigInt(past)), [1, 1])];
    const m = /^past_key_values\.(\d+)\.(key|value)$/.exec(name);
    if (m) return [name, presents[`present.${m[1]}.${m[2]}`]];
    throw new Error(`${dir}: unexpected input ${name}`);
  });
  const set1 = path.join(dir, 'test_data_set_1');
  writeSet(set1, decode, 'input');
  await runSet(session, set1, decode);
  console.log(`${dir}: test_data_set_0/1 written (${session.outputNames.length} outputs each)`);
}
