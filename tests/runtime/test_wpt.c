/* test_wpt.c - runs every WebNN WPT conformance case (../shared/wpt-webnn (*.json files)) on the
 * Vulkan runtime (lavapipe when there is no GPU) with one runtime context for all cases: load the
 * case graph, bind its inputs, run, read every output and compare it with wpt_compare (WPT's
 * tolerances).  The shared driver (tests/common/wpt_suite.c) restores the clamp cases whose
 * Infinity/NaN the corpus lost, prints per-file pass counts and each failure with its reason, and
 * fails on any failure (the runtime has no expected failures). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "webnnc_runtime.h"
#include "wpt_suite.h"

static WnrtContext *ctx;

static const char *run_case(WptCase *c, char *why, size_t len) {
    WnrtModel *m = wnrt_load(ctx, c->g);
    if (!m) return diag_message();
    const char *reason = NULL;
    for (int i = 0; i < c->n_inputs && !reason; i++) {
        const Value *v = c->inputs[i].value;
        int64_t shape[WN_MAX_RANK];
        for (int d = 0; d < v->rank; d++) shape[d] = v->shape[d].v;
        if (wnrt_bind_input(m, v->name, c->inputs[i].data, c->inputs[i].nbytes, v->rank, shape) < 0)
            reason = diag_message();
    }
    if (!reason && wnrt_run(m) < 0) reason = diag_message();
    for (int k = 0; k < c->n_outputs && !reason; k++) {
        WnrtTensorInfo info;
        if (wnrt_output_info(m, k, &info) < 0) {
            reason = diag_message();
            break;
        }
        void *buf = malloc(info.nbytes ? info.nbytes : 1);
        if (!buf) {
            reason = "out of memory";
            break;
        }
        if (wnrt_read_output(m, k, buf, info.nbytes) < 0) {
            reason = diag_message();
        } else {
            int ok = wpt_compare(c, k, buf, why, len);
            if (ok != 1) reason = ok < 0 ? "bad output index" : why;
        }
        free(buf);
    }
    if (reason && reason != why) { /* keep the message: wnrt_free may clear nothing, but copy anyway */
        snprintf(why, len, "%s", reason);
        reason = why;
    }
    wnrt_free(m);
    return reason;
}

int main(void) {
    diag_clear();
    ctx = wnrt_create(-1);
    if (!ctx) {
        fprintf(stderr, "test_wpt: no Vulkan device: %s\n", diag_message());
        return 1; /* a missing device is a failure, never a skip */
    }
    int rc = wpt_suite_main("runtime_wpt", run_case, NULL, 0);
    wnrt_destroy(ctx);
    return rc;
}
