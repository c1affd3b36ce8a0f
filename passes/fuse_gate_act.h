/* fuse_gate_act.h - recognizing the activated gate of a gated MLP, act(gate) * up, for
 * fuse_gated_mlp.c (which fuses it into gatedMlp with that `activation`) and fuse_qkv.c (which
 * leaves such projection pairs alone).  The activations: the silu extension op (fuse_silu runs
 * first), the spec gelu (erf), and the tanh GELU 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) in
 * the importer's form (Gelu approximate="tanh") and torch's (x*x*x or pow(x, 3), the 0.5 applied to
 * x or to the product, constants on either side, within GATE_CONST_TOL). */
#ifndef WEBNNC_FUSE_GATE_ACT_H
#define WEBNNC_FUSE_GATE_ACT_H

#include "fuse_match.h"
#include "core.h"

#define GATE_CONST_TOL 1e-3 /* relative; float16 rounds 0.044715 by 1.5e-4 */

/* When mul(act(gate), up) (either operand order) is the only reader of `up` and act one of the
 * activations above applied to `gate`: returns the mul, sets *act and adds the activation's nodes
 * (not the mul) to m.  Else NULL.  Whether the interior has other readers is left to the caller
 * (pass_fm_interior_ok). */
Node *pass_gate_product(FuseMap *fm, Value *gate, Value *up, GateActivation *act, FuseMatch *m);

#endif
