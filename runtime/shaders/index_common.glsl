// index_common.glsl - shared by the gatherElements/gatherND/scatterElements/scatterND shaders
// (k_index.c): element type by size class (A_BITS; bits are moved unchanged) and the WebNN index
// rule for index dtype B: negative indices count from the end, out-of-range ones are clamped.
#if A_BITS == 8
#define E_T uint8_t
#elif A_BITS == 16
#define E_T uint16_t
#elif A_BITS == 64
#define E_T uint64_t
#else
#define E_T uint
#endif

int clamp_index(B_T raw, uint dim) {
#if B_BITS == 64 && B_SIGNED
    int64_t v = int64_t(raw);
    if (v < 0) v += int64_t(dim);
    return int(clamp(v, int64_t(0), int64_t(dim) - 1));
#elif B_SIGNED
    int v = int(raw);
    if (v < 0) v += int(dim);
    return clamp(v, 0, int(dim) - 1);
#else
    return int(min(uint(raw), dim - 1u));
#endif
}
