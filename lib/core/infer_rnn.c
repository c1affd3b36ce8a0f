/* infer_rnn.c - shape inference for the recurrent ops gru, gruCell, lstm and lstmCell: operand
 * shapes from gate count, hiddenSize and direction, activations, and output counts/shapes
 * (returnSequence adds [steps, numDirections, batch, hiddenSize]).
 * Family rnn of ops.def: its op-indexed table is infer_rnn_rules. */
#include <inttypes.h>
#include <string.h>

#include "infer_internal.h"

/* Per-op operand positions (-1: the op has no such operand). */
typedef struct {
    int gates, n_activations;
    bool sequence;           /* gru/lstm: 3-D input and a leading numDirections dim */
    int bias, recurrent_bias, peephole;
    int state[2];            /* hidden (and cell) state operands */
    int n_states;            /* state outputs */
    const char *layouts[3];  /* valid "layout" values, NULL terminated */
} RnnSpec;

static const RnnSpec *rnn_spec(OpId op) {
    static const RnnSpec gru = {3, 2, true, 3, 4, -1, {5, -1}, 1, {"zrn", "rzn", NULL}};
    static const RnnSpec gru_cell = {3, 2, false, 4, 5, -1, {3, -1}, 1, {"zrn", "rzn", NULL}};
    static const RnnSpec lstm = {4, 3, true, 3, 4, 5, {6, 7}, 2, {"iofg", "ifgo", NULL}};
    static const RnnSpec lstm_cell = {4, 3, false, 5, 6, 7, {3, 4}, 2, {"iofg", "ifgo", NULL}};
    switch (op) {
    case OP_GRU: return &gru;
    case OP_GRU_CELL: return &gru_cell;
    case OP_LSTM: return &lstm;
    default: return &lstm_cell;
    }
}

static bool check_activations(const Node *n, int want) {
    static const char *const names[] = {"relu", "sigmoid", "tanh"};
    const Attr *a = node_attr(n, "activations");
    if (!a) return true;
    if (a->n != want) {
        diag_node_error(n, "activations has %d entries, expected %d", a->n, want);
        return false;
    }
    for (int i = 0; i < a->n; i++) {
        bool ok = false;
        for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) ok = ok || (a->u.strs[i] && strcmp(a->u.strs[i], names[k]) == 0);
        if (!ok) {
            diag_node_error(n, "activations[%d] is \"%s\", expected relu, sigmoid or tanh", i, a->u.strs[i] ? a->u.strs[i] : "");
            return false;
        }
    }
    return true;
}

/* Checks operand `slot` (when present) against [dirs?, a, b] (or [dirs?, a] without has_b). */
static bool expect(Graph *g, const Node *n, int slot, const RnnSpec *s, int dirs, Dim a, Dim b, bool has_b) {
    Dim want[3];
    int r = 0;
    if (s->sequence) want[r++] = dim_static(dirs);
    want[r++] = a;
    if (has_b) want[r++] = b;
    return slot < 0 || (infer_check_same_dtype(n, slot, 0) && infer_check_shape(g, n, slot, r, want));
}

static int infer_rnn(Graph *g, const Node *n, TensorDesc *out, int max_out) {
    static const char *const directions[] = {"forward", "backward", "both", NULL};
    const RnnSpec *s = rnn_spec(n->op);
    const Value *x = infer_in(n, 0);
    int direction = s->sequence ? infer_read_enum(n, "direction", directions) : 0;
    if (direction < 0 || infer_read_enum(n, "layout", s->layouts) < 0 || !check_activations(n, s->n_activations) ||
        !infer_check_dtype(n, 0, DTM_FLOAT) || !infer_check_rank(n, 0, s->sequence ? 3 : 2, s->sequence ? 3 : 2))
        return -1;
    int dirs = direction == 2 ? 2 : 1;
    int64_t hidden = node_int(n, "hiddenSize", 0);
    if (hidden < 1 || hidden * s->gates >= INFER_LIMIT) {
        diag_node_error(n, "hiddenSize %" PRId64 " is not valid", hidden);
        return -1;
    }
    Dim batch = x->shape[s->sequence ? 1 : 0], input_size = x->shape[s->sequence ? 2 : 1];
    Dim h = dim_static(hidden), gh = dim_static(hidden * s->gates);
    if (s->sequence) {
        int64_t steps = node_int(n, "steps", 0);
        if (!dim_equal(x->shape[0], dim_static(steps))) {
            char d[96];
            diag_node_error(n, "steps %" PRId64 " differs from the input's first dimension %s", steps,
                            dim_format(g, x->shape[0], d, sizeof d));
            return -1;
        }
    }
    if (!expect(g, n, 1, s, dirs, gh, input_size, true) || !expect(g, n, 2, s, dirs, gh, h, true) ||
        !expect(g, n, s->bias, s, dirs, gh, h, false) || !expect(g, n, s->recurrent_bias, s, dirs, gh, h, false) ||
        !expect(g, n, s->peephole, s, dirs, dim_static(hidden * 3), h, false))
        return -1;
    /* States: [numDirections, batch, hidden] for sequences, [batch, hidden] for cells. */
    TensorDesc state = {.dtype = x->dtype};
    if (s->sequence) state.shape[state.rank++] = dim_static(dirs);
    state.shape[state.rank++] = batch;
    state.shape[state.rank++] = h;
    for (int i = 0; i < 2; i++)
        if (s->state[i] >= 0 && (!infer_check_same_dtype(n, s->state[i], 0) ||
                                 !infer_check_shape(g, n, s->state[i], state.rank, state.shape)))
            return -1;
    bool seq_out = s->sequence && node_bool(n, "returnSequence", false);
    int count = s->n_states + seq_out;
    if (count > max_out) {
        diag_node_error(n, "%d outputs, more than the supported %d", count, max_out);
        return -1;
    }
    for (int i = 0; i < s->n_states; i++) out[i] = state;
    if (seq_out) {
        TensorDesc *d = &out[s->n_states];
        *d = state;
        d->rank = 4;
        d->shape[0] = x->shape[0];
        d->shape[1] = dim_static(dirs);
        d->shape[2] = batch;
        d->shape[3] = h;
    }
    return count;
}

const InferRule infer_rnn_rules[OP_COUNT] = {
    [OP_GRU] = {infer_rnn},
    [OP_GRU_CELL] = {infer_rnn},
    [OP_LSTM] = {infer_rnn},
    [OP_LSTM_CELL] = {infer_rnn},
};
