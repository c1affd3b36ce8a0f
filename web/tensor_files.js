// tensor_files.js - tensors for the browser runner (issue 12): reads ONNX TensorProto files
// (input_N.pb / output_N.pb of ONNX backend test data, each naming its tensor) and NumPy .npy files
// (named by the file), converts between WebNN data types and typed arrays, and measures the
// difference of two tensors (max abs, max rel, argmax agreement on the last axis).
//
// A tensor here is { name, dataType, shape: number[], data: TypedArray } with dataType a WebNN
// name (float32, float16, int64, ...); float16 data is a Uint16Array of raw halves.

const ONNX_TYPES = { 1: 'float32', 2: 'uint8', 3: 'int8', 6: 'int32', 7: 'int64', 9: 'uint8', 10: 'float16',
    12: 'uint32', 13: 'uint64' };
const NPY_TYPES = { '<f4': 'float32', '<f2': 'float16', '<i8': 'int64', '<i4': 'int32', '|u1': 'uint8', '|i1': 'int8',
    '|b1': 'uint8', '<u4': 'uint32', '<u8': 'uint64' };
const ARRAYS = { float32: Float32Array, float16: Uint16Array, int64: BigInt64Array, uint64: BigUint64Array,
    int32: Int32Array, uint32: Uint32Array, int8: Int8Array, uint8: Uint8Array, int4: Int8Array, uint4: Uint8Array };

export function typedArrayOf(dataType) {
    const A = ARRAYS[dataType];
    if (!A) throw new Error(`data type ${dataType} is not supported`);
    return A;
}

export function numel(shape) { return shape.reduce((a, b) => a * b, 1); }

// Copies bytes into a fresh typed array of dataType (alignment-safe).
export function fromBytes(dataType, bytes, count) {
    const A = typedArrayOf(dataType);
    const need = count * A.BYTES_PER_ELEMENT;
    if (bytes.byteLength < need) throw new Error(`${need} bytes needed, ${bytes.byteLength} given`);
    const out = new A(count);
    new Uint8Array(out.buffer).set(new Uint8Array(bytes.buffer, bytes.byteOffset, need));
    return out;
}

function varint(buf, pos) {
    let v = 0, mul = 1;
    for (;;) {
        if (pos.p >= buf.length) throw new Error('truncated varint');
        const b = buf[pos.p++];
        v += (b & 0x7f) * mul;
        if (!(b & 0x80)) return v;
        mul *= 128;
    }
}

// ONNX TensorProto: dims (1), data_type (2), name (8), raw_data (9) plus the typed fields
// float_data (4), int32_data (5), int64_data (7) for small tensors.
export function parseTensorProto(bytes, what = 'tensor') {
    const buf = new Uint8Array(bytes);
    const pos = { p: 0 };
    const t = { name: '', dims: [], type: 0, raw: null, floats: [], ints: [] };
    while (pos.p < buf.length) {
        const key = varint(buf, pos);
        const field = Math.floor(key / 8), wire = key % 8;
        if (wire === 0) {
            const v = varint(buf, pos);
            if (field === 1) t.dims.push(v); else if (field === 2) t.type = v; else if (field === 5 || field === 7) t.ints.push(v);
        } else if (wire === 2) {
            const len = varint(buf, pos);
            const body = buf.subarray(pos.p, pos.p + len);
            pos.p += len;
            if (field === 8) t.name = new TextDecoder().decode(body);
            else if (field === 9) t.raw = body;
            else if (field === 1 || field === 5 || field === 7) { const q = { p: 0 }; while (q.p < body.length) { const v = varint(body, q); (field === 1 ? t.dims : t.ints).push(v); } }
            else if (field === 4) { const f = new Float32Array(body.slice().buffer); t.floats.push(...f); }
        } else if (wire === 5) { t.floats.push(new DataView(buf.buffer, buf.byteOffset + pos.p, 4).getFloat32(0, true)); pos.p += 4; }
        else if (wire === 1) pos.p += 8;
        else throw new Error(`${what}: wire type ${wire} not understood`);
    }
    const dataType = ONNX_TYPES[t.type];
    if (!dataType) throw new Error(`${what}: ONNX data type ${t.type} is not supported`);
    const n = numel(t.dims);
    let data;
    if (t.raw) data = fromBytes(dataType, t.raw, n);
    else if (dataType === 'float32') data = Float32Array.from(t.floats);
    else if (dataType === 'int64') data = BigInt64Array.from(t.ints.map((v) => BigInt(v)));
    else data = typedArrayOf(dataType).from(t.ints);
    if (data.length !== n) throw new Error(`${what}: ${data.length} elements for shape [${t.dims}]`);
    return { name: t.name, dataType, shape: t.dims, data };
}

// NumPy .npy version 1/2/3, little-endian, C order.
export function parseNpy(bytes, name) {
    const buf = new Uint8Array(bytes);
    if (buf[0] !== 0x93 || new TextDecoder().decode(buf.subarray(1, 6)) !== 'NUMPY') throw new Error(`${name}: not a .npy file`);
    const dv = new DataView(buf.buffer, buf.byteOffset);
    const hlen = buf[6] === 1 ? dv.getUint16(8, true) : dv.getUint32(8, true);
    const hstart = buf[6] === 1 ? 10 : 12;
    const header = new TextDecoder().decode(buf.subarray(hstart, hstart + hlen));
    const descr = /'descr':\s*'([^']+)'/.exec(header)?.[1];
    const fortran = /'fortran_order':\s*True/.test(header);
    const shape = (/'shape':\s*\(([^)]*)\)/.exec(header)?.[1] ?? '').split(',').map((s) => s.trim()).filter(Boolean).map(Number);
    const dataType = NPY_TYPES[descr];
    if (!dataType || fortran) throw new Error(`${name}: .npy dtype ${descr}${fortran ? ' in Fortran order' : ''} is not supported`);
    return { name, dataType, shape, data: fromBytes(dataType, buf.subarray(hstart + hlen), numel(shape)) };
}

// A tensor file by its name: *.pb or *.npy (the name without .npy names the tensor).
export function parseTensorFile(fileName, bytes) {
    if (fileName.endsWith('.npy')) return parseNpy(bytes, fileName.slice(0, -4));
    return parseTensorProto(bytes, fileName);
}

export function halfToFloat(h) {
    const s = h & 0x8000 ? -1 : 1, e = (h >> 10) & 0x1f, f = h & 0x3ff;
    if (e === 0) return s * f * 2 ** -24;
    if (e === 31) return f ? NaN : s * Infinity;
    return s * (1 + f / 1024) * 2 ** (e - 15);
}

// Element i as a JS number (float16 decoded, 64-bit integers converted).
export function elementAt(t, i) {
    const v = t.data[i];
    if (t.dataType === 'float16') return halfToFloat(v);
    return typeof v === 'bigint' ? Number(v) : v;
}

function rowArgmax(t, base, last) {
    let best = 0, bv = -Infinity;
    for (let j = 0; j < last; j++) { const v = elementAt(t, base + j); if (v > bv) { bv = v; best = j; } }
    return [best, bv];
}

// Rows (of the last axis) where got's argmax is a maximum of expected (ties in the reference,
// common in float16, accept any of the tied indices).
function argmaxAgree(got, expected) {
    const last = expected.shape.length ? expected.shape[expected.shape.length - 1] : 1;
    const rows = numel(expected.shape) / last;
    for (let r = 0; r < rows; r++) {
        const [g] = rowArgmax(got, r * last, last), [, ev] = rowArgmax(expected, r * last, last);
        if (!(elementAt(expected, r * last + g) >= ev)) return false;
    }
    return true;
}

// { maxAbs, maxRel, argmaxEqual, count } of got vs expected (same element count required).
export function compareTensors(got, expected) {
    const n = numel(expected.shape);
    if (numel(got.shape) !== n) throw new Error(`${expected.name}: shape [${got.shape}] vs expected [${expected.shape}]`);
    let maxAbs = 0, maxRel = 0, bad = 0;
    for (let i = 0; i < n; i++) {
        const a = elementAt(got, i), b = elementAt(expected, i);
        const d = Math.abs(a - b);
        if (!(d <= maxAbs)) maxAbs = Number.isNaN(d) ? Infinity : Math.max(maxAbs, d);
        if (Number.isNaN(d)) bad++;
        const r = d / Math.max(Math.abs(b), 1e-6);
        if (r > maxRel) maxRel = r;
    }
    return { maxAbs, maxRel, nonFinite: bad, argmaxEqual: argmaxAgree(got, expected), count: n };
}
