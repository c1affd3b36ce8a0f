/* vk_spirv.h - what the SPIR-V patches made at pipeline creation share (vk_spirv_rte.c,
 * vk_spirv_push.c): the module's framing and the check that every instruction lies inside it.  A
 * module is a 5-word header (magic, version, generator, bound, schema) and then instructions, each
 * led by a word holding its length in words (high half) and its opcode (low half). */
#ifndef WEBNNC_VK_SPIRV_H
#define WEBNNC_VK_SPIRV_H

#include <stddef.h>
#include <stdint.h>

#include "core.h"

enum { SPV_MAGIC = 0x07230203, SPV_HEADER_WORDS = 5 };

/* The words of module `code` (`bytes` long) where it is SPIR-V whose instructions each have a length
 * and end inside it; else 0 with a diagnostic ("not SPIR-V", "malformed SPIR-V instruction"). */
static inline size_t vk_spirv_words(const uint32_t *code, size_t bytes) {
    size_t n = bytes / 4;
    if (bytes % 4 || n < SPV_HEADER_WORDS || code[0] != SPV_MAGIC) {
        diag_error("internal: shader module is not SPIR-V (%zu bytes)", bytes);
        return 0;
    }
    for (size_t i = SPV_HEADER_WORDS; i < n; i += code[i] >> 16) {
        uint32_t len = code[i] >> 16;
        if (len == 0 || len > n - i) {
            diag_error("internal: malformed SPIR-V instruction at word %zu", i);
            return 0;
        }
    }
    return n;
}

#endif
