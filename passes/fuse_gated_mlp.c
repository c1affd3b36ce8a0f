/* fuse_gated_mlp.c - pass fuse_gated_mlp: recovers gatedMlp (ORT's MatMulNBitsMlp without the down
 * projection, docs/extension-ops.md) from an RMSNorm whose output is read only by two projections
 * (fuse_norm_proj.h), gate and up, with mul(act(gate), up) (either operand order) as the only
 * reader of both: the weights are packed [gate | up] along n.  act is silu (fuse_silu runs
 * before), the spec gelu or the tanh GELU chain (fuse_gate_act.h), which becomes the `activation`
 * option (omitted for silu); a skipRmsNorm whose sum is used later gives outputSum.  Different n,
 * another activation or a projection result used elsewhere do not fuse. */
#include "fuse_gate_act.h"
#include "fuse_norm_proj.h"
#include "pass.h"

static int match(FuseMap *fm, Node *norm) {
    NormProj np;
    if ((norm->op != OP_RMS_NORM && norm->op != OP_SKIP_RMS_NORM) || !pass_np_read(fm, norm, &np) || np.count != 2 ||
        np.n[0] != np.n[1])
        return 0;
    for (int gate = 0; gate < 2; gate++) {
        FuseMatch m = {0};
        GateActivation act;
        Node *mul = pass_gate_product(fm, np.y[gate], np.y[1 - gate], &act, &m);
        if (!mul || !pass_fm_same_shape(mul->outputs[0], np.y[gate])) continue;
        int order[2] = {gate, 1 - gate};
        pass_fm_add(&m, mul);
        Value *exits[2] = {mul->outputs[0], NULL};
        Node *f = pass_np_emit(fm, &np, OP_GATED_MLP, order, 2, &m, &exits[1]);
        if (f && act != GATE_SILU) node_set_string(fm->g, f, "activation", gate_activation_names[act]);
        int n_exits = exits[1] ? 2 : 1;
        if (!pass_fm_interior_ok(fm, &m, exits, n_exits)) return 0;
        return pass_fm_insert_commit(fm, &m, f, exits, n_exits);
    }
    return 0;
}

int pass_fuse_gated_mlp(Graph *g, const PassOptions *opt) {
    (void)opt;
    return fuse_each(g, -1, match) < 0 ? -1 : 0;
}
