/* fuzz_limits.c - libFuzzer harness for WebNN implementation limits files (wn_impl_limits_read):
 * an accepted file must be self-consistent (rank ranges in order, every operand entry named) and
 * answer lookups.  Seeds: ../shared/webnn-limits and a small hand-made file (make_seeds.py). */
#include <stdlib.h>

#include "core.h"
#include "fuzz_util.h"
#include "impl_limits.h"

static void check_support(const OperandSupport *s) {
    if (s->rank_min < 0 || s->rank_min > s->rank_max || s->rank_max > WN_RANK_ANY) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *path = fuzz_write("limits.json", data, size);
    diag_clear();
    ImplLimits *l = wn_impl_limits_read(path);
    if (!l) {
        fuzz_require_diag();
        return 0;
    }
    check_support(&l->input);
    check_support(&l->constant);
    check_support(&l->output);
    for (int i = 0; i < l->n_operands; i++) {
        const OperandLimit *e = &l->operands[i];
        if (!e->op || !e->operand) abort();
        check_support(&e->s);
        if (wn_impl_limits_find(l, e->op, e->operand) == NULL) abort();
        wn_operand_supports(&e->s, DT_F32, 2);
    }
    wn_impl_limits_free(l);
    return 0;
}
