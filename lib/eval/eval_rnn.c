/* eval_rnn.c - gru, gruCell, lstm and lstmCell for the CPU evaluator, following the WebNN
 * definitions: gate order from `layout` (gru "zrn"/"rzn", lstm "iofg"/"ifgo"), optional biases,
 * resetAfter, lstm peepholes (i, o, f), directions forward/backward/both and activations by name.
 * Everything is computed in double; only the outputs are rounded.
 * Family rnn of ops.def: its op-indexed table is eval_rnn_ops. */
#include <string.h>

#include "core.h"
#include "eval_internal.h"

/* Index of the operand slot `name` in n's op table entry, or -1. */
static int slot(const Node *n, const char *name) {
    const OpInfo *info = op_info(n->op);
    for (int i = 0; i < info->n_inputs; i++)
        if (strcmp(info->inputs[i].name, name) == 0) return i;
    return -1;
}

/* Operand i of n as doubles (NULL when absent); `want` elements are required. */
static double *load(Graph *g, const Ten *in, int i, const Node *n, int64_t want, bool *bad) {
    if (i < 0 || i >= n->n_inputs || !in[i].data) return NULL;
    if (in[i].count != want) {
        *bad = true;
        return NULL;
    }
    double *d = eval_scratch(g, want);
    for (int64_t k = 0; k < want; k++) d[k] = ten_getf(&in[i], k);
    return d;
}

/* Activation ops from the "activations" option (defaults given); 1 if an unknown name. */
static int activations(const Node *n, OpId *act, int count, const OpId *defaults) {
    const Attr *a = node_attr(n, "activations");
    for (int k = 0; k < count; k++) act[k] = defaults[k];
    if (!a) return 0;
    if (a->type != AT_STRINGS || a->n != count) return eval_fail(n, "activations has the wrong length");
    for (int k = 0; k < count; k++) {
        int op = op_from_name(a->u.strs[k]);
        if (op < 0 || !(op_info((OpId)op)->flags & OPF_ELTWISE_UNARY)) return 1;
        act[k] = (OpId)op;
    }
    return 0;
}

/* One gate pre-activation: x·W[row]ᵀ + b[row] + h·R[row]ᵀ + rb[row] (the h term optional). */
typedef struct {
    const double *W, *R, *b, *rb;
    int64_t I, H;
} Gates;

static double gate_x(const Gates *p, const double *x, int64_t row) {
    double s = p->b ? p->b[row] : 0;
    for (int64_t k = 0; k < p->I; k++) s += x[k] * p->W[row * p->I + k];
    return s;
}
static double gate_h(const Gates *p, const double *h, int64_t row) {
    double s = p->rb ? p->rb[row] : 0;
    for (int64_t k = 0; k < p->H; k++) s += h[k] * p->R[row * p->H + k];
    return s;
}

/* GRU step for one batch row: h (length H) is updated in place using scratch `tmp` (H). */
static void gru_step(const Node *n, const Gates *p, const double *x, double *h, double *tmp, bool reset_after,
                     bool rzn, const OpId *act) {
    int64_t H = p->H, zo = rzn ? H : 0, ro = rzn ? 0 : H, no = 2 * H;
    for (int64_t j = 0; j < H; j++) { /* r ⊙ h for resetAfter=false */
        double r = eval_unary_value(n, act[0], gate_x(p, x, ro + j) + gate_h(p, h, ro + j));
        tmp[j] = r;
    }
    double *rh = tmp + H;
    for (int64_t j = 0; j < H; j++) rh[j] = tmp[j] * h[j];
    double *next = rh + H;
    for (int64_t j = 0; j < H; j++) {
        double z = eval_unary_value(n, act[0], gate_x(p, x, zo + j) + gate_h(p, h, zo + j));
        double nn;
        if (reset_after) {
            nn = gate_x(p, x, no + j) + tmp[j] * gate_h(p, h, no + j);
        } else {
            nn = gate_x(p, x, no + j) + gate_h(p, rh, no + j);
        }
        nn = eval_unary_value(n, act[1], nn);
        next[j] = (1 - z) * nn + z * h[j];
    }
    memcpy(h, next, sizeof *h * (size_t)H);
}

/* LSTM step for one batch row: h and c (length H) are updated in place. */
static void lstm_step(const Node *n, const Gates *p, const double *peep, const double *x, double *h, double *c,
                      double *tmp, bool ifgo, const OpId *act) {
    int64_t H = p->H;
    int64_t io = 0, oo = ifgo ? 3 * H : H, fo = ifgo ? H : 2 * H, go = ifgo ? 2 * H : 3 * H;
    double *hn = tmp, *cn = tmp + H;
    for (int64_t j = 0; j < H; j++) {
        double i = gate_x(p, x, io + j) + gate_h(p, h, io + j) + (peep ? peep[j] * c[j] : 0);
        double f = gate_x(p, x, fo + j) + gate_h(p, h, fo + j) + (peep ? peep[2 * H + j] * c[j] : 0);
        double gg = gate_x(p, x, go + j) + gate_h(p, h, go + j);
        i = eval_unary_value(n, act[0], i);
        f = eval_unary_value(n, act[0], f);
        gg = eval_unary_value(n, act[1], gg);
        cn[j] = f * c[j] + i * gg;
        double o = gate_x(p, x, oo + j) + gate_h(p, h, oo + j) + (peep ? peep[H + j] * cn[j] : 0);
        hn[j] = eval_unary_value(n, act[0], o) * eval_unary_value(n, act[2], cn[j]);
    }
    memcpy(h, hn, sizeof *h * (size_t)H);
    memcpy(c, cn, sizeof *c * (size_t)H);
}

/* Runs gru/lstm (or their cells as one step, one direction). */
static int run(Graph *g, const Node *n, const Ten *in, Ten *out, bool is_lstm, bool cell) {
    const Ten *x = &in[0];
    int64_t H = node_int(n, "hiddenSize", 0);
    int64_t steps = cell ? 1 : node_int(n, "steps", 0);
    int64_t gates = is_lstm ? 4 : 3;
    if (x->rank != (cell ? 2 : 3) || H < 1 || steps < 1) return eval_fail(n, "bad input rank, hiddenSize or steps");
    if (!cell && x->shape[0] != steps) return eval_fail(n, "steps does not match the input");
    int64_t B = x->shape[cell ? 0 : 1], I = x->shape[cell ? 1 : 2];
    const char *dir = cell ? "forward" : node_str(n, "direction", "forward");
    int ndir = strcmp(dir, "both") == 0 ? 2 : 1;
    bool backward_only = strcmp(dir, "backward") == 0;
    if (H > INT32_MAX / gates / (I > H ? I : H)) return eval_fail(n, "hiddenSize too large");
    const char *layout = node_str(n, "layout", is_lstm ? "iofg" : "zrn");
    bool alt = strcmp(layout, is_lstm ? "ifgo" : "rzn") == 0;
    if (!alt && strcmp(layout, is_lstm ? "iofg" : "zrn") != 0) return 1;
    static const OpId gru_def[2] = {OP_SIGMOID, OP_TANH}, lstm_def[3] = {OP_SIGMOID, OP_TANH, OP_TANH};
    OpId act[3];
    int rc = activations(n, act, is_lstm ? 3 : 2, is_lstm ? lstm_def : gru_def);
    if (rc) return rc;
    int s_bias = slot(n, "bias"), s_rbias = slot(n, "recurrentBias"), s_peep = slot(n, "peepholeWeight");
    int s_h0 = slot(n, cell ? "hiddenState" : "initialHiddenState");
    int s_c0 = slot(n, cell ? "cellState" : "initialCellState");
    bool bad = false;
    double *W = load(g, in, 1, n, ndir * gates * H * I, &bad);
    double *R = load(g, in, 2, n, ndir * gates * H * H, &bad);
    double *bias = load(g, in, s_bias, n, ndir * gates * H, &bad);
    double *rbias = load(g, in, s_rbias, n, ndir * gates * H, &bad);
    double *peep = load(g, in, s_peep, n, ndir * 3 * H, &bad);
    double *h0 = load(g, in, s_h0, n, ndir * B * H, &bad);
    double *c0 = load(g, in, s_c0, n, ndir * B * H, &bad);
    if (bad || !W || !R) return eval_fail(n, "operand sizes do not match hiddenSize/direction");
    int want_out = cell ? (is_lstm ? 2 : 1) : (is_lstm ? 2 : 1) + node_bool(n, "returnSequence", false);
    if (n->n_outputs != want_out) return eval_fail(n, "unexpected number of outputs");
    for (int k = 0; k < n->n_outputs; k++) {
        int64_t want = (k == (is_lstm ? 2 : 1)) ? steps * ndir * B * H : ndir * B * H;
        if (out[k].count != want) return eval_fail(n, "output size mismatch");
    }
    double *h = eval_scratch(g, ndir * B * H), *c = eval_scratch(g, ndir * B * H);
    double *xrow = eval_scratch(g, I), *tmp = eval_scratch(g, 3 * H);
    if (h0) memcpy(h, h0, sizeof *h * (size_t)(ndir * B * H));
    if (c0) memcpy(c, c0, sizeof *c * (size_t)(ndir * B * H));
    Ten *seq = n->n_outputs > (is_lstm ? 2 : 1) ? &out[is_lstm ? 2 : 1] : NULL;
    for (int d = 0; d < ndir; d++) {
        Gates p = {W + d * gates * H * I, R + d * gates * H * H, bias ? bias + d * gates * H : NULL,
                   rbias ? rbias + d * gates * H : NULL, I, H};
        bool reverse = backward_only || d == 1;
        for (int64_t s = 0; s < steps; s++) {
            int64_t t = reverse ? steps - 1 - s : s;
            for (int64_t b = 0; b < B; b++) {
                for (int64_t k = 0; k < I; k++) xrow[k] = ten_getf(x, (t * B + b) * I + k);
                double *hb = h + (d * B + b) * H, *cb = c + (d * B + b) * H;
                if (is_lstm) lstm_step(n, &p, peep ? peep + d * 3 * H : NULL, xrow, hb, cb, tmp, alt, act);
                else gru_step(n, &p, xrow, hb, tmp, node_bool(n, "resetAfter", true), alt, act);
                if (seq)
                    for (int64_t j = 0; j < H; j++) ten_setf(seq, ((t * ndir + d) * B + b) * H + j, hb[j]);
            }
        }
    }
    for (int64_t i = 0; i < ndir * B * H; i++) {
        ten_setf(&out[0], i, h[i]);
        if (is_lstm) ten_setf(&out[1], i, c[i]);
    }
    return 0;
}

/* input, weight and recurrentWeight are present and float (every recurrent op needs them). */
static bool rnn_operands(const Node *n, const Ten *in) {
    return n->n_inputs >= 3 && in[0].data && in[1].data && in[2].data && dtype_is_float(in[0].dt);
}

static int eval_gru(Graph *g, const Node *n, const Ten *in, Ten *out) {
    return rnn_operands(n, in) ? run(g, n, in, out, false, false) : 1;
}

static int eval_gru_cell(Graph *g, const Node *n, const Ten *in, Ten *out) {
    return rnn_operands(n, in) && n->n_inputs >= 4 && in[3].data ? run(g, n, in, out, false, true) : 1;
}

static int eval_lstm(Graph *g, const Node *n, const Ten *in, Ten *out) {
    return rnn_operands(n, in) ? run(g, n, in, out, true, false) : 1;
}

static int eval_lstm_cell(Graph *g, const Node *n, const Ten *in, Ten *out) {
    return rnn_operands(n, in) && n->n_inputs >= 5 && in[3].data && in[4].data ? run(g, n, in, out, true, true) : 1;
}

const EvalOp eval_rnn_ops[OP_COUNT] = {
    [OP_GRU] = {eval_gru},
    [OP_GRU_CELL] = {eval_gru_cell},
    [OP_LSTM] = {eval_lstm},
    [OP_LSTM_CELL] = {eval_lstm_cell},
};
