// webnn_graph_loader.js - runs a webnn-graph output folder (what `webnnc convert` writes:
// model.webnn.json, manifest.json, model.weights) in a browser's WebNN (issue 12).
//
//   const model = await loadModel('/model/');                       // fetches the three files
//   const dims = bindDims(model, { input_ids: [1, 8], ... });       // dynamic dim name -> size
//   const built = await buildModel(context, model, dims);           // MLGraphBuilder -> MLGraph
//   const out = await computeModel(context, built, { name: typedArray, ... });  // MLTensors
//
// Every node becomes one builder call: operands first (WebNN positional order), then the method
// arguments the format keeps among the options (axis of concat, newShape, starts/sizes, ...),
// then the options dictionary, where optional operands given by name (gemm's c, the norms'
// scale/bias, conv bias, rnn biases/states) are replaced by the operands.  Nodes with "outputs"
// bind each returned operand.  Dynamic dims ({"name", "maxSize"}) in input shapes and options
// are bound to the sizes of this run, so one MLGraph is built per distinct set of sizes.
// Weights come from the manifest (absolute byteOffset/byteLength into model.weights; 4-bit types
// stored one byte per element are packed two per byte, low nibble first, for WebNN).

import { numel, typedArrayOf } from './tensor_files.js';

// Method arguments that come after the operands and before the options, per op.
const METHOD_ARGS = {
    concat: ['axis'], reshape: ['newShape'], expand: ['newShape'], slice: ['starts', 'sizes'], split: ['splits'],
    cast: ['to'], softmax: ['axis'], pad: ['beginningPadding', 'endingPadding'], cumulativeSum: ['axis'],
    argMax: ['axis'], argMin: ['axis'], tile: ['repetitions'], gru: ['steps', 'hiddenSize'],
    gruCell: ['hiddenSize'], lstm: ['steps', 'hiddenSize'], lstmCell: ['hiddenSize'],
};
// Required operands per op where optional ones may follow positionally (then named as below).
const OPERAND_OPTIONS = {
    gemm: [2, ['c']], batchNormalization: [3, ['scale', 'bias']], instanceNormalization: [1, ['scale', 'bias']],
    layerNormalization: [1, ['scale', 'bias']], conv2d: [2, ['bias']], convTranspose2d: [2, ['bias']],
    gru: [3, ['bias', 'recurrentBias', 'initialHiddenState']], gruCell: [4, ['bias', 'recurrentBias']],
    lstm: [3, ['bias', 'recurrentBias', 'peepholeWeight', 'initialHiddenState', 'initialCellState']],
    lstmCell: [5, ['bias', 'recurrentBias', 'peepholeWeight']],
};
const BYTES = { float32: 4, float16: 2, int32: 4, uint32: 4, int64: 8, uint64: 8, int8: 1, uint8: 1, int4: 1, uint4: 1 };

async function fetchOk(url, kind) {
    const r = await fetch(url);
    if (!r.ok) throw new Error(`${url}: HTTP ${r.status}`);
    return kind === 'json' ? r.json() : r.arrayBuffer();
}

// Fetches graph JSON, manifest and weights of an output folder (base URL ending in '/'); a graph
// object given in options (webnnc emit-js modules carry theirs) is used instead of the JSON file.
export async function loadModel(base, { graphFile = 'model.webnn.json', graph: given = null } = {}) {
    const graph = given ?? await fetchOk(base + graphFile, 'json');
    if (graph.format !== 'webnn-graph-json') throw new Error(`${base}${graphFile}: format is not webnn-graph-json`);
    const hasWeights = Object.values(graph.consts ?? {}).some((c) => c.init?.kind === 'weights');
    const manifest = hasWeights ? await fetchOk(base + 'manifest.json', 'json') : { tensors: {} };
    const weights = hasWeights ? new Uint8Array(await fetchOk(base + 'model.weights')) : new Uint8Array(0);
    return { base, graph, manifest, weights, kv: graph.webnnc?.kvCache ?? [] };
}

function isDynamic(d) { return typeof d === 'object' && d !== null; }

// Dim name -> size, from the actual shapes of the inputs (name -> number[]).  Throws when a shape
// does not fit the graph (rank, static size, size above maxSize, one name with two sizes).
export function bindDims(model, shapes) {
    const dims = {};
    for (const [name, desc] of Object.entries(model.graph.inputs)) {
        const s = shapes[name];
        if (!s) throw new Error(`input ${name}: no shape given`);
        if (s.length !== desc.shape.length) throw new Error(`input ${name}: rank ${s.length}, the graph has ${desc.shape.length}`);
        desc.shape.forEach((d, i) => {
            if (!isDynamic(d)) { if (d !== s[i]) throw new Error(`input ${name}: dim ${i} is ${s[i]}, the graph has ${d}`); return; }
            if (s[i] < 1 || s[i] > d.maxSize) throw new Error(`input ${name}: ${d.name} = ${s[i]} outside 1..${d.maxSize}`);
            if (dims[d.name] !== undefined && dims[d.name] !== s[i]) throw new Error(`input ${name}: ${d.name} = ${s[i]} but ${dims[d.name]} elsewhere`);
            dims[d.name] = s[i];
        });
    }
    return dims;
}

function bindShape(shape, dims, what) {
    return shape.map((d) => {
        if (!isDynamic(d)) return d;
        if (dims[d.name] === undefined) throw new Error(`${what}: dim ${d.name} has no size`);
        return dims[d.name];
    });
}

function bindValue(v, dims, what) {
    if (Array.isArray(v) && v.some(isDynamic)) return bindShape(v, dims, what);
    return v;
}

function packNibbles(bytes, n) {
    const out = new Uint8Array((n + 1) >> 1);
    for (let i = 0; i < n; i++) out[i >> 1] |= (bytes[i] & 0x0f) << ((i & 1) * 4);
    return out;
}

// The bytes of a constant as WebNN takes them.
function constantBytes(model, name, c) {
    const n = numel(c.shape);
    const size = BYTES[c.dataType];
    if (!size) throw new Error(`constant ${name}: data type ${c.dataType} is not supported`);
    let bytes;
    const init = c.init ?? {};
    if (init.kind === 'weights') {
        const t = model.manifest.tensors?.[init.ref];
        if (!t) throw new Error(`constant ${name}: manifest has no tensor ${init.ref}`);
        if (t.byteLength !== n * size || t.byteOffset + t.byteLength > model.weights.length)
            throw new Error(`constant ${name}: manifest entry ${init.ref} does not fit (${t.byteOffset}+${t.byteLength})`);
        bytes = model.weights.subarray(t.byteOffset, t.byteOffset + t.byteLength);
    } else if (init.kind === 'inlineBytes') {
        bytes = Uint8Array.from(init.bytes);
        if (bytes.length !== n * size) throw new Error(`constant ${name}: ${bytes.length} inline bytes, ${n * size} needed`);
    } else if (init.kind === 'scalar') {
        if (c.dataType === 'int4' || c.dataType === 'uint4') bytes = new Uint8Array(n).fill(init.value & 0x0f);
        else {
            const A = typedArrayOf(c.dataType);
            const arr = new A(n);
            const isBig = A === BigInt64Array || A === BigUint64Array;
            const v = c.dataType === 'float16' ? floatToHalf(init.value) : isBig ? BigInt(Math.trunc(init.value)) : init.value;
            arr.fill(v);
            bytes = new Uint8Array(arr.buffer);
        }
    } else throw new Error(`constant ${name}: init kind ${init.kind} is not supported`);
    if (c.dataType === 'int4' || c.dataType === 'uint4') return packNibbles(bytes, n);
    return bytes.slice(); // own, aligned copy
}

export function floatToHalf(v) {
    const f = new Float32Array([v]), u = new Uint32Array(f.buffer)[0];
    const s = (u >>> 16) & 0x8000, e = ((u >>> 23) & 0xff) - 127 + 15, m = u & 0x7fffff;
    if (((u >>> 23) & 0xff) === 0xff) return s | 0x7c00 | (m ? 0x200 : 0);
    if (e >= 31) return s | 0x7c00;
    if (e <= 0) { if (e < -10) return s; const mm = (m | 0x800000) >> (1 - e); return s | ((mm + 0x1000 + ((mm >> 13) & 1) - 1) >> 13); }
    const r = s | (e << 10) | (m >> 13), rest = m & 0x1fff;
    return rest > 0x1000 || (rest === 0x1000 && (r & 1)) ? r + 1 : r;
}

function buildNode(builder, node, operands, dims) {
    const fn = builder[node.op];
    if (typeof fn !== 'function') throw new Error(`node ${node.id}: op ${node.op} is not a WebNN builder method here`);
    const get = (name) => {
        const o = operands.get(name);
        if (!o) throw new Error(`node ${node.id}: operand ${name} is not defined before it`);
        return o;
    };
    const opts = { ...(node.options ?? {}) };
    const what = `node ${node.id}`;
    let ins = (node.inputs ?? []).map(get);
    const optional = OPERAND_OPTIONS[node.op];
    if (optional) {
        const [required, names] = optional;
        ins.slice(required).forEach((o, i) => { opts[names[i]] = o; });
        ins = ins.slice(0, required);
        for (const k of names) if (typeof opts[k] === 'string') opts[k] = get(opts[k]);
    }
    const args = node.op === 'concat' ? [ins] : ins;
    for (const k of METHOD_ARGS[node.op] ?? []) {
        if (!(k in opts)) throw new Error(`${what}: ${node.op} needs option ${k}`);
        args.push(bindValue(opts[k], dims, what));
        delete opts[k];
    }
    for (const k of Object.keys(opts)) opts[k] = bindValue(opts[k], dims, what);
    delete opts.label;
    opts.label = node.id;
    let result;
    try {
        result = fn.call(builder, ...args, opts);
    } catch (e) {
        throw new Error(`${what} (${node.op}): ${e.message}`);
    }
    if (node.outputs) {
        const list = Array.isArray(result) ? result : [result];
        if (list.length !== node.outputs.length) throw new Error(`${what}: ${list.length} outputs, the graph names ${node.outputs.length}`);
        node.outputs.forEach((n, i) => operands.set(n, list[i]));
    } else operands.set(node.id, result);
}

// Builds the graph for these dim sizes.  Returns { graph, inputs: name -> {dataType, shape},
// outputs: name -> {dataType, shape}, buildMs }.
export async function buildModel(context, model, dims) {
    const t0 = performance.now();
    const builder = new MLGraphBuilder(context);
    const operands = new Map();
    const inputs = {}, outputs = {};
    for (const [name, d] of Object.entries(model.graph.inputs)) {
        const desc = { dataType: d.dataType, shape: bindShape(d.shape, dims, `input ${name}`) };
        inputs[name] = desc;
        operands.set(name, builder.input(name, desc));
    }
    for (const [name, c] of Object.entries(model.graph.consts ?? {})) {
        try {
            operands.set(name, builder.constant({ dataType: c.dataType, shape: c.shape }, constantBytes(model, name, c)));
        } catch (e) {
            throw new Error(e.message.startsWith('constant ') ? e.message : `constant ${name} (${c.dataType}): ${e.message}`);
        }
    }
    for (const node of model.graph.nodes) buildNode(builder, node, operands, dims);
    const named = {};
    for (const [key, value] of Object.entries(model.graph.outputs)) {
        const o = operands.get(value);
        if (!o) throw new Error(`output ${key}: value ${value} is not defined`);
        named[key] = o;
        outputs[key] = { dataType: o.dataType, shape: [...o.shape] };
    }
    let graph;
    try {
        graph = await builder.build(named);
    } catch (e) {
        throw new Error(`build(): ${e.message}`);
    }
    return { graph, inputs, outputs, dims, buildMs: performance.now() - t0 };
}

// MLTensors for every input (writable) and output (readable) of a built graph.
export async function createTensors(context, built) {
    const make = (descs, usage) => Promise.all(Object.entries(descs).map(async ([n, d]) => [n, await context.createTensor({ ...d, ...usage })]));
    return {
        inputs: Object.fromEntries(await make(built.inputs, { writable: true, readable: true })),
        outputs: Object.fromEntries(await make(built.outputs, { readable: true, writable: true })),
    };
}

// One run: writes the given arrays (name -> TypedArray; names absent keep the tensor's contents),
// dispatches, reads every output back.  Returns { outputs: name -> {dataType, shape, data}, computeMs }.
export async function computeModel(context, built, arrays, tensors) {
    tensors ??= await createTensors(context, built);
    for (const [name, data] of Object.entries(arrays)) {
        if (!tensors.inputs[name]) throw new Error(`input ${name} is not a graph input`);
        context.writeTensor(tensors.inputs[name], data);
    }
    const t0 = performance.now();
    context.dispatch(built.graph, tensors.inputs, tensors.outputs);
    const outputs = {};
    for (const [name, desc] of Object.entries(built.outputs)) {
        const buf = await context.readTensor(tensors.outputs[name]);
        const A = typedArrayOf(desc.dataType);
        outputs[name] = { name, dataType: desc.dataType, shape: desc.shape, data: new A(buf) };
    }
    return { outputs, computeMs: performance.now() - t0, tensors };
}
