/* test_rt_spirv.c - the float16 round-to-nearest-even patch of shader modules (runtime/vk_spirv_rte.c):
 * every shader of the table gets OpCapability RoundingModeRTE right after the header and
 * OpExecutionMode <its entry point> RoundingModeRTE 16 right after its OpEntryPoint, every other
 * word unchanged and in order; a module that already has the capability is copied; not SPIR-V, a
 * version before 1.4, a truncated instruction and two entry points are errors.  (Pipelines made from
 * the patched modules run in every runtime test: lavapipe has shaderRoundingModeRTEFloat16.) */
#include <stdlib.h>
#include <string.h>

#include "rt_test_util.h"
#include "vk_spirv_rte.h"
#include "vk_pipeline.h"

enum { OP_EXECUTION_MODE = 16, OP_CAPABILITY = 17, OP_ENTRY_POINT = 15, CAP_RTE = 4467, MODE_RTE = 4462 };

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

int main(void) {
    Suite *s = suite_create("runtime-spirv");
    TCase *tc = tcase_create("spirv");
    tcase_add_test(tc, every_shader_patched);
    tcase_add_test(tc, bad_modules);
    suite_add_tcase(s, tc);
    return rt_main(s);
}
