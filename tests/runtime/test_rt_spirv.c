/* test_rt_spirv.c - the patches of shader modules made at pipeline creation:
 * - float16 round-to-nearest-even (runtime/vk_spirv_rte.c): every shader of the table gets
 *   OpCapability RoundingModeRTE right after the header and OpExecutionMode <its entry point>
 *   RoundingModeRTE 16 right after its OpEntryPoint, every other word unchanged and in order; a module
 *   that already has the capability is copied; not SPIR-V, a version before 1.4, a truncated
 *   instruction and two entry points are errors.  (Pipelines made from the patched modules run in
 *   every runtime test: lavapipe has shaderRoundingModeRTEFloat16.)
 * - the parameter block as push constants (runtime/vk_spirv_push.c): in every shader of the table
 *   that has the block, its variable and the Uniform pointer types become PushConstant and its two
 *   binding decorations go, every other word unchanged; the block spans what its C parameter struct
 *   spans at most (K_PUSH_MAX) and at least one word, the extents of two blocks are the ones their
 *   declarations give; patching twice, a second uniform block and a truncated module are errors.  (The device loop's tests run the patched pipelines:
 *   tests/e2e/generate_replay.py.) */
#include <stdlib.h>
#include <string.h>

#include "rt_test_util.h"
#include "kernel.h"
#include "vk_pipeline.h"
#include "vk_spirv_push.h"
#include "vk_spirv_rte.h"

enum { OP_EXECUTION_MODE = 16, OP_CAPABILITY = 17, OP_ENTRY_POINT = 15, CAP_RTE = 4467, MODE_RTE = 4462 };
enum { OP_TYPE_POINTER = 32, OP_VARIABLE = 59, OP_DECORATE = 71, DEC_BINDING = 33, DEC_SET = 34, SC_UNIFORM = 2, SC_PUSH = 9 };

/* Word index just past the module's OpEntryPoint and its id (the module is well formed). */
static size_t entry_end(const uint32_t *w, size_t n, uint32_t *id) {
    for (size_t i = 5; i < n; i += w[i] >> 16)
        if ((w[i] & 0xffff) == OP_ENTRY_POINT) {
            *id = w[i + 2];
            return i + (w[i] >> 16);
        }
    return 0;
}

START_TEST(every_shader_patched) {
    ck_assert_int_gt(vk_shader_count(), 50);
    for (int s = 0; s < vk_shader_count(); s++) {
        const ShaderInfo *si = vk_shader_get(s);
        size_t bytes = 0, n = si->size / 4;
        uint32_t *p = vk_spirv_with_rte16(si->code, si->size, &bytes);
        ck_assert_msg(p != NULL, "shader %s: %s", si->name, diag_message());
        ck_assert_uint_eq(bytes, si->size + 6 * 4);
        uint32_t id = 0;
        size_t e = entry_end(si->code, n, &id);
        ck_assert_msg(e > 0, "shader %s: no entry point", si->name);
        ck_assert(memcmp(p, si->code, 5 * 4) == 0);
        ck_assert_uint_eq(p[5], 2u << 16 | OP_CAPABILITY);
        ck_assert_uint_eq(p[6], CAP_RTE);
        ck_assert(memcmp(p + 7, si->code + 5, (e - 5) * 4) == 0);
        uint32_t mode[4] = {4u << 16 | OP_EXECUTION_MODE, id, MODE_RTE, 16};
        ck_assert_msg(memcmp(p + e + 2, mode, sizeof mode) == 0, "shader %s: execution mode", si->name);
        ck_assert(memcmp(p + e + 6, si->code + e, (n - e) * 4) == 0);
        /* patched twice: the capability is there, so the module is copied as it is */
        size_t again = 0;
        uint32_t *q = vk_spirv_with_rte16(p, bytes, &again);
        ck_assert(q != NULL && again == bytes && memcmp(p, q, bytes) == 0);
        free(q);
        free(p);
    }
}
END_TEST

START_TEST(bad_modules) {
    const ShaderInfo *si = vk_shader_get(0);
    size_t n = si->size / 4, bytes;
    uint32_t *w = malloc(2 * si->size);
    ck_assert(w != NULL);

    memcpy(w, si->code, si->size);
    w[0] = 0x12345678;
    diag_clear();
    ck_assert(vk_spirv_with_rte16(w, si->size, &bytes) == NULL);
    ck_assert_msg(strstr(diag_message(), "not SPIR-V") != NULL, "%s", diag_message());

    ck_assert(vk_spirv_with_rte16(si->code, si->size - 2, &bytes) == NULL); /* not whole words */
    ck_assert(vk_spirv_with_rte16(si->code, 12, &bytes) == NULL);           /* shorter than the header */

    memcpy(w, si->code, si->size);
    w[1] = 0x00010300;
    diag_clear();
    ck_assert(vk_spirv_with_rte16(w, si->size, &bytes) == NULL);
    ck_assert_msg(strstr(diag_message(), "SPIR-V 1.3") != NULL, "%s", diag_message());

    /* the last instruction claims more words than the module has */
    memcpy(w, si->code, si->size);
    size_t last = 5;
    for (size_t i = 5; i < n; i += w[i] >> 16) last = i;
    w[last] = (uint32_t)(n - last + 1) << 16 | (w[last] & 0xffff);
    diag_clear();
    ck_assert(vk_spirv_with_rte16(w, si->size, &bytes) == NULL);
    ck_assert_msg(strstr(diag_message(), "malformed") != NULL, "%s", diag_message());

    /* a second OpEntryPoint (the first one repeated at the end) */
    memcpy(w, si->code, si->size);
    uint32_t id;
    size_t e = entry_end(w, n, &id), len = 0;
    for (size_t i = 5; i < n; i += w[i] >> 16)
        if ((w[i] & 0xffff) == OP_ENTRY_POINT) len = w[i] >> 16;
    ck_assert(len > 0 && len <= n);
    memcpy(w + n, w + e - len, len * 4);
    diag_clear();
    ck_assert(vk_spirv_with_rte16(w, (n + len) * 4, &bytes) == NULL);
    ck_assert_msg(strstr(diag_message(), "2 entry points") != NULL, "%s", diag_message());
    free(w);
}
END_TEST

/* Counts in module w (n words): variables and pointer types of storage class sc, and decorations
 * Binding K_PARAMS_BINDING. */
static void count_classes(const uint32_t *w, size_t n, uint32_t sc, int *vars, int *ptrs, int *param_bindings) {
    *vars = *ptrs = *param_bindings = 0;
    for (size_t i = 5; i < n; i += w[i] >> 16) {
        uint32_t len = w[i] >> 16, op = w[i] & 0xffff;
        if (op == OP_VARIABLE && len >= 4 && w[i + 3] == sc) (*vars)++;
        if (op == OP_TYPE_POINTER && len == 4 && w[i + 2] == sc) (*ptrs)++;
        if (op == OP_DECORATE && len == 4 && w[i + 2] == DEC_BINDING && w[i + 3] == K_PARAMS_BINDING) (*param_bindings)++;
    }
}

START_TEST(every_shader_params_pushed) {
    int with_block = 0;
    for (int s = 0; s < vk_shader_count(); s++) {
        const ShaderInfo *si = vk_shader_get(s);
        size_t bytes = 0, n = si->size / 4;
        int uvars, uptrs, ubind;
        count_classes(si->code, n, SC_UNIFORM, &uvars, &uptrs, &ubind);
        uint32_t extent = vk_spirv_params_extent(si->code, si->size, K_PARAMS_BINDING);
        ck_assert_msg(uvars == ubind && uvars <= 1, "shader %s: %d uniform variables", si->name, uvars);
        ck_assert_msg(uvars ? extent >= 4 && extent <= K_PUSH_MAX && extent % 4 == 0 : extent == 0,
                      "shader %s: its parameter block spans %u bytes", si->name, extent);
        uint32_t *p = vk_spirv_params_push(si->code, si->size, K_PARAMS_BINDING, &bytes);
        ck_assert_msg(p != NULL, "shader %s: %s", si->name, diag_message());
        int pvars, pptrs, pbind, left, left_ptrs, left_bind;
        count_classes(p, bytes / 4, SC_PUSH, &pvars, &pptrs, &pbind);
        count_classes(p, bytes / 4, SC_UNIFORM, &left, &left_ptrs, &left_bind);
        ck_assert_msg(pvars == uvars && pptrs == uptrs && left == 0 && left_ptrs == 0 && pbind == 0,
                      "shader %s: %d / %d push-constant variables / pointers for %d / %d uniform ones, %d left", si->name,
                      pvars, pptrs, uvars, uptrs, left + left_ptrs);
        /* two decorations (Binding, DescriptorSet: 4 words each) fewer; the rest word for word except
         * the storage classes */
        ck_assert_uint_eq(bytes, si->size - (uvars ? 32 : 0));
        uint32_t var = 0; /* the block's variable: the one bound at K_PARAMS_BINDING */
        for (size_t i = 5; i < n; i += si->code[i] >> 16)
            if (si->code[i] == (4u << 16 | OP_DECORATE) && si->code[i + 2] == DEC_BINDING && si->code[i + 3] == K_PARAMS_BINDING)
                var = si->code[i + 1];
        size_t i = 5, o = 5, changed = 0;
        while (i < n) {
            uint32_t len = si->code[i] >> 16;
            bool dropped = var && si->code[i] == (4u << 16 | OP_DECORATE) && si->code[i + 1] == var &&
                           (si->code[i + 2] == DEC_BINDING || si->code[i + 2] == DEC_SET);
            if (!dropped) {
                for (uint32_t k = 0; k < len; k++) changed += p[o + k] != si->code[i + k];
                o += len;
            }
            i += len;
        }
        ck_assert_msg(o == bytes / 4 && changed == (size_t)(uvars + uptrs), "shader %s: %zu words changed", si->name, changed);
        /* a module whose block is already push constants is refused */
        size_t again = 0;
        diag_clear();
        ck_assert(!uvars || vk_spirv_params_push(p, bytes, K_PARAMS_BINDING, &again) == NULL);
        free(p);
        with_block += uvars;
    }
    ck_assert_int_gt(with_block, 50);
}
END_TEST

START_TEST(bad_modules_for_push) {
    int s = vk_shader_lookup("matvec_rows", DT_F16, DT_F16);
    ck_assert_int_ge(s, 0);
    const ShaderInfo *si = vk_shader_get(s);
    size_t n = si->size / 4, bytes;
    /* 112 bytes: the block of matvec_rows.glsl without the pick's fields (runtime/k_matvec.c MatvecRowsPush) */
    ck_assert_uint_eq(vk_spirv_params_extent(si->code, si->size, K_PARAMS_BINDING), 112);
    ck_assert_uint_eq(vk_spirv_params_extent(si->code, si->size, 99), 0); /* no block at that binding */
    /* decode attention: 124 bytes without the o_proj fold's fields (within every device's 128 bytes of
     * push constants), 156 with them (gqa_dec_fused.glsl) */
    const ShaderInfo *dec = vk_shader_get(vk_shader_lookup("ext_gqa_dec_fused", DT_F16, DT_F16));
    const ShaderInfo *fold = vk_shader_get(vk_shader_lookup("ext_gqa_dec_oproj", DT_F16, DT_F16));
    ck_assert(dec != NULL && fold != NULL);
    ck_assert_uint_eq(vk_spirv_params_extent(dec->code, dec->size, K_PARAMS_BINDING), 124);
    ck_assert_uint_eq(vk_spirv_params_extent(fold->code, fold->size, K_PARAMS_BINDING), 156);
    uint32_t *w = malloc(si->size);
    ck_assert(w != NULL);
    memcpy(w, si->code, si->size);
    size_t last = 5;
    for (size_t i = 5; i < n; i += w[i] >> 16) last = i;
    w[last] = (uint32_t)(n - last + 1) << 16 | (w[last] & 0xffff);
    diag_clear();
    ck_assert(vk_spirv_params_push(w, si->size, K_PARAMS_BINDING, &bytes) == NULL);
    ck_assert_msg(strstr(diag_message(), "malformed") != NULL, "%s", diag_message());
    ck_assert_uint_eq(vk_spirv_params_extent(w, si->size, K_PARAMS_BINDING), UINT32_MAX);
    /* a storage buffer turned into a second uniform variable */
    memcpy(w, si->code, si->size);
    for (size_t i = 5; i < n; i += w[i] >> 16)
        if ((w[i] & 0xffff) == OP_VARIABLE && (w[i] >> 16) >= 4 && w[i + 3] == 12 /* StorageBuffer */) {
            w[i + 3] = SC_UNIFORM;
            break;
        }
    diag_clear();
    ck_assert(vk_spirv_params_push(w, si->size, K_PARAMS_BINDING, &bytes) == NULL);
    ck_assert_msg(strstr(diag_message(), "2 uniform variables") != NULL, "%s", diag_message());
    ck_assert(vk_spirv_params_push(si->code, 12, K_PARAMS_BINDING, &bytes) == NULL); /* shorter than the header */
    free(w);
}
END_TEST

int main(void) {
    Suite *s = suite_create("runtime-spirv");
    TCase *tc = tcase_create("spirv");
    tcase_add_test(tc, every_shader_patched);
    tcase_add_test(tc, bad_modules);
    tcase_add_test(tc, every_shader_params_pushed);
    tcase_add_test(tc, bad_modules_for_push);
    suite_add_tcase(s, tc);
    return rt_main(s);
}
