// ext_common.glsl - helpers shared by the extension-op shaders (ext_*.comp): bytes and packed
// sub-byte integers read from buffers bound as 32-bit words, index reads of int32/int64 tensors
// bound as words (with the WebNN clamp rule), and a workgroup sum (subgroupAdd + shared memory,
// or shared memory only where the device lacks subgroup arithmetic).
// Include after common.glsl; shaders using the reductions define EXT_REDUCTION (shared slots: at
// least the workgroup size) before including.
#extension GL_KHR_shader_subgroup_basic : enable
#extension GL_KHR_shader_subgroup_arithmetic : enable

// Unsigned `bits`-bit element e of a packed array (low bits first) in the word array `arr`.
#define EXT_PACKED(arr, e, bits) bitfieldExtract(arr[((e) * (bits)) >> 5], int(((e) * (bits)) & 31u), int(bits))
// Byte b of the word array `arr`.
#define EXT_BYTE(arr, b) bitfieldExtract(arr[(b) >> 2], int(((b) & 3u) * 8u), 8)

// Index element e of an int32 (is64 false) or int64 (is64 true) tensor bound as words from word
// `base`, as a position in 0..size-1: negative counts from the end, then clamped (WebNN gather).
#define EXT_INDEX_CLAMPED(arr, base, e, is64, size) ext_clamp_index(arr[(base) + ((is64) ? 2u * (e) : (e))], \
    (is64) ? arr[(base) + 2u * (e) + 1u] : (int(arr[(base) + (e)]) < 0 ? 0xffffffffu : 0u), size)
// Same, but -1 when the index lies outside -size..size-1 (gatherBlockQuantized: zeros).
#define EXT_INDEX_CHECKED(arr, base, e, is64, size) ext_checked_index(arr[(base) + ((is64) ? 2u * (e) : (e))], \
    (is64) ? arr[(base) + 2u * (e) + 1u] : (int(arr[(base) + (e)]) < 0 ? 0xffffffffu : 0u), size)

// lo/hi: the two words of a 64-bit two's complement index.
int ext_checked_index(uint lo, uint hi, uint size) {
    int s = int(size);
    if (hi == 0u) return lo < size ? int(lo) : -1;
    if (hi == 0xffffffffu && int(lo) < 0 && int(lo) >= -s) return int(lo) + s;
    return -1;
}
uint ext_clamp_index(uint lo, uint hi, uint size) {
    if (size == 0u) return 0u;
    int s = int(size);
    if (hi == 0u) return min(lo, size - 1u);                      // 0 .. 2^32-1
    if (hi == 0xffffffffu && int(lo) < 0) return uint(max(int(lo) + s, 0)); // -2^31 .. -1
    return int(hi) < 0 ? 0u : size - 1u;                            // beyond 32 bits
}

#ifdef EXT_REDUCTION
shared float ext_red[EXT_REDUCTION];

// Sum of v over the workgroup (every invocation gets it; every invocation must call it);
// sg: use subgroupAdd (the device has subgroup arithmetic).
float ext_wg_sum(float v, bool sg) {
    uint tid = gl_LocalInvocationID.x;
    if (sg) {
        v = subgroupAdd(v);
        if (subgroupElect()) ext_red[gl_SubgroupID] = v;
        barrier();
        float s = 0.0;
        for (uint i = 0u; i < gl_NumSubgroups; i++) s += ext_red[i];
        barrier();
        return s;
    }
    ext_red[tid] = v;
    barrier();
    for (uint h = gl_WorkGroupSize.x / 2u; h > 0u; h >>= 1) {
        if (tid < h) ext_red[tid] += ext_red[tid + h];
        barrier();
    }
    float s = ext_red[0];
    barrier();
    return s;
}
// Maximum of v over the workgroup (same contract as ext_wg_sum).
float ext_wg_max(float v, bool sg) {
    uint tid = gl_LocalInvocationID.x;
    if (sg) {
        v = subgroupMax(v);
        if (subgroupElect()) ext_red[gl_SubgroupID] = v;
        barrier();
        float s = ext_red[0];
        for (uint i = 1u; i < gl_NumSubgroups; i++) s = max(s, ext_red[i]);
        barrier();
        return s;
    }
    ext_red[tid] = v;
    barrier();
    for (uint h = gl_WorkGroupSize.x / 2u; h > 0u; h >>= 1) {
        if (tid < h) ext_red[tid] = max(ext_red[tid], ext_red[tid + h]);
        barrier();
    }
    float s = ext_red[0];
    barrier();
    return s;
}
#endif
