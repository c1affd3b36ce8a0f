/* legalize_limits.c - pass legalize_limits: makes a spec-op graph fit the WebNN implementation given
 * by PassOptions.limits (`convert --limits`, default the built-in Chromium 153 CPU limits):
 * 4-bit types it lacks (legalize_4bit.c), scatters with computed indices it refuses
 * (legalize_scatter.c), int64 where it takes only int32 (legalize_int64.c), element-wise ops above
 * its ranks (legalize_rank.c); then every node, input, constant and output is checked against the limits
 * (limits_check.c), so what cannot be legalized stops the conversion with one line naming the node,
 * the operand and the limit. */
#include "legalize.h"
#include "webnn.h"
#include "pass.h"

int pass_legalize_limits(Graph *g, const PassOptions *opt) {
    const ImplLimits *l = opt->limits;
    if (!l) return 0;
    if (pass_legalize_4bit(g, l) < 0 || pass_legalize_scatter(g, l) < 0 || pass_legalize_int64(g, l) < 0 ||
        pass_legalize_rank(g, l) < 0)
        return -1;
    return wn_limits_check_graph(g, l);
}
