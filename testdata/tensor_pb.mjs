// tensor_pb.mjs - a minimal ONNX TensorProto codec for the ONNX Runtime reference scripts
// (testdata/make_refs.mjs, bench/ort_reference.mjs): dims (1), data_type (2), name (8), raw_data (9).
// makeCodec(ort) returns { decodeTensor(buf) -> [name, ort.Tensor], encodeTensor(name, tensor) -> Buffer }.
export function makeCodec(ort) {
  const ONNX_TYPES = { // TensorProto.DataType -> [ort type name, TypedArray]
    1: ['float32', Float32Array], 2: ['uint8', Uint8Array], 3: ['int8', Int8Array],
    6: ['int32', Int32Array], 7: ['int64', BigInt64Array], 9: ['bool', Uint8Array],
    10: ['float16', Uint16Array], 11: ['float64', Float64Array], 12: ['uint32', Uint32Array],
    13: ['uint64', BigUint64Array],
  };
  const ORT_TO_ONNX = Object.fromEntries(Object.entries(ONNX_TYPES).map(([code, [name]]) => [name, Number(code)]));

  function readVarint(buf, pos) {
    let value = 0n, shift = 0n;
    for (;;) {
      if (pos >= buf.length) throw new Error('truncated varint');
      const b = buf[pos++];
      value |= BigInt(b & 0x7f) << shift;
      if (!(b & 0x80)) return [value, pos];
      shift += 7n;
    }
  }

  function decodeTensor(buf) {
    const t = { dims: [], dataType: 0, name: '', raw: null };
    let pos = 0;
    while (pos < buf.length) {
      let key, v;
      [key, pos] = readVarint(buf, pos);
      const field = Number(key >> 3n), wire = Number(key & 7n);
      if (wire === 0) {
        [v, pos] = readVarint(buf, pos);
        if (field === 1) t.dims.push(Number(BigInt.asIntN(64, v)));
        else if (field === 2) t.dataType = Number(v);
      } else if (wire === 2) {
        let len;
        [len, pos] = readVarint(buf, pos);
        const bytes = buf.subarray(pos, pos + Number(len));
        pos += Number(len);
        if (field === 1) { // packed dims
          for (let p = 0; p < bytes.length;) { [v, p] = readVarint(bytes, p); t.dims.push(Number(BigInt.asIntN(64, v))); }
        } else if (field === 8) t.name = bytes.toString('utf8');
        else if (field === 9) t.raw = bytes;
      } else if (wire === 5) pos += 4;
      else if (wire === 1) pos += 8;
      else throw new Error(`unsupported wire type ${wire}`);
    }
    const type = ONNX_TYPES[t.dataType];
    if (!type || !t.raw) throw new Error(`tensor ${t.name}: need raw_data of a known type`);
    const [ortType, Arr] = type;
    const copy = new Uint8Array(t.raw); // aligned copy
    return [t.name, new ort.Tensor(ortType, new Arr(copy.buffer, 0, copy.byteLength / Arr.BYTES_PER_ELEMENT), t.dims)];
  }

  function varint(n) {
    const out = [];
    let v = BigInt.asUintN(64, BigInt(n));
    do { let b = Number(v & 0x7fn); v >>= 7n; if (v) b |= 0x80; out.push(b); } while (v);
    return out;
  }
  function lengthDelimited(field, bytes) {
    return Buffer.concat([Buffer.from([...varint((field << 3) | 2), ...varint(bytes.length)]), Buffer.from(bytes)]);
  }

  function encodeTensor(name, tensor) {
    const code = ORT_TO_ONNX[tensor.type];
    if (!code) throw new Error(`output ${name}: unsupported type ${tensor.type}`);
    const parts = tensor.dims.map((d) => Buffer.from([...varint(1 << 3), ...varint(d)]));
    parts.push(Buffer.from([...varint(2 << 3), ...varint(code)]));
    parts.push(lengthDelimited(8, Buffer.from(name, 'utf8')));
    const data = tensor.data;
    parts.push(lengthDelimited(9, new Uint8Array(data.buffer, data.byteOffset, data.byteLength)));
    return Buffer.concat(parts);
  }
  return { decodeTensor, encodeTensor };
}
