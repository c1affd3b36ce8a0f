#version 450
// rnn_cell.comp - gru / gruCell (spec constant 1 LSTM = 0) and lstm / lstmCell (LSTM = 1): one
// workgroup per (direction, batch row) runs every step, keeping h (and the next h) in shared
// memory; threads own hidden units j.  Gate pre-activations x·W[row] + b[row] + h·R[row] + rb[row]
// accumulate in f32.  Activations are spec constants 2..4 (ew_codes.h: sigmoid, tanh, relu).
// The hidden state lives in S = [slots, ndir, B, H]: slot 0 (no sequence output) or the step's
// slot of the sequence output; the initial state is read from the first slot (k_rnn.c copies
// initialHiddenState there) and the cell state is read and written in place in C = [ndir, B, H].
#include "common.glsl"
#include "ew_codes.h"

#define MAX_H 1024
layout(constant_id = 1) const uint LSTM = 0;
layout(constant_id = 2) const uint ACT0 = EWU_SIGMOID;
layout(constant_id = 3) const uint ACT1 = EWU_TANH;
layout(constant_id = 4) const uint ACT2 = EWU_TANH;
PARAMS_BLOCK PC {
    uint steps, B, I, H;
    uint ndir, flags, slots, pad0;
    int base_x, base_w, base_r, base_b, base_rb, base_p, base_s, base_c;
} pc;
// flags
#define F_BIAS 1u
#define F_RBIAS 2u
#define F_PEEP 4u
#define F_H0 8u
#define F_C0 16u
#define F_BACKWARD 32u
#define F_RESET_AFTER 64u
#define F_ALT_LAYOUT 128u

layout(std430, binding = 0) readonly buffer X { A_T x_in[]; };
layout(std430, binding = 1) readonly buffer W { A_T w_in[]; };
layout(std430, binding = 2) readonly buffer R { A_T r_in[]; };
layout(std430, binding = 3) readonly buffer Bi { A_T b_in[]; };
layout(std430, binding = 4) readonly buffer RBi { A_T rb_in[]; };
layout(std430, binding = 5) readonly buffer P { A_T p_in[]; };
layout(std430, binding = 6) buffer S { A_T s_io[]; };
layout(std430, binding = 7) buffer C { A_T c_io[]; };

shared float h_cur[MAX_H];
shared float h_next[MAX_H];
shared float rh[MAX_H];

float act(uint code, float v) {
    if (code == EWU_SIGMOID) return 1.0 / (1.0 + exp(-v));
    if (code == EWU_RELU) return max(v, 0.0);
    float a = abs(v); // tanh
    if (a > 10.0) return sign(v);
    if (a < 0.3) {
        float v2 = v * v;
        return v * (1.0 + v2 * (-0.333333333 + v2 * (0.133333333 + v2 * (-0.0539682540 + v2 * 0.0218694885))));
    }
    float r = 1.0 - 2.0 / (exp(2.0 * a) + 1.0);
    return v < 0.0 ? -r : r;
}

uint G() { return LSTM != 0u ? 4u : 3u; }

// x·W[row] + bias[row] for direction d, input row xo
float gate_x(uint d, uint row, int xo) {
    uint gh = G() * pc.H;
    float s = (pc.flags & F_BIAS) != 0u ? float(b_in[pc.base_b + int(d * gh + row)]) : 0.0;
    int wo = pc.base_w + int((d * gh + row) * pc.I);
    for (uint k = 0u; k < pc.I; k++) s = fma(float(x_in[xo + int(k)]), float(w_in[wo + int(k)]), s);
    return s;
}
// v·R[row] + recurrentBias[row] with v = h_cur (use_rh false) or rh (true)
float gate_h(uint d, uint row, bool use_rh) {
    uint gh = G() * pc.H;
    float s = (pc.flags & F_RBIAS) != 0u ? float(rb_in[pc.base_rb + int(d * gh + row)]) : 0.0;
    int ro = pc.base_r + int((d * gh + row) * pc.H);
    for (uint k = 0u; k < pc.H; k++) s = fma(use_rh ? rh[k] : h_cur[k], float(r_in[ro + int(k)]), s);
    return s;
}

void main() {
    uint grp = flat_group();
    if (grp >= pc.ndir * pc.B) return;
    uint d = grp / pc.B, b = grp - d * pc.B;
    uint tid = gl_LocalInvocationID.x, nt = gl_WorkGroupSize.x, H = pc.H;
    bool reverse = (pc.flags & F_BACKWARD) != 0u || d == 1u;
    bool alt = (pc.flags & F_ALT_LAYOUT) != 0u;
    uint first_t = reverse ? pc.steps - 1u : 0u;
    uint state = (d * pc.B + b) * H; // offset of this row in [ndir, B, H]
    int init_slot = pc.slots > 1u ? int(first_t) : 0;
    for (uint j = tid; j < H; j += nt) {
        h_cur[j] = (pc.flags & F_H0) != 0u ? float(s_io[pc.base_s + init_slot * int(pc.ndir * pc.B * H) + int(state + j)]) : 0.0;
        if (LSTM != 0u && (pc.flags & F_C0) == 0u) c_io[pc.base_c + int(state + j)] = A_T(0.0);
    }
    barrier();
    for (uint s = 0u; s < pc.steps; s++) {
        uint t = reverse ? pc.steps - 1u - s : s;
        int xo = pc.base_x + int((t * pc.B + b) * pc.I);
        if (LSTM != 0u) {
            uint io = 0u, oo = alt ? 3u * H : H, fo = alt ? H : 2u * H, go = alt ? 2u * H : 3u * H;
            bool peep = (pc.flags & F_PEEP) != 0u;
            int po = pc.base_p + int(d * 3u * H);
            for (uint j = tid; j < H; j += nt) {
                float c = float(c_io[pc.base_c + int(state + j)]);
                float ig = gate_x(d, io + j, xo) + gate_h(d, io + j, false) + (peep ? float(p_in[po + int(j)]) * c : 0.0);
                float fg = gate_x(d, fo + j, xo) + gate_h(d, fo + j, false) + (peep ? float(p_in[po + int(2u * H + j)]) * c : 0.0);
                float gg = act(ACT1, gate_x(d, go + j, xo) + gate_h(d, go + j, false));
                float cn = act(ACT0, fg) * c + act(ACT0, ig) * gg;
                float og = gate_x(d, oo + j, xo) + gate_h(d, oo + j, false) + (peep ? float(p_in[po + int(H + j)]) * cn : 0.0);
                h_next[j] = act(ACT0, og) * act(ACT2, cn);
                c_io[pc.base_c + int(state + j)] = A_T(cn);
            }
        } else {
            uint zo = alt ? H : 0u, ro = alt ? 0u : H, no = 2u * H;
            bool reset_after = (pc.flags & F_RESET_AFTER) != 0u;
            for (uint j = tid; j < H; j += nt) {
                float r = act(ACT0, gate_x(d, ro + j, xo) + gate_h(d, ro + j, false));
                h_next[j] = r;            // r kept for resetAfter
                rh[j] = r * h_cur[j];     // r ⊙ h for resetAfter = false
            }
            barrier();
            for (uint j = tid; j < H; j += nt) {
                float z = act(ACT0, gate_x(d, zo + j, xo) + gate_h(d, zo + j, false));
                float nn = reset_after ? gate_x(d, no + j, xo) + h_next[j] * gate_h(d, no + j, false)
                                       : gate_x(d, no + j, xo) + gate_h(d, no + j, true);
                nn = act(ACT1, nn);
                h_next[j] = (1.0 - z) * nn + z * h_cur[j]; // only thread j reads h_next[j] (r) above
            }
        }
        barrier();
        int slot = pc.slots > 1u ? int(t) : 0;
        for (uint j = tid; j < H; j += nt) {
            h_cur[j] = h_next[j];
            s_io[pc.base_s + slot * int(pc.ndir * pc.B * H) + int(state + j)] = A_T(h_next[j]);
        }
        barrier();
    }
}
