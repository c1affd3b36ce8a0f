/* pipeline.c - the pass registry (expanded from passes.def) and the pass runner: runs passes by
 * name in order, optionally reporting node counts, and in debug builds (WEBNNC_VERIFY_EACH_PASS)
 * verifies the IR after every pass. */
#include <stdio.h>
#include <string.h>

#include "core.h"
#include "pass.h"

#define PASS(NAME, FN, SUMMARY) int FN(Graph *g, const PassOptions *opt);
#include "passes.def"
#undef PASS

static const Pass passes[] = {
#define PASS(NAME, FN, SUMMARY) {#NAME, FN, SUMMARY},
#include "passes.def"
#undef PASS
};

const Pass *pass_find(const char *name) {
    if (!name) return NULL;
    for (size_t i = 0; i < sizeof passes / sizeof *passes; i++)
        if (strcmp(passes[i].name, name) == 0) return &passes[i];
    return NULL;
}

int pass_run_list(Graph *g, const char *const *names, int count, const PassOptions *opt) {
    static const PassOptions defaults = {0};
    if (!opt) opt = &defaults;
    for (int i = 0; i < count; i++) {
        const Pass *p = pass_find(names[i]);
        if (!p) {
            diag_error("unknown pass '%s'", names[i] ? names[i] : "(null)");
            return -1;
        }
        int before = graph_node_count(g);
        if (p->run(g, opt) < 0) return -1;
        if (opt->verbose) fprintf(stderr, "webnnc: pass %-16s %d -> %d nodes\n", p->name, before, graph_node_count(g));
#ifdef WEBNNC_VERIFY_EACH_PASS
        if (graph_verify(g, 0) < 0) return -1;
#endif
    }
    return 0;
}
