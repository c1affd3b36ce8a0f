#version 450
// next_token.comp - the device token loop's pick (runtime/loop.c): one workgroup reads one logits
// row, picks the next token and writes it as the next step's input_ids, with that step's
// position_ids and its attention_mask element, and into the ring the host reads back.
// Greedy (inv_temp == 0): the first index of the largest logit, exactly the host's argmax (a NaN
// never wins; a NaN first logit gives 0, as the host's strict comparison does).  Greedy picks may
// split the row over pc.groups workgroups (runtime/loop.c): workgroup g scans the g-th contiguous
// chunk (the last one also the elements after the last whole vector), writes its first index of
// the largest and that logit to ws[], and counts its arrival in ws[0]; the last to arrive merges
// the groups' results with the same comparison (so the same index: ties go to the smaller one),
// sets ws[0] back to 0 and writes the token.
// Sampling: softmax of logits * inv_temp over the tokens kept by top-k (ties at the k-th value
// kept) and then top-p (the fewest highest tokens whose mass reaches top_p), thresholds found by a
// bitwise search over order-preserving 32-bit keys; one uniform number from a hash of (seed,
// position) picks the token by the cumulative mass in index order (deterministic per seed).
#include "common.glsl"
#extension GL_EXT_control_flow_attributes : enable

// The workgroup: PICK_WG invocations (runtime/loop.c: 1024 where the device allows, a power of 2).
#define WG gl_WorkGroupSize.x
#define WG_MAX 1024
// Logits per invocation whose loads are issued together (scan_scalar), and the same in 16-byte
// vectors (scan_vec: 32 float16 or 16 float32): runtime/loop.c PICK_SCALAR_BATCH / PICK_VEC_BATCH,
// which also size the split greedy pick's chunks by them.
layout(constant_id = 1) const uint ARGMAX_BATCH = 1u;
layout(constant_id = 2) const uint VEC_BATCH = 1u;
layout(std430, binding = 0) readonly buffer Logits { A_T logits[]; };
layout(std430, binding = 0) readonly buffer Logits4 { uvec4 logits4[]; }; // read under flag 32 only
layout(std430, binding = 1) buffer Ids { uint ids_w[]; };
layout(std430, binding = 2) buffer Pos { uint pos_w[]; };
layout(std430, binding = 3) buffer Mask { uint mask_w[]; };
layout(std430, binding = 4) buffer Ring { uint ring[]; };
layout(std430, binding = 5) coherent buffer Ws { uint ws[]; }; // groups > 1: [0] arrivals, then (logit, index) per group
PARAMS_BLOCK PC {
    uint vocab;    // row length
    uint row;      // element index of the row's first logit
    uint slot;     // ring entry of the picked token
    uint pos;      // its position: position_ids value and attention_mask index of the next step
    uint flags;    // 1: ids 64-bit, 2: position_ids present, 4: 64-bit, 8: attention_mask present, 16: 64-bit,
                   // 32: the binding and the row start on 16-byte boundaries (vector loads)
    float inv_temp;
    uint top_k;    // 0: every token
    float top_p;   // >= 1: every token
    uint seed_lo, seed_hi;
    uint groups;   // workgroups splitting the row (greedy only; 1: this one scans it all)
} pc;

const uint NONE = 0xffffffffu; // no index kept (every logit seen NaN)

shared float red_f[WG_MAX];
shared uint red_u[WG_MAX];
shared bool last_group;

float logit(uint i) { return float(logits[pc.row + i]); }

#include "token_pick.glsl"

float wg_sum(float v) {
    uint t = gl_LocalInvocationID.x;
    red_f[t] = v;
    barrier();
    for (uint s = WG / 2; s > 0; s >>= 1) {
        if (t < s) red_f[t] += red_f[t + s];
        barrier();
    }
    float r = red_f[0];
    barrier();
    return r;
}

uint wg_count(uint v) {
    uint t = gl_LocalInvocationID.x;
    red_u[t] = v;
    barrier();
    for (uint s = WG / 2; s > 0; s >>= 1) {
        if (t < s) red_u[t] += red_u[t + s];
        barrier();
    }
    uint r = red_u[0];
    barrier();
    return r;
}

// Keeps (x, i) in (best, bi) when x is not NaN and larger than best (or the first one kept): with
// rising i per invocation, a strict > keeps the first index of the largest.
void keep_max(float x, uint i, inout float best, inout uint bi) {
    if (!isnan(x) && (bi == NONE || x > best)) best = x, bi = i;
}

// Workgroup g's chunk [lo, hi) of n items (elements or vectors) split into pc.groups near-equal parts.
void chunk_of(uint n, out uint lo, out uint hi) {
    uint per = (n + pc.groups - 1u) / pc.groups;
    lo = min(gl_WorkGroupID.x * per, n);
    hi = min(lo + per, n);
}

// Invocation t's scan of its workgroup's elements lo + t, lo + t + WG, ... in batches of
// ARGMAX_BATCH whose loads are all issued before any is compared.  (256 invocations reading one
// logit at a time: Qwen2-0.5B, vocabulary 151936, decoded 596 / 580 tok/s after 128 / 512-token
// prompts on an H100, against 624 / 621 with this, in the same run.)
void scan_scalar(inout float best, inout uint bi) {
    uint t = gl_LocalInvocationID.x, lo, hi;
    chunk_of(pc.vocab, lo, hi);
    for (uint base = lo; base < hi; base += WG * ARGMAX_BATCH) {
        float x[ARGMAX_BATCH];
        [[unroll]] for (uint u = 0u; u < ARGMAX_BATCH; u++) {
            uint i = base + t + WG * u;
            x[u] = i < hi ? logit(i) : uintBitsToFloat(0x7fc00000u); // past the end: NaN, never kept
        }
        [[unroll]] for (uint u = 0u; u < ARGMAX_BATCH; u++) keep_max(x[u], base + t + WG * u, best, bi);
    }
}

// The same over 16-byte vectors (flag 32): invocation t takes its workgroup's vectors lo + t,
// lo + t + WG, ... (VEC_BATCH loads issued together), then (the last workgroup) the elements after
// the last whole vector; its indices still rise.  A row of 151936 float16 is 19 vectors per
// invocation of one workgroup of 1024, where scalar loads took 149.
const uint PER_VEC = 128u / A_BITS;
void scan_vec(inout float best, inout uint bi) {
    uint t = gl_LocalInvocationID.x, nvec = pc.vocab / PER_VEC, v0 = pc.row / PER_VEC, lo, hi;
    chunk_of(nvec, lo, hi);
    for (uint base = lo; base < hi; base += WG * VEC_BATCH) {
        uvec4 q[VEC_BATCH];
        [[unroll]] for (uint u = 0u; u < VEC_BATCH; u++) {
            uint v = base + t + WG * u;
            q[u] = logits4[v0 + min(v, hi - 1u)]; // past the end: clamped, not kept below
        }
        [[unroll]] for (uint u = 0u; u < VEC_BATCH; u++) {
            uint v = base + t + WG * u;
            if (v >= hi) continue;
            [[unroll]] for (uint w = 0u; w < 4u; w++) {
#if A_BITS == 16
                vec2 f = unpackHalf2x16(q[u][w]);
                keep_max(f.x, v * PER_VEC + 2u * w, best, bi);
                keep_max(f.y, v * PER_VEC + 2u * w + 1u, best, bi);
#else
                keep_max(uintBitsToFloat(q[u][w]), v * PER_VEC + w, best, bi);
#endif
            }
        }
    }
    uint i = nvec * PER_VEC + t;
    if (gl_WorkGroupID.x == pc.groups - 1u && i < pc.vocab) keep_max(logit(i), i, best, bi);
}

// The invocations' (logit, index) pairs merged: the first index of the largest (NONE: none kept);
// every invocation gets it and its logit.
uint wg_merge(float best, uint bi, out float value) {
    uint t = gl_LocalInvocationID.x;
    red_f[t] = best;
    red_u[t] = bi;
    barrier();
    for (uint s = WG / 2; s > 0; s >>= 1) {
        if (t < s) {
            uint oi = red_u[t + s];
            float ov = red_f[t + s];
            if (oi != NONE && (red_u[t] == NONE || ov > red_f[t] || (ov == red_f[t] && oi < red_u[t])))
                red_f[t] = ov, red_u[t] = oi;
        }
        barrier();
    }
    uint r = red_u[0];
    value = red_f[0];
    barrier();
    return r;
}

// The first index of the largest non-NaN logit of the row (NONE: none) in the workgroup that
// returns true (every invocation of it gets the index); with groups, the others return false.
bool row_argmax(out uint r) {
    float best = 0.0, value;
    uint bi = NONE, t = gl_LocalInvocationID.x;
    if ((pc.flags & 32u) != 0u) scan_vec(best, bi);
    else scan_scalar(best, bi);
    r = wg_merge(best, bi, value);
    if (pc.groups == 1u) return true;
    uint g = gl_WorkGroupID.x;
    if (t == 0u) {
        ws[1u + 2u * g] = floatBitsToUint(value);
        ws[2u + 2u * g] = r;
    }
    memoryBarrierBuffer();
    barrier();
    if (t == 0u) last_group = atomicAdd(ws[0], 1u) == pc.groups - 1u;
    barrier();
    if (!last_group) return false;
    memoryBarrierBuffer();
    bool mine = t < pc.groups; // (loop.c: groups <= the workgroup size)
    float v = mine ? uintBitsToFloat(ws[1u + 2u * t]) : 0.0;
    uint i = mine ? ws[2u + 2u * t] : NONE;
    if (t == 0u) ws[0] = 0u;
    r = wg_merge(v, i, value);
    return true;
}

uint hash(uint x) {
    x ^= x >> 16; x *= 0x7feb352du;
    x ^= x >> 15; x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

// Weight of token i (0 outside the kept set: key below thr, or NaN).
float weight(uint i, float mx, uint thr) {
    float x = logit(i);
    return isnan(x) || key_of(x) < thr ? 0.0 : exp((x - mx) * pc.inv_temp);
}

// Largest threshold key whose kept set (key >= threshold, also >= floor_key) holds at least `need`
// tokens (by_mass false) or mass (by_mass true).
uint search_threshold(bool by_mass, float need, uint floor_key, float mx) {
    uint t = gl_LocalInvocationID.x, thr = 0u;
    for (int b = 31; b >= 0; b--) {
        uint cand = thr | (1u << uint(b));
        uint lo = max(cand, floor_key);
        float acc = 0.0;
        uint cnt = 0u;
        for (uint i = t; i < pc.vocab; i += WG) {
            if (by_mass) acc += weight(i, mx, lo);
            else cnt += !isnan(logit(i)) && key_of(logit(i)) >= lo ? 1u : 0u;
        }
        bool enough = by_mass ? wg_sum(acc) >= need : float(wg_count(cnt)) >= need;
        if (enough) thr = cand;
    }
    return max(thr, floor_key);
}

uint sample_token(uint best) {
    uint t = gl_LocalInvocationID.x;
    float mx = logit(best);
    uint thr = 0u;
    if (pc.top_k > 0u && pc.top_k < pc.vocab) thr = search_threshold(false, float(pc.top_k), 0u, mx);
    if (pc.top_p < 1.0) {
        float acc = 0.0;
        for (uint i = t; i < pc.vocab; i += WG) acc += weight(i, mx, thr);
        thr = search_threshold(true, wg_sum(acc) * pc.top_p, thr, mx);
    }
    uint chunk = (pc.vocab + WG - 1) / WG, lo = t * chunk, hi = min(lo + chunk, pc.vocab);
    float part = 0.0;
    for (uint i = lo; i < hi; i++) part += weight(i, mx, thr);
    red_f[t] = part;
    barrier();
    uint pick = best;
    if (t == 0u) {
        float total = 0.0;
        for (uint c = 0u; c < WG; c++) total += red_f[c];
        uint r = hash(pc.seed_lo ^ hash(pc.seed_hi ^ hash(pc.pos * 0x9e3779b9u + 0x632be5abu)));
        float target = float(r >> 8) * (1.0 / 16777216.0) * total, cum = 0.0;
        bool found = false;
        for (uint c = 0u; c < WG && !found; c++) {
            if (cum + red_f[c] <= target && c + 1u < WG) {
                cum += red_f[c];
                continue;
            }
            for (uint i = c * chunk; i < min(c * chunk + chunk, pc.vocab); i++) {
                float w = weight(i, mx, thr);
                if (w == 0.0) continue;
                pick = i; // the last kept token when rounding leaves the target past the end
                cum += w;
                if (cum > target) { found = true; break; }
            }
        }
        red_u[0] = pick;
    }
    barrier();
    return red_u[0];
}

void main() {
    uint best;
    if (!row_argmax(best)) return;
    uint id = best == NONE || isnan(logit(0u)) ? 0u : best;
    if (pc.inv_temp > 0.0 && best != NONE) id = sample_token(best);
    if (gl_LocalInvocationID.x == 0u) write_token(id, best == NONE, pc.slot, pc.pos, pc.flags);
}
