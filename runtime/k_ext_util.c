/* k_ext_util.c - helpers shared by the extension-op kernel families (k_ext_util.h). */
#include "k_ext_util.h"

int ext_float(const Node *n, const Value *v) {
    if (!v) {
        diag_node_error(n, "missing operand");
        return -1;
    }
    return v->dtype == DT_F32 || v->dtype == DT_F16 ? 0 : kx_no_kernel(n, v->dtype);
}

int ext_fits(const Node *n, uint64_t count, const char *what) {
    if (count < (uint64_t)INT32_MAX) return 0;
    diag_node_error(n, "%s (%llu elements) exceeds the kernel's 32-bit indexing", what, (unsigned long long)count);
    return -1;
}

int ext_bind(KernelCtx *kc, const Node *n, const KTensor *t, bool write, KBind *b, uint32_t *base) {
    return kc_bind_window(kc, n, t, 0, t->numel ? (int64_t)t->numel - 1 : 0, write, b, base);
}

int ext_bind_bytes(KernelCtx *kc, const Node *n, const KTensor *t, KBind *b, uint32_t *base_bytes) {
    KTensor bytes = *t;
    bytes.dtype = DT_U8;
    bytes.numel = dtype_storage_bytes(t->dtype, t->numel);
    return ext_bind(kc, n, &bytes, false, b, base_bytes);
}

int ext_bind_words(KernelCtx *kc, const Node *n, const KTensor *t, KBind *b, uint32_t *base_words) {
    uint32_t bytes;
    if (ext_bind_bytes(kc, n, t, b, &bytes) < 0) return -1;
    if (bytes % 4) {
        diag_node_error(n, "internal: tensor %s is not 4-byte aligned", value_display_name(t->value));
        return -1;
    }
    *base_words = bytes / 4;
    return 0;
}

uint32_t ext_wg(const KernelCtx *kc) {
    return k_wg_within(EXT_WG, kc_device(kc)->max_workgroup_invocations);
}

uint32_t ext_sg_reduce(const KernelCtx *kc) { return kc_device(kc)->subgroup_arithmetic ? 1u : 0u; }

bool ext_coop(const KernelCtx *kc, DType act) { return kc_device(kc)->coopmat_nv && act == DT_F16; }

int ext_dispatch_rows(KernelCtx *kc, const Node *n, int shader, const uint32_t *spec, int n_spec, const void *push,
                      uint32_t push_size, const KBind *b, int n_b, uint64_t rows) {
    if (rows == 0) return 0;
    return kc_dispatch_1d(kc, n, shader, spec, n_spec, push, push_size, b, n_b, rows);
}

int ext_dispatch_elems(KernelCtx *kc, const Node *n, int shader, const uint32_t *spec, int n_spec, const void *push,
                       uint32_t push_size, const KBind *b, int n_b, uint64_t count) {
    if (count == 0) return 0;
    uint32_t wg = spec[0];
    return kc_dispatch_1d(kc, n, shader, spec, n_spec, push, push_size, b, n_b, (count + wg - 1) / wg);
}
