/* vk_spirv_rte.c - adds the float16 round-to-nearest-even execution mode to a compute shader's SPIR-V
 * (vk_spirv_rte.h).  A module's instructions (vk_spirv.h) come in the order the SPIR-V logical
 * layout fixes: capabilities first, ..., entry points, then execution modes.  The capability goes
 * first after the header and the execution mode right after the entry point. */
#include "vk_spirv_rte.h"

#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "vk_spirv.h"

enum {
    SPV_OP_EXECUTION_MODE = 16,
    SPV_OP_CAPABILITY = 17,
    SPV_OP_ENTRY_POINT = 15,
    SPV_CAP_ROUNDING_MODE_RTE = 4467,
    SPV_MODE_ROUNDING_MODE_RTE = 4462,
    SPV_VERSION_1_4 = 0x00010400,
};

uint32_t *vk_spirv_with_rte16(const uint32_t *code, size_t bytes, size_t *out_bytes) {
    size_t n = vk_spirv_words(code, bytes);
    if (!n) return NULL;
    if (code[1] < SPV_VERSION_1_4) {
        diag_error("internal: shader module is SPIR-V %u.%u: float16 rounding needs 1.4 or later", (code[1] >> 16) & 0xff,
                   (code[1] >> 8) & 0xff);
        return NULL;
    }
    size_t entry_end = 0, entries = 0;
    uint32_t entry_id = 0;
    bool has_cap = false;
    for (size_t i = SPV_HEADER_WORDS; i < n;) {
        uint32_t len = code[i] >> 16, op = code[i] & 0xffff;
        if (op == SPV_OP_CAPABILITY && len == 2 && code[i + 1] == SPV_CAP_ROUNDING_MODE_RTE) has_cap = true;
        if (op == SPV_OP_ENTRY_POINT && len >= 3) {
            entries++;
            entry_id = code[i + 2];
            entry_end = i + len;
        }
        i += len;
    }
    if (entries != 1) {
        diag_error("internal: shader module has %zu entry points, expected 1", entries);
        return NULL;
    }
    size_t add = has_cap ? 0 : 2 + 4, out_n = n + add;
    uint32_t *out = malloc(out_n * 4);
    if (!out) {
        diag_error("out of memory");
        return NULL;
    }
    if (has_cap) {
        memcpy(out, code, bytes);
    } else {
        uint32_t cap[2] = {2u << 16 | SPV_OP_CAPABILITY, SPV_CAP_ROUNDING_MODE_RTE};
        uint32_t mode[4] = {4u << 16 | SPV_OP_EXECUTION_MODE, entry_id, SPV_MODE_ROUNDING_MODE_RTE, 16};
        uint32_t *o = out;
        memcpy(o, code, SPV_HEADER_WORDS * 4), o += SPV_HEADER_WORDS;
        memcpy(o, cap, sizeof cap), o += 2;
        memcpy(o, code + SPV_HEADER_WORDS, (entry_end - SPV_HEADER_WORDS) * 4), o += entry_end - SPV_HEADER_WORDS;
        memcpy(o, mode, sizeof mode), o += 4;
        memcpy(o, code + entry_end, (n - entry_end) * 4);
    }
    *out_bytes = out_n * 4;
    return out;
}
