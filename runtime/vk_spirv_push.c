/* vk_spirv_push.c - turns a shader's parameter uniform block into a push-constant block
 * (vk_spirv_push.h), instruction by instruction (vk_spirv.h).  The block's variable is the one
 * decorated Binding `binding` in DescriptorSet 0; its pointer type, and those of the access chains
 * into it, are the module's only pointer types of the Uniform storage class (the kernels' other
 * buffers are StorageBuffer), so every one of them changes class.  The bytes the block spans are
 * its members' highest Offset decoration plus that member's size (scalars, vectors, arrays). */
#include "vk_spirv_push.h"

#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "vk_spirv.h"

enum {
    SPV_OP_TYPE_VOID = 19,
    SPV_OP_TYPE_INT = 21,
    SPV_OP_TYPE_FLOAT = 22,
    SPV_OP_TYPE_VECTOR = 23,
    SPV_OP_TYPE_ARRAY = 28,
    SPV_OP_TYPE_STRUCT = 30,
    SPV_OP_TYPE_POINTER = 32,
    SPV_OP_TYPE_FORWARD_POINTER = 39,
    SPV_OP_CONSTANT = 43,
    SPV_OP_VARIABLE = 59,
    SPV_OP_DECORATE = 71,
    SPV_OP_MEMBER_DECORATE = 72,
    SPV_DEC_OFFSET = 35,
    SPV_DEC_ARRAY_STRIDE = 6,
    SPV_DEC_BINDING = 33,
    SPV_DEC_DESCRIPTOR_SET = 34,
    SPV_SC_UNIFORM = 2,
    SPV_SC_PUSH_CONSTANT = 9,
};

/* Whether instruction `in` is OpDecorate <id> `dec` `value` (a decoration with one literal). */
static bool decoration(const uint32_t *in, uint32_t dec, uint32_t value) {
    return in[0] == (4u << 16 | SPV_OP_DECORATE) && in[2] == dec && in[3] == value;
}

/* Whether instruction `in` gives `id` its descriptor set or binding. */
static bool binding_decoration(const uint32_t *in, uint32_t id) {
    return in[0] == (4u << 16 | SPV_OP_DECORATE) && in[1] == id && (in[2] == SPV_DEC_BINDING || in[2] == SPV_DEC_DESCRIPTOR_SET);
}

/* The variable of the uniform block at descriptor set 0, binding `binding` (0: none) in *var, after
 * checking the module's instructions; -1 with a diagnostic (vk_spirv_params_push's cases). */
static int params_var(const uint32_t *code, size_t bytes, uint32_t binding, uint32_t *var) {
    size_t n = vk_spirv_words(code, bytes);
    *var = 0;
    if (!n) return -1;
    uint32_t uniform_vars = 0;
    for (size_t i = SPV_HEADER_WORDS; i < n;) {
        uint32_t len = code[i] >> 16, op = code[i] & 0xffff;
        if (op == SPV_OP_VARIABLE && len >= 4 && code[i + 3] == SPV_SC_PUSH_CONSTANT) {
            diag_error("internal: shader module already has a push-constant block");
            return -1;
        }
        if (op == SPV_OP_VARIABLE && len >= 4 && code[i + 3] == SPV_SC_UNIFORM) uniform_vars++;
        i += len;
    }
    uint32_t bound = 0;
    for (size_t i = SPV_HEADER_WORDS; i < n; i += code[i] >> 16)
        if (decoration(code + i, SPV_DEC_BINDING, binding)) bound = code[i + 1];
    for (size_t i = SPV_HEADER_WORDS; bound && i < n; i += code[i] >> 16)
        if (decoration(code + i, SPV_DEC_DESCRIPTOR_SET, 0) && code[i + 1] == bound) *var = bound;
    if (*var && uniform_vars != 1) {
        diag_error("internal: shader module has %u uniform variables; its parameter block must be the only one", uniform_vars);
        return -1;
    }
    return 0;
}

/* The instruction that declares type `id` (OpTypeVoid .. OpTypeForwardPointer: result id in word 1),
 * or, `var`, variable `id` (OpVariable: in word 2); NULL where there is none. */
static const uint32_t *defining(const uint32_t *code, size_t n, uint32_t id, bool var) {
    for (size_t i = SPV_HEADER_WORDS; i < n; i += code[i] >> 16) {
        uint32_t len = code[i] >> 16, op = code[i] & 0xffff;
        if (var ? op == SPV_OP_VARIABLE && len >= 4 && code[i + 2] == id
                : op >= SPV_OP_TYPE_VOID && op <= SPV_OP_TYPE_FORWARD_POINTER && len >= 2 && code[i + 1] == id)
            return code + i;
    }
    return NULL;
}

/* The 32-bit value of constant `id` (OpConstant), or 0. */
static uint32_t constant_value(const uint32_t *code, size_t n, uint32_t id) {
    for (size_t i = SPV_HEADER_WORDS; i < n; i += code[i] >> 16)
        if (code[i] == (4u << 16 | SPV_OP_CONSTANT) && code[i + 2] == id) return code[i + 3];
    return 0;
}

/* Bytes of a scalar, a vector or an array (its ArrayStride x its length) in a block (0: another type). */
static uint32_t type_bytes(const uint32_t *code, size_t n, uint32_t type) {
    const uint32_t *t = defining(code, n, type, false);
    if (!t) return 0;
    uint32_t op = t[0] & 0xffff;
    if (op == SPV_OP_TYPE_INT || op == SPV_OP_TYPE_FLOAT) return t[2] / 8;
    if (op == SPV_OP_TYPE_VECTOR) return type_bytes(code, n, t[2]) * t[3];
    if (op == SPV_OP_TYPE_ARRAY)
        for (size_t i = SPV_HEADER_WORDS; i < n; i += code[i] >> 16)
            if (code[i] == (4u << 16 | SPV_OP_DECORATE) && code[i + 1] == type && code[i + 2] == SPV_DEC_ARRAY_STRIDE)
                return code[i + 3] * constant_value(code, n, t[3]);
    return 0;
}

uint32_t vk_spirv_params_extent(const uint32_t *code, size_t bytes, uint32_t binding) {
    uint32_t var, end = 0;
    size_t n = bytes / 4;
    if (params_var(code, bytes, binding, &var) < 0) return UINT32_MAX;
    if (!var) return 0;
    const uint32_t *v = defining(code, n, var, true), *ptr = v ? defining(code, n, v[1], false) : NULL;
    const uint32_t *st = ptr && (ptr[0] & 0xffff) == SPV_OP_TYPE_POINTER ? defining(code, n, ptr[3], false) : NULL;
    if (!st || (st[0] & 0xffff) != SPV_OP_TYPE_STRUCT) return UINT32_MAX;
    for (size_t i = SPV_HEADER_WORDS; i < n; i += code[i] >> 16) {
        const uint32_t *in = code + i;
        if (in[0] != (5u << 16 | SPV_OP_MEMBER_DECORATE) || in[1] != st[1] || in[3] != SPV_DEC_OFFSET) continue;
        uint32_t member = in[2], size = member + 2 < (st[0] >> 16) ? type_bytes(code, n, st[2 + member]) : 0;
        if (!size) return UINT32_MAX;
        if (in[4] + size > end) end = in[4] + size;
    }
    return end;
}

uint32_t *vk_spirv_params_push(const uint32_t *code, size_t bytes, uint32_t binding, size_t *out_bytes) {
    size_t n = bytes / 4;
    uint32_t var;
    if (params_var(code, bytes, binding, &var) < 0) return NULL;
    uint32_t *out = malloc(bytes);
    if (!out) {
        diag_error("out of memory");
        return NULL;
    }
    size_t o = SPV_HEADER_WORDS;
    memcpy(out, code, SPV_HEADER_WORDS * 4);
    for (size_t i = SPV_HEADER_WORDS; i < n;) {
        uint32_t len = code[i] >> 16, op = code[i] & 0xffff;
        if (var && binding_decoration(code + i, var)) {
            i += len;
            continue;
        }
        memcpy(out + o, code + i, (size_t)len * 4);
        if (var && op == SPV_OP_TYPE_POINTER && len == 4 && out[o + 2] == SPV_SC_UNIFORM) out[o + 2] = SPV_SC_PUSH_CONSTANT;
        if (var && op == SPV_OP_VARIABLE && len >= 4 && out[o + 2] == var) out[o + 3] = SPV_SC_PUSH_CONSTANT;
        o += len;
        i += len;
    }
    *out_bytes = o * 4;
    return out;
}
