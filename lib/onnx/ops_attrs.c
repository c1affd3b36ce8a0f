/* ops_attrs.c - typed, validated access to the attributes of the ONNX node being imported. */
#include <string.h>

#include "import_internal.h"

const Onnx__AttributeProto *onnx_attr_find(const OnnxCtx *c, const char *name) {
    const Onnx__NodeProto *np = c->node;
    for (size_t i = 0; i < np->n_attribute; i++) {
        const Onnx__AttributeProto *a = np->attribute[i];
        if (a && a->name && strcmp(a->name, name) == 0) return a;
    }
    return NULL;
}

/* The attribute when present with type `want`; NULL when absent; error when mistyped. */
static const Onnx__AttributeProto *typed(const OnnxCtx *c, const char *name,
                                         Onnx__AttributeProto__AttributeType want) {
    const Onnx__AttributeProto *a = onnx_attr_find(c, name);
    if (!a) return NULL;
    if (a->type != want) {
        onnx_imp_error(c, "attribute '%s' has type %d, expected %d", name, (int)a->type, (int)want);
        return NULL;
    }
    return a;
}

int64_t onnx_attr_int(const OnnxCtx *c, const char *name, int64_t def) {
    const Onnx__AttributeProto *a = typed(c, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT);
    return a ? a->i : def;
}

double onnx_attr_float(const OnnxCtx *c, const char *name, double def) {
    const Onnx__AttributeProto *a = typed(c, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT);
    return a ? (double)a->f : def;
}

const char *onnx_attr_string(const OnnxCtx *c, const char *name, const char *def) {
    const Onnx__AttributeProto *a = typed(c, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING);
    if (!a) return def;
    char *s = graph_alloc(c->g, a->s.len + 1);
    if (a->s.len) memcpy(s, a->s.data, a->s.len);
    s[a->s.len] = 0;
    return s;
}

int onnx_attr_ints(const OnnxCtx *c, const char *name, int64_t *out, int max) {
    const Onnx__AttributeProto *a = typed(c, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS);
    if (!a) return -1;
    if (a->n_ints > (size_t)max) return onnx_imp_error(c, "attribute '%s' has %zu values (at most %d)", name, a->n_ints, max);
    for (size_t i = 0; i < a->n_ints; i++) out[i] = a->ints[i];
    return (int)a->n_ints;
}

int onnx_attr_floats(const OnnxCtx *c, const char *name, double *out, int max) {
    const Onnx__AttributeProto *a = typed(c, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS);
    if (!a) return -1;
    if (a->n_floats > (size_t)max) return onnx_imp_error(c, "attribute '%s' has %zu values (at most %d)", name, a->n_floats, max);
    for (size_t i = 0; i < a->n_floats; i++) out[i] = a->floats[i];
    return (int)a->n_floats;
}
