/* k_rnn.c - kernel family `rnn`: gru, gruCell, lstm and lstmCell (float32/float16) with every
 * WebNN option: directions forward/backward/both, layouts zrn/rzn and iofg/ifgo, resetAfter,
 * activations (sigmoid, tanh, relu), returnSequence, peepholes, optional biases and initial
 * states.  One dispatch of rnn_cell.comp runs all steps (one workgroup per direction and batch
 * row, hidden size <= 1024); initial states are first copied into the output buffers the shader
 * updates in place, and with returnSequence the final hidden state is copied out of the sequence. */
#include <string.h>

#include "kx_util.h"
#include "shaders/ew_codes.h"

#define RNN_MAX_H 1024

typedef struct {
    uint32_t steps, B, I, H;
    uint32_t ndir, flags, slots, pad0;
    int32_t base_x, base_w, base_r, base_b, base_rb, base_p, base_s, base_c;
} RnnPush;

enum { F_BIAS = 1, F_RBIAS = 2, F_PEEP = 4, F_H0 = 8, F_C0 = 16, F_BACKWARD = 32, F_RESET_AFTER = 64, F_ALT = 128 };

static bool is_lstm(OpId op) { return op == OP_LSTM || op == OP_LSTM_CELL; }
static bool is_cell(OpId op) { return op == OP_GRU_CELL || op == OP_LSTM_CELL; }

/* Operand slot `name` of the node's op (op table order), or -1. */
static int slot(const Node *n, const char *name) {
    const OpInfo *info = op_info(n->op);
    for (int i = 0; i < info->n_inputs; i++)
        if (strcmp(info->inputs[i].name, name) == 0) return i < n->n_inputs ? i : -1;
    return -1;
}
static bool present(const Node *n, int s) { return s >= 0 && n->inputs[s]; }

/* Activation codes (ew_codes.h) from the "activations" option; -1 with a diagnostic if unsupported. */
static int activations(const Node *n, uint32_t *codes) {
    int count = is_lstm(n->op) ? 3 : 2;
    codes[0] = EWU_SIGMOID;
    codes[1] = codes[2] = EWU_TANH;
    const Attr *a = node_attr(n, "activations");
    if (!a) return 0;
    if (a->type != AT_STRINGS || a->n != count) {
        diag_node_error(n, "activations needs %d names", count);
        return -1;
    }
    for (int k = 0; k < count; k++) {
        int op = op_from_name(a->u.strs[k]);
        if (op == OP_SIGMOID) codes[k] = EWU_SIGMOID;
        else if (op == OP_TANH) codes[k] = EWU_TANH;
        else if (op == OP_RELU) codes[k] = EWU_RELU;
        else {
            diag_error("no kernel for op %s (activation %s) at node %s", op_name(n->op), a->u.strs[k], node_display_name(n));
            return -1;
        }
    }
    return 0;
}

static int directions(const Node *n, bool *backward) {
    const char *dir = is_cell(n->op) ? "forward" : node_str(n, "direction", "forward");
    *backward = strcmp(dir, "backward") == 0;
    if (!strcmp(dir, "both")) return 2;
    if (*backward || !strcmp(dir, "forward")) return 1;
    diag_node_error(n, "unknown direction \"%s\"", dir);
    return -1;
}

static int alt_layout(const Node *n) {
    bool lstm = is_lstm(n->op);
    const char *l = node_str(n, "layout", lstm ? "iofg" : "zrn");
    if (!strcmp(l, lstm ? "ifgo" : "rzn")) return 1;
    if (!strcmp(l, lstm ? "iofg" : "zrn")) return 0;
    diag_node_error(n, "unknown layout \"%s\"", l);
    return -1;
}

static int rnn_check(KernelCtx *kc, const Node *n) {
    bool cell = is_cell(n->op), lstm = is_lstm(n->op);
    int required = cell ? (lstm ? 5 : 4) : 3;
    if (n->n_inputs < required || n->n_outputs < 1 || n->n_outputs > 3) {
        diag_node_error(n, "unexpected operand or output count");
        return -1;
    }
    DType dt = n->inputs[0]->dtype;
    if (kx_float_only(n, dt) < 0) return -1;
    for (int k = 0; k < n->n_inputs; k++) {
        if (k < required && !n->inputs[k]) {
            diag_node_error(n, "operand %d is missing", k);
            return -1;
        }
        if (n->inputs[k] && n->inputs[k]->dtype != dt) return kx_no_kernel(n, n->inputs[k]->dtype);
    }
    int64_t H = node_int(n, "hiddenSize", 0);
    if (H < 1 || H > RNN_MAX_H) {
        diag_error("no kernel for op %s (hiddenSize %lld > %d) at node %s", op_name(n->op), (long long)H, RNN_MAX_H,
                   node_display_name(n));
        return -1;
    }
    bool bw;
    uint32_t codes[3];
    if (n->inputs[0]->rank != (cell ? 2 : 3) || directions(n, &bw) < 0 || alt_layout(n) < 0 || activations(n, codes) < 0) {
        if (!diag_has_error()) diag_node_error(n, "input must be %d-D", cell ? 2 : 3);
        return -1;
    }
    return kcheck_shader(kc, n, "rnn_cell", dt, dt);
}

static int size_is(const Node *n, const KTensor *t, uint64_t want, const char *what) {
    if (t->numel == want) return 0;
    diag_node_error(n, "%s has %llu elements, %llu expected", what, (unsigned long long)t->numel, (unsigned long long)want);
    return -1;
}

static int rnn_record(KernelCtx *kc, const Node *n, const KTensor *in, const KTensor *out) {
    int sh = kc_find_shader(kc, n, "rnn_cell", in[0].dtype, in[0].dtype);
    if (sh < 0) return -1;
    bool cell = is_cell(n->op), lstm = is_lstm(n->op), bw;
    uint32_t codes[3];
    int ndir = directions(n, &bw), alt = alt_layout(n);
    if (ndir < 0 || alt < 0 || activations(n, codes) < 0) return -1;
    const KTensor *x = &in[0];
    uint64_t G = lstm ? 4 : 3, H = (uint64_t)node_int(n, "hiddenSize", 0);
    uint64_t steps = cell ? 1 : (uint64_t)x->shape[0], B = (uint64_t)x->shape[cell ? 0 : 1];
    uint64_t I = (uint64_t)x->shape[cell ? 1 : 2], D = (uint64_t)ndir, BH = B * H;
    int s_b = slot(n, "bias"), s_rb = slot(n, "recurrentBias"), s_p = slot(n, "peepholeWeight");
    int s_h0 = slot(n, cell ? "hiddenState" : "initialHiddenState"), s_c0 = slot(n, cell ? "cellState" : "initialCellState");
    int n_state = lstm ? 2 : 1;
    const KTensor *seq = !cell && n->n_outputs > n_state ? &out[n_state] : NULL;
    if (x->numel > INT32_MAX || size_is(n, &in[1], D * G * H * I, "weight") < 0 ||
        size_is(n, &in[2], D * G * H * H, "recurrentWeight") < 0 ||
        (present(n, s_b) && size_is(n, &in[s_b], D * G * H, "bias") < 0) ||
        (present(n, s_rb) && size_is(n, &in[s_rb], D * G * H, "recurrentBias") < 0) ||
        (lstm && present(n, s_p) && size_is(n, &in[s_p], D * 3 * H, "peepholeWeight") < 0) ||
        (present(n, s_h0) && size_is(n, &in[s_h0], D * BH, "initial hidden state") < 0) ||
        (lstm && present(n, s_c0) && size_is(n, &in[s_c0], D * BH, "initial cell state") < 0) ||
        size_is(n, &out[0], D * BH, "hidden state output") < 0 ||
        (lstm && size_is(n, &out[1], D * BH, "cell state output") < 0) ||
        (seq && size_is(n, seq, steps * D * BH, "sequence output") < 0) || in[1].numel > INT32_MAX ||
        in[2].numel > INT32_MAX)
        return -1;
    const KTensor *S = seq ? seq : &out[0];
    RnnPush pc = {.steps = (uint32_t)steps, .B = (uint32_t)B, .I = (uint32_t)I, .H = (uint32_t)H, .ndir = (uint32_t)D,
                  .slots = seq ? (uint32_t)steps : 1u};
    pc.flags = (present(n, s_b) ? F_BIAS : 0) | (present(n, s_rb) ? F_RBIAS : 0) |
               (lstm && present(n, s_p) ? F_PEEP : 0) | (present(n, s_h0) ? F_H0 : 0) |
               (lstm && present(n, s_c0) ? F_C0 : 0) | (bw ? F_BACKWARD : 0) |
               (!lstm && node_bool(n, "resetAfter", true) ? F_RESET_AFTER : 0) | (alt ? F_ALT : 0);
    /* initial states into the buffers the shader updates in place */
    for (uint64_t d = 0; present(n, s_h0) && d < D; d++) {
        uint64_t t0 = seq && (bw || d == 1) ? steps - 1 : 0;
        if (kx_copy_range(kc, n, &in[s_h0], (int64_t)(d * BH), S, (int64_t)((t0 * D + d) * BH), (int64_t)BH) < 0)
            return -1;
    }
    if (lstm && present(n, s_c0) && kx_copy_range(kc, n, &in[s_c0], 0, &out[1], 0, (int64_t)(D * BH)) < 0) return -1;
    KBind b[8];
    if (kx_bind(kc, n, x, false, &b[0], &pc.base_x) < 0 || kx_bind(kc, n, &in[1], false, &b[1], &pc.base_w) < 0 ||
        kx_bind(kc, n, &in[2], false, &b[2], &pc.base_r) < 0 ||
        kx_bind(kc, n, present(n, s_b) ? &in[s_b] : x, false, &b[3], &pc.base_b) < 0 ||
        kx_bind(kc, n, present(n, s_rb) ? &in[s_rb] : x, false, &b[4], &pc.base_rb) < 0 ||
        kx_bind(kc, n, lstm && present(n, s_p) ? &in[s_p] : x, false, &b[5], &pc.base_p) < 0 ||
        kx_bind(kc, n, S, true, &b[6], &pc.base_s) < 0 ||
        kx_bind(kc, n, lstm ? &out[1] : S, true, &b[7], &pc.base_c) < 0)
        return -1;
    uint32_t spec[5] = {KX_WG, lstm ? 1u : 0u, codes[0], codes[1], codes[2]};
    if (kc_dispatch_1d(kc, n, sh, spec, 5, &pc, sizeof pc, b, 8, D * B) < 0) return -1;
    /* with a sequence output, the final hidden state is the last step's slot of each direction */
    for (uint64_t d = 0; seq && d < D; d++) {
        uint64_t tl = bw || d == 1 ? 0 : steps - 1;
        if (kx_copy_range(kc, n, seq, (int64_t)((tl * D + d) * BH), &out[0], (int64_t)(d * BH), (int64_t)BH) < 0) return -1;
    }
    return 0;
}

const KernelFamily kfam_rnn = {rnn_check, rnn_record, 0};
