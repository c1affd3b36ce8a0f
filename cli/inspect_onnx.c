/* inspect_onnx.c - `webnnc inspect` for ONNX models: reads the ModelProto directly (no import, so
 * models with contrib ops work) and fills the summary: domain-qualified op histogram, graph
 * inputs/outputs with symbolic dims, initializer bytes per dtype, opset imports. */
#include "inspect.h"

#include <ctype.h>
#include <string.h>

#include "core.h"
#include "onnx.h"

/* "ai.onnx" for the default domain. */
static const char *domain_name(const char *domain) {
    return (!domain || !*domain) ? "ai.onnx" : domain;
}

/* WebNN name when the type maps to one ("float32"), else ONNX's own name lowercased ("bool"). */
static const char *onnx_dtype_name(int code, char *buf, size_t len) {
    DType dt = dtype_from_onnx(code);
    if (dt != DT_INVALID) return dtype_name(dt);
    const ProtobufCEnumValue *ev = protobuf_c_enum_descriptor_get_value(&onnx__tensor_proto__data_type__descriptor, code);
    if (!ev) {
        snprintf(buf, len, "onnx_type_%d", code);
        return buf;
    }
    size_t i = 0;
    for (; ev->name[i] && i + 1 < len; i++) buf[i] = (char)tolower((unsigned char)ev->name[i]);
    buf[i] = 0;
    return buf;
}

/* Bits per element of ONNX types without a WebNN counterpart; 0 when not fixed-size (string). */
static int onnx_only_bits(int code) {
    switch (code) {
    case ONNX__TENSOR_PROTO__DATA_TYPE__BOOL: return 8;
    case ONNX__TENSOR_PROTO__DATA_TYPE__UINT16:
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT16:
    case ONNX__TENSOR_PROTO__DATA_TYPE__BFLOAT16: return 16;
    case ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE:
    case ONNX__TENSOR_PROTO__DATA_TYPE__COMPLEX64: return 64;
    case ONNX__TENSOR_PROTO__DATA_TYPE__COMPLEX128: return 128;
    default: return 0;
    }
}

/* Bytes of an initializer as stored in ONNX (element count x element size); -1 if its dims are bad. */
static int64_t initializer_bytes(const Onnx__TensorProto *t) {
    uint64_t n = 1;
    for (size_t i = 0; i < t->n_dims; i++) {
        if (t->dims[i] < 0) return -1;
        uint64_t d = (uint64_t)t->dims[i];
        if (d && n > (UINT64_MAX >> 8) / d) return -1;
        n *= d;
    }
    DType dt = dtype_from_onnx(t->data_type);
    if (dt != DT_INVALID) return (int64_t)dtype_storage_bytes(dt, n);
    return (int64_t)(n * (uint64_t)onnx_only_bits(t->data_type) / 8);
}

static int add_value_info(cJSON *s, const char *list, const Onnx__ValueInfoProto *vi) {
    char buf[64];
    const Onnx__TypeProto *type = vi->type;
    if (!type || type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !type->tensor_type) {
        summary_add_tensor(s, list, vi->name, "non-tensor");
        return 0;
    }
    const Onnx__TypeProto__Tensor *tt = type->tensor_type;
    cJSON *shape = summary_add_tensor(s, list, vi->name, onnx_dtype_name(tt->elem_type, buf, sizeof buf));
    if (!shape || !tt->shape) return 0;
    for (size_t i = 0; i < tt->shape->n_dim; i++) {
        const Onnx__TensorShapeProto__Dimension *d = tt->shape->dim[i];
        if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE)
            summary_dim_static(shape, d->dim_value);
        else if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM)
            summary_dim_symbol(shape, d->dim_param, 0);
        else
            summary_dim_symbol(shape, "?", 0);
    }
    return 0;
}

static bool is_initializer(const Onnx__GraphProto *g, const char *name) {
    for (size_t i = 0; i < g->n_initializer; i++)
        if (g->initializer[i]->name && strcmp(g->initializer[i]->name, name) == 0) return true;
    return false;
}

int inspect_onnx(const char *path, cJSON *s) {
    OnnxModel *m = onnx_model_load(path);
    if (!m) return -1;
    const Onnx__ModelProto *mp = m->proto;
    const Onnx__GraphProto *g = mp->graph;
    if (!g) {
        diag_error("model has no graph");
        onnx_model_free(m);
        return -1;
    }
    cJSON *opsets = cJSON_AddObjectToObject(s, "opsets");
    for (size_t i = 0; i < mp->n_opset_import; i++)
        cJSON_AddNumberToObject(opsets, domain_name(mp->opset_import[i]->domain), (double)mp->opset_import[i]->version);

    char qualified[512];
    for (size_t i = 0; i < g->n_node; i++) {
        const Onnx__NodeProto *n = g->node[i];
        const char *op = n->op_type ? n->op_type : "?";
        if (n->domain && *n->domain && strcmp(n->domain, "ai.onnx") != 0) {
            snprintf(qualified, sizeof qualified, "%s.%s", n->domain, op);
            op = qualified;
        }
        summary_count_op(s, op);
    }
    for (size_t i = 0; i < g->n_input; i++)
        if (!is_initializer(g, g->input[i]->name ? g->input[i]->name : "")) add_value_info(s, "inputs", g->input[i]);
    for (size_t i = 0; i < g->n_output; i++) add_value_info(s, "outputs", g->output[i]);

    char buf[64];
    for (size_t i = 0; i < g->n_initializer; i++) {
        const Onnx__TensorProto *t = g->initializer[i];
        int64_t bytes = initializer_bytes(t);
        if (bytes < 0) {
            diag_error("initializer %s: invalid dims", t->name ? t->name : "?");
            onnx_model_free(m);
            return -1;
        }
        summary_add_bytes(s, onnx_dtype_name(t->data_type, buf, sizeof buf), (uint64_t)bytes);
    }
    onnx_model_free(m);
    return 0;
}
