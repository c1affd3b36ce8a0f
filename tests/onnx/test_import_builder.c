/* test_import_builder.c - ModelProto construction for the importer tests (see
 * test_import_builder.h): every allocation is recorded and released by mb_free. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "test_import_builder.h"

struct MB {
    void **allocs;
    size_t n_allocs, cap_allocs;
    Onnx__ModelProto model;
    Onnx__GraphProto graph;
};

static void *mb_alloc(MB *b, size_t size) {
    void *p = calloc(1, size ? size : 1);
    if (!p) abort();
    if (b->n_allocs == b->cap_allocs) {
        b->cap_allocs = b->cap_allocs ? 2 * b->cap_allocs : 64;
        b->allocs = realloc(b->allocs, sizeof *b->allocs * b->cap_allocs);
        if (!b->allocs) abort();
    }
    b->allocs[b->n_allocs++] = p;
    return p;
}

static char *mb_str(MB *b, const char *s) {
    char *d = mb_alloc(b, strlen(s) + 1);
    strcpy(d, s);
    return d;
}

/* Appends item to a protobuf-c repeated pointer field. */
#define APPEND(b, arr, n, item)                                                   \
    do {                                                                          \
        void *grown_ = mb_alloc((b), sizeof *(arr) * ((n) + 1));                  \
        if (n) memcpy(grown_, (arr), sizeof *(arr) * (n));                        \
        (arr) = grown_;                                                           \
        (arr)[(n)++] = (item);                                                    \
    } while (0)

MB *mb_new(int64_t opset) {
    MB *b = calloc(1, sizeof *b);
    if (!b) abort();
    onnx__model_proto__init(&b->model);
    onnx__graph_proto__init(&b->graph);
    b->model.has_ir_version = 1;
    b->model.ir_version = 8;
    b->model.graph = &b->graph;
    b->graph.name = "test";
    mb_opset(b, "", opset);
    return b;
}

void mb_free(MB *b) {
    if (!b) return;
    for (size_t i = 0; i < b->n_allocs; i++) free(b->allocs[i]);
    free(b->allocs);
    free(b);
}

void mb_opset(MB *b, const char *domain, int64_t version) {
    Onnx__OperatorSetIdProto *o = mb_alloc(b, sizeof *o);
    onnx__operator_set_id_proto__init(o);
    o->domain = mb_str(b, domain);
    o->has_version = 1;
    o->version = version;
    APPEND(b, b->model.opset_import, b->model.n_opset_import, o);
}

/* Splits "a,b,,c" into mb-owned strings; returns the count. */
static int split_list(MB *b, const char *s, char ***out) {
    int n = 0;
    char **items = NULL;
    if (!s[0]) {
        *out = NULL;
        return 0;
    }
    for (const char *p = s;;) {
        const char *q = strchr(p, ',');
        size_t len = q ? (size_t)(q - p) : strlen(p);
        char *item = mb_alloc(b, len + 1);
        memcpy(item, p, len);
        size_t count = (size_t)n;
        APPEND(b, items, count, item);
        n = (int)count;
        if (!q) break;
        p = q + 1;
    }
    *out = items;
    return n;
}

static Onnx__TensorShapeProto *shape_proto(MB *b, const char *shape) {
    Onnx__TensorShapeProto *sp = mb_alloc(b, sizeof *sp);
    onnx__tensor_shape_proto__init(sp);
    char **items;
    int n = split_list(b, shape, &items);
    for (int i = 0; i < n; i++) {
        Onnx__TensorShapeProto__Dimension *d = mb_alloc(b, sizeof *d);
        onnx__tensor_shape_proto__dimension__init(d);
        if (items[i][0] >= '0' && items[i][0] <= '9') {
            d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
            d->dim_value = atoll(items[i]);
        } else if (strcmp(items[i], "?") != 0) {
            d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
            d->dim_param = items[i];
        }
        APPEND(b, sp->dim, sp->n_dim, d);
    }
    return sp;
}

void mb_input(MB *b, const char *name, int elem, const char *shape) {
    Onnx__ValueInfoProto *vi = mb_alloc(b, sizeof *vi);
    onnx__value_info_proto__init(vi);
    vi->name = mb_str(b, name);
    Onnx__TypeProto *tp = mb_alloc(b, sizeof *tp);
    onnx__type_proto__init(tp);
    Onnx__TypeProto__Tensor *tt = mb_alloc(b, sizeof *tt);
    onnx__type_proto__tensor__init(tt);
    tt->has_elem_type = 1;
    tt->elem_type = elem;
    tt->shape = shape_proto(b, shape);
    tp->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
    tp->tensor_type = tt;
    vi->type = tp;
    APPEND(b, b->graph.input, b->graph.n_input, vi);
}

void mb_output(MB *b, const char *name) {
    Onnx__ValueInfoProto *vi = mb_alloc(b, sizeof *vi);
    onnx__value_info_proto__init(vi);
    vi->name = mb_str(b, name);
    APPEND(b, b->graph.output, b->graph.n_output, vi);
}

static Onnx__TensorProto *tensor(MB *b, const char *name, int elem, const char *shape, const void *data, size_t nbytes) {
    Onnx__TensorProto *t = mb_alloc(b, sizeof *t);
    onnx__tensor_proto__init(t);
    t->name = mb_str(b, name);
    t->has_data_type = 1;
    t->data_type = elem;
    char **items;
    int n = split_list(b, shape, &items);
    t->dims = mb_alloc(b, sizeof *t->dims * (size_t)(n + 1));
    for (int i = 0; i < n; i++) t->dims[i] = atoll(items[i]);
    t->n_dims = (size_t)n;
    t->has_raw_data = 1;
    t->raw_data.len = nbytes;
    t->raw_data.data = mb_alloc(b, nbytes);
    if (nbytes) memcpy(t->raw_data.data, data, nbytes);
    return t;
}

void mb_init(MB *b, const char *name, int elem, const char *shape, const void *data, size_t nbytes) {
    Onnx__TensorProto *t = tensor(b, name, elem, shape, data, nbytes);
    APPEND(b, b->graph.initializer, b->graph.n_initializer, t);
}

void mb_init_i64(MB *b, const char *name, int n, const int64_t *vals) {
    char shape[32] = "";
    if (n >= 0) snprintf(shape, sizeof shape, "%d", n);
    mb_init(b, name, TI64, shape, vals, sizeof *vals * (size_t)(n < 0 ? 1 : n));
}

void mb_init_f32(MB *b, const char *name, const char *shape, int n, const float *vals) {
    mb_init(b, name, TF32, shape, vals, sizeof *vals * (size_t)n);
}

Onnx__NodeProto *mb_node(MB *b, const char *op, const char *name, const char *inputs, const char *outputs) {
    Onnx__NodeProto *n = mb_alloc(b, sizeof *n);
    onnx__node_proto__init(n);
    n->op_type = mb_str(b, op);
    n->name = mb_str(b, name);
    n->domain = mb_str(b, "");
    n->n_input = (size_t)split_list(b, inputs, &n->input);
    n->n_output = (size_t)split_list(b, outputs, &n->output);
    APPEND(b, b->graph.node, b->graph.n_node, n);
    return n;
}

void mb_node_domain(MB *b, Onnx__NodeProto *n, const char *domain) { n->domain = mb_str(b, domain); }

static Onnx__AttributeProto *attr(MB *b, Onnx__NodeProto *n, const char *name, Onnx__AttributeProto__AttributeType t) {
    Onnx__AttributeProto *a = mb_alloc(b, sizeof *a);
    onnx__attribute_proto__init(a);
    a->name = mb_str(b, name);
    a->has_type = 1;
    a->type = t;
    APPEND(b, n->attribute, n->n_attribute, a);
    return a;
}

void mb_attr_i(MB *b, Onnx__NodeProto *n, const char *name, int64_t v) {
    Onnx__AttributeProto *a = attr(b, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT);
    a->has_i = 1;
    a->i = v;
}

void mb_attr_f(MB *b, Onnx__NodeProto *n, const char *name, float v) {
    Onnx__AttributeProto *a = attr(b, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT);
    a->has_f = 1;
    a->f = v;
}

void mb_attr_s(MB *b, Onnx__NodeProto *n, const char *name, const char *v) {
    Onnx__AttributeProto *a = attr(b, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING);
    a->has_s = 1;
    a->s.data = (uint8_t *)mb_str(b, v);
    a->s.len = strlen(v);
}

void mb_attr_ints(MB *b, Onnx__NodeProto *n, const char *name, int count, const int64_t *v) {
    Onnx__AttributeProto *a = attr(b, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS);
    a->ints = mb_alloc(b, sizeof *v * (size_t)count);
    memcpy(a->ints, v, sizeof *v * (size_t)count);
    a->n_ints = (size_t)count;
}

void mb_attr_tensor(MB *b, Onnx__NodeProto *n, const char *name, int elem, const char *shape, const void *data,
                    size_t nbytes) {
    Onnx__AttributeProto *a = attr(b, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR);
    a->t = tensor(b, "", elem, shape, data, nbytes);
}

Graph *mb_import(MB *b, const ImportOptions *opt) {
    diag_clear();
    size_t len = onnx__model_proto__get_packed_size(&b->model);
    uint8_t *buf = malloc(len ? len : 1);
    if (!buf || onnx__model_proto__pack(&b->model, buf) != len) abort();
    OnnxModel *m = onnx_model_load_buffer(buf, len, NULL);
    free(buf);
    if (!m) return NULL;
    ImportOptions none = {0};
    Graph *g = onnx_import(m, opt ? opt : &none);
    if (!g) onnx_model_free(m);
    return g;
}

Graph *mb_import_ok(MB *b, const ImportOptions *opt) {
    Graph *g = mb_import(b, opt);
    ck_assert_msg(g != NULL, "import failed: %s", diag_message());
    return g;
}

void mb_import_fails(MB *b, const ImportOptions *opt, const char *needle) {
    Graph *g = mb_import(b, opt);
    ck_assert_msg(g == NULL, "import succeeded, expected \"%s\"", needle);
    ck_assert_msg(strstr(diag_message(), needle), "message \"%s\" lacks \"%s\"", diag_message(), needle);
}

/* ---- checking the IR ------------------------------------------------------------------------------- */

int count_op(const Graph *g, OpId op) {
    int n = 0;
    for (int i = 0; i < g->n_nodes; i++)
        if (!g->nodes[i]->dead && g->nodes[i]->op == op) n++;
    return n;
}

Node *nth_op(const Graph *g, OpId op, int k) {
    for (int i = 0; i < g->n_nodes; i++)
        if (!g->nodes[i]->dead && g->nodes[i]->op == op && k-- == 0) return g->nodes[i];
    return NULL;
}

const char *type_of(const Graph *g, const Value *v) {
    static char buf[256];
    return v ? value_format_type(g, v, buf, sizeof buf) : "(null)";
}

const char *ints_of(const Node *n, const char *key) {
    static char buf[256];
    const int64_t *v;
    int count = n ? node_ints(n, key, &v) : -1;
    if (count < 0) return "-";
    buf[0] = 0;
    for (int i = 0; i < count; i++)
        snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%lld", i ? "," : "", (long long)v[i]);
    return buf;
}

const char *dims_of(const Graph *g, const Node *n, const char *key) {
    static char buf[256];
    const Dim *d;
    int count = n ? node_dims(n, key, &d) : -1;
    if (count < 0) return "-";
    buf[0] = 0;
    for (int i = 0; i < count; i++) {
        char one[64];
        snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s", i ? "," : "", dim_format(g, d[i], one, sizeof one));
    }
    return buf;
}
