// run.js - the browser runner page (web/run.html, issue 12): runs a webnn-graph folder on the
// browser's WebNN against test sets (folders of ONNX input_N.pb/output_N.pb or NAME.npy files)
// and shows a parity table; optionally a greedy decode loop that keeps the KV caches in MLTensors.
//
// URL parameters:
//   model=URL        output folder (default "model/", relative to the page)
//   sets=URL,URL     test set folders; their listing is GET URL/ -> JSON array of file names
//   atol=A           tolerance on max abs difference (default 1e-4); argmax=1 also needs equal argmax
//   device=cpu|gpu   MLContext deviceType (default cpu)
//   decode=N&prompt=I,J,..  greedy decode N new tokens after the prompt
//   report=URL       POST the JSON result there (the tests' server: /report)
//   probe=1          only create the MLContext (reports ok when this browser has a working WebNN)
// KV caches (the graph's "webnnc.kvCache" bindings, docs/kv-cache.md): a past of length P in a test
// set is copied into rows 0..P-1 of the zeroed fixed-capacity cache; the expected present of length
// T (the binding's total dim) is compared with rows 0..T-1.
import { loadModel, bindDims, buildModel, computeModel, createTensors } from './webnn_graph_loader.js';
import { parseTensorFile, compareTensors, numel, typedArrayOf, elementAt } from './tensor_files.js';

const params = new URLSearchParams(location.search);
const log = (s) => { document.getElementById('log').textContent += s + '\n'; };

// ONNX names as webnnc writes them (lib/core/names.c name_sanitize).
export function sanitize(n) {
    let s = n.slice(0, 200).replace(/[^A-Za-z0-9_]/g, '_');
    if (!/^[A-Za-z_]/.test(s)) s = '_' + s;
    return ['true', 'false', 'null', 'dyn'].includes(s) ? s + '_' : s;
}

async function readSet(url) {
    const base = url.endsWith('/') ? url : url + '/';
    const r = await fetch(base);
    if (!r.ok) throw new Error(`${base}: HTTP ${r.status} (no listing)`);
    const files = (await r.json()).filter((f) => f.endsWith('.pb') || f.endsWith('.npy')).sort();
    const tensors = [];
    for (const f of files) {
        const res = await fetch(base + f);
        if (!res.ok) throw new Error(`${base}${f}: HTTP ${res.status}`);
        tensors.push({ file: f, ...parseTensorFile(f, await res.arrayBuffer()) });
    }
    return tensors;
}

// Copies rows along `axis` between a tensor of `rows` and one of `cap` rows (same other dims).
function copyRows(src, srcRows, dst, dstRows, shape, axis, rows) {
    const outer = numel(shape.slice(0, axis)), inner = numel(shape.slice(axis + 1));
    for (let o = 0; o < outer; o++)
        dst.set(src.subarray(o * srcRows * inner, o * srcRows * inner + rows * inner), o * dstRows * inner);
}

function findKv(model, name, present) {
    return model.kv.find((b) => (present ? b.present : b.past) === name);
}

// Graph inputs (name -> typed array) and shapes from a test set; expected outputs by graph name.
function bindSet(model, tensors) {
    const graph = model.graph, arrays = {}, shapes = {}, expected = {};
    for (const t of tensors) {
        const name = graph.inputs[t.name] ? t.name : sanitize(t.name);
        if (graph.inputs[name] && !t.file.startsWith('output_')) {
            const kv = findKv(model, name, false);
            if (kv) {
                const shape = graph.inputs[name].shape, A = typedArrayOf(t.dataType);
                const full = new A(numel(shape));
                copyRows(t.data, t.shape[kv.axis], full, kv.capacity, t.shape, kv.axis, t.shape[kv.axis]);
                arrays[name] = full;
                shapes[name] = shape;
            } else { arrays[name] = t.data; shapes[name] = t.shape; }
        } else if (graph.outputs[name]) expected[name] = t;
        else throw new Error(`${t.file}: tensor ${t.name} is neither an input nor an output of the graph`);
    }
    for (const n of Object.keys(graph.inputs)) if (!arrays[n]) throw new Error(`test set has no input ${n}`);
    return { arrays, shapes, expected };
}

// The got tensor cut to the expected present's rows (KV outputs), else itself.
function comparable(model, name, got, exp, dims) {
    const kv = findKv(model, name, true);
    if (!kv) return got;
    const rows = kv.totalDim ? dims[kv.totalDim] : exp.shape[kv.axis];
    const out = new (typedArrayOf(got.dataType))(numel(exp.shape));
    copyRows(got.data, kv.capacity, out, exp.shape[kv.axis], exp.shape, kv.axis, Math.min(rows, exp.shape[kv.axis]));
    return { ...got, shape: exp.shape, data: out };
}

async function runSet(context, model, url, atol, needArgmax) {
    const { arrays, shapes, expected } = bindSet(model, await readSet(url));
    const dims = bindDims(model, shapes);
    const built = await buildModel(context, model, dims);
    const run = await computeModel(context, built, arrays);
    const rows = [];
    for (const [name, exp] of Object.entries(expected)) {
        const c = compareTensors(comparable(model, name, run.outputs[name], exp, dims), exp);
        rows.push({ output: name, ...c, pass: c.maxAbs <= atol && c.nonFinite === 0 && (!needArgmax || c.argmaxEqual) });
    }
    if (!rows.length) throw new Error(`${url}: no expected outputs`);
    for (const t of Object.values(run.tensors.inputs).concat(Object.values(run.tensors.outputs))) t.destroy();
    built.graph.destroy();
    return { set: url, dims, buildMs: built.buildMs, computeMs: run.computeMs, rows };
}

// Greedy decoding: prompt, then n tokens; the caches stay in MLTensors (present of step t is the
// past of step t+1, two tensors per cache swapped each step).
async function decode(context, model, prompt, n) {
    const inputs = model.graph.inputs, tokens = [...prompt];
    let caches = null, buildMs = 0, computeMs = 0;
    for (let step = 0; step < n; step++) {
        const fresh = step === 0 ? prompt : [tokens[tokens.length - 1]];
        const total = step === 0 ? prompt.length : prompt.length + step;
        const arrays = {}, shapes = {};
        if (inputs.input_ids) { arrays.input_ids = BigInt64Array.from(fresh.map(BigInt)); shapes.input_ids = [1, fresh.length]; }
        if (inputs.attention_mask) { arrays.attention_mask = new BigInt64Array(total).fill(1n); shapes.attention_mask = [1, total]; }
        if (inputs.position_ids) { arrays.position_ids = BigInt64Array.from(fresh.map((_, i) => BigInt(total - fresh.length + i))); shapes.position_ids = [1, fresh.length]; }
        for (const b of model.kv) shapes[b.past] = inputs[b.past].shape;
        const built = await buildModel(context, model, bindDims(model, shapes));
        buildMs += built.buildMs;
        const tensors = await createTensors(context, built);
        if (caches) for (const b of model.kv) { tensors.inputs[b.past].destroy(); tensors.inputs[b.past] = caches[b.present]; }
        else for (const b of model.kv) arrays[b.past] = new (typedArrayOf(inputs[b.past].dataType))(numel(inputs[b.past].shape));
        const run = await computeModel(context, built, arrays, tensors);
        computeMs += run.computeMs;
        const logits = run.outputs.logits, vocab = logits.shape[logits.shape.length - 1];
        const last = logits.data.length - vocab;
        let best = 0;
        for (let j = 1; j < vocab; j++) if (elementAt(logits, last + j) > elementAt(logits, last + best)) best = j;
        tokens.push(best);
        const next = {};
        for (const b of model.kv) { next[b.present] = tensors.outputs[b.present]; tensors.outputs[b.present] = tensors.inputs[b.past]; }
        for (const [k, t] of Object.entries(tensors.inputs)) if (!model.kv.some((b) => b.past === k)) t.destroy();
        for (const [k, t] of Object.entries(tensors.outputs)) if (!model.kv.some((b) => b.present === k)) t.destroy();
        for (const b of model.kv) tensors.outputs[b.present].destroy();
        caches = next;
        built.graph.destroy();
    }
    return { tokens, buildMs, computeMs };
}

function showTable(results) {
    const table = document.getElementById('parity');
    for (const r of results) for (const row of r.rows) {
        const tr = table.insertRow();
        for (const v of [r.set, row.output, row.maxAbs.toExponential(2), row.argmaxEqual ? 'yes' : 'no',
            r.buildMs.toFixed(1), r.computeMs.toFixed(1), row.pass ? 'PASS' : 'FAIL']) tr.insertCell().textContent = v;
        if (!row.pass) tr.className = 'fail';
    }
}

async function main() {
    const report = { ok: false };
    try {
        if (!navigator.ml) throw new Error('navigator.ml is missing: this browser has no WebNN (Chromium needs --enable-features=WebMachineLearningNeuralNetwork)');
        const device = params.get('device') ?? 'cpu';
        const context = await navigator.ml.createContext({ deviceType: device });
        if (params.get('probe')) report.ok = report.probe = true; // WebNN is there
        else await runAll(context, report);
    } catch (e) {
        report.error = String(e?.message ?? e);
        log(`error: ${report.error}`);
    }
    await finish(report);
}

async function runAll(context, report) {
    const model = await loadModel(params.get('model') ?? 'model/');
    report.model = model.graph.name;
    const atol = Number(params.get('atol') ?? 1e-4), needArgmax = params.get('argmax') === '1';
    report.sets = [];
    for (const url of (params.get('sets') ?? '').split(',').filter(Boolean)) {
        log(`running ${url}`);
        report.sets.push(await runSet(context, model, url, atol, needArgmax));
    }
    showTable(report.sets);
    if (params.get('decode')) {
        const prompt = (params.get('prompt') ?? '').split(',').filter(Boolean).map(Number);
        report.decode = await decode(context, model, prompt, Number(params.get('decode')));
        log(`greedy tokens: ${report.decode.tokens.join(' ')}`);
    }
    report.ok = report.sets.every((s) => s.rows.every((r) => r.pass));
}

async function finish(report) {
    document.getElementById('status').textContent = report.ok ? 'PASS' : 'FAIL';
    if (params.get('report')) await fetch(params.get('report'), { method: 'POST', body: JSON.stringify(report) });
}

main();
