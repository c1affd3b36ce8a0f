/* test_onnx_load.c - model-level loading from memory: validation (graph, ir_version, opsets),
 * malformed protobuf (bad varints, lengths, groups), every prefix of a valid model, random bytes
 * and bit flips (never crash), and nesting limits (10000-deep If/then_branch chains). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "onnx_test_util.h"

static void setup(void) { diag_clear(); }

static void expect_load_error(const void *buf, size_t len, const char *needle) {
    diag_clear();
    OnnxModel *m = onnx_model_load_buffer(buf, len, NULL);
    ck_assert_msg(m == NULL, "loaded, expected \"%s\"", needle);
    onnx_model_free(m);
    ck_assert_msg(strstr(diag_message(), needle), "message \"%s\" lacks \"%s\"", diag_message(),
                  needle);
}

/* A small valid model: one raw float initializer, one node with an int attribute. */
typedef struct {
    TuModel tm;
    TuTensor w;
    float data[4];
    Onnx__NodeProto node;
    Onnx__NodeProto *nodes[1];
    Onnx__AttributeProto attr;
    Onnx__AttributeProto *attrs[1];
    char *in[1], *out[1];
} Small;

static void small_init(Small *s) {
    tu_model_init(&s->tm);
    const int64_t dims[2] = {2, 2};
    for (int i = 0; i < 4; i++) s->data[i] = (float)i;
    tu_tensor_init(&s->w, "w", 1, 2, dims);
    tu_tensor_raw(&s->w, s->data, sizeof s->data);
    tu_model_add_init(&s->tm, &s->w.t);
    onnx__node_proto__init(&s->node);
    onnx__attribute_proto__init(&s->attr);
    s->attr.name = "axis";
    s->attr.has_type = 1;
    s->attr.type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
    s->attr.has_i = 1;
    s->attr.i = 1;
    s->attrs[0] = &s->attr;
    s->in[0] = "w";
    s->out[0] = "y";
    s->node.op_type = "Softmax";
    s->node.name = "sm";
    s->node.n_input = 1;
    s->node.input = s->in;
    s->node.n_output = 1;
    s->node.output = s->out;
    s->node.n_attribute = 1;
    s->node.attribute = s->attrs;
    s->nodes[0] = &s->node;
    s->tm.graph.n_node = 1;
    s->tm.graph.node = s->nodes;
}

START_TEST(valid_small_model) {
    Small s;
    small_init(&s);
    size_t len;
    uint8_t *buf = tu_pack(&s.tm.model, &len);
    OnnxModel *m = onnx_model_load_buffer(buf, len, NULL);
    free(buf);
    ck_assert_msg(m != NULL, "%s", diag_message());
    ck_assert_int_eq(m->proto->graph->n_node, 1);
    ck_assert_str_eq(m->proto->graph->node[0]->op_type, "Softmax");
    Graph *g = graph_new("t");
    OnnxTensorData d;
    ck_assert_int_eq(onnx_tensor_read(m, g, m->proto->graph->initializer[0], &d), 0);
    ck_assert(memcmp(d.data, s.data, sizeof s.data) == 0);
    onnx_model_attach(g, m);
    graph_free(g);
}
END_TEST

static void expect_model_error(const Onnx__ModelProto *model, const char *needle) {
    size_t len;
    uint8_t *buf = tu_pack(model, &len);
    expect_load_error(buf, len, needle);
    free(buf);
}

START_TEST(model_without_graph) {
    Small s;
    small_init(&s);
    s.tm.model.graph = NULL;
    expect_model_error(&s.tm.model, "no graph");
}
END_TEST

START_TEST(model_without_ir_version) {
    Small s;
    small_init(&s);
    s.tm.model.has_ir_version = 0;
    expect_model_error(&s.tm.model, "no ir_version");
}
END_TEST

START_TEST(model_opsets) {
    Small s;
    small_init(&s);
    s.tm.opset.domain = "com.microsoft";
    expect_model_error(&s.tm.model, "no opset import for the default domain");
    s.tm.opset.domain = "ai.onnx";
    s.tm.opset.version = 0;
    expect_model_error(&s.tm.model, "no valid version");
    Onnx__OperatorSetIdProto two = s.tm.opset;
    two.domain = "";
    two.version = 13;
    s.tm.opset.version = 17;
    Onnx__OperatorSetIdProto *both[2] = {&s.tm.opset, &two};
    s.tm.model.opset_import = both;
    s.tm.model.n_opset_import = 2;
    expect_model_error(&s.tm.model, "conflicting opset imports");
}
END_TEST

START_TEST(empty_and_garbage) {
    expect_load_error("", 0, "empty model file");
    static const uint8_t bad_varint[] = {0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
    expect_load_error(bad_varint, sizeof bad_varint, "malformed protobuf at byte 1");
    static const uint8_t long_len[] = {0x3a, 0x10, 0x00}; /* graph, 16 bytes, only 1 there */
    expect_load_error(long_len, sizeof long_len, "malformed protobuf at byte 1");
    static const uint8_t group[] = {0x0b, 0x0c};
    expect_load_error(group, sizeof group, "groups are not supported");
    static const uint8_t bad_wt[] = {0x0e, 0x00};
    expect_load_error(bad_wt, sizeof bad_wt, "bad wire type");
    static const uint8_t field0[] = {0x00, 0x00};
    expect_load_error(field0, sizeof field0, "bad field number");
    /* inner message longer than its parent: graph of 2 bytes holding a node field of 5 */
    static const uint8_t inner[] = {0x3a, 0x02, 0x0a, 0x05, 0, 0, 0, 0, 0};
    expect_load_error(inner, sizeof inner, "malformed protobuf at byte 3");
}
END_TEST

START_TEST(every_prefix_fails_cleanly) {
    Small s;
    small_init(&s);
    size_t len;
    uint8_t *buf = tu_pack(&s.tm.model, &len);
    int loaded = 0;
    for (size_t n = 0; n < len; n++) {
        uint8_t *copy = malloc(n ? n : 1); /* exact size so ASan sees any overread */
        memcpy(copy, buf, n);
        diag_clear();
        OnnxModel *m = onnx_model_load_buffer(copy, n, NULL);
        if (m) loaded++;
        else ck_assert_msg(diag_has_error(), "prefix %zu failed without a diagnostic", n);
        onnx_model_free(m);
        free(copy);
    }
    /* The full model loads, and the graph (written last but one) is needed by every prefix
     * that loads; a prefix that ends before the graph is complete can never load. */
    diag_clear();
    OnnxModel *m = onnx_model_load_buffer(buf, len, NULL);
    ck_assert_ptr_nonnull(m);
    onnx_model_free(m);
    ck_assert_int_lt(loaded, (int)len);
    free(buf);
}
END_TEST

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rng(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

START_TEST(random_bytes_and_bit_flips) {
    for (int i = 0; i < 3000; i++) {
        size_t n = (size_t)(rng() % 200);
        uint8_t *b = malloc(n ? n : 1);
        for (size_t k = 0; k < n; k++) b[k] = (uint8_t)rng();
        diag_clear();
        OnnxModel *m = onnx_model_load_buffer(b, n, NULL);
        ck_assert(m || diag_has_error());
        onnx_model_free(m);
        free(b);
    }
    Small s;
    small_init(&s);
    size_t len;
    uint8_t *buf = tu_pack(&s.tm.model, &len);
    Graph *g = graph_new("t");
    for (int i = 0; i < 5000; i++) {
        uint8_t *b = malloc(len);
        memcpy(b, buf, len);
        for (int f = 0; f < 1 + (int)(rng() % 4); f++) b[rng() % len] ^= (uint8_t)(1u << (rng() % 8));
        diag_clear();
        OnnxModel *m = onnx_model_load_buffer(b, len, NULL);
        free(b); /* the model must not point into the input buffer */
        if (m) {
            for (size_t t = 0; t < m->proto->graph->n_initializer; t++) {
                OnnxTensorData d;
                diag_clear();
                if (onnx_tensor_read(m, g, m->proto->graph->initializer[t], &d) == 0 && d.nbytes)
                    ck_assert_int_ge(((const uint8_t *)d.data)[d.nbytes - 1], 0); /* readable */
            }
        } else {
            ck_assert(diag_has_error());
        }
        onnx_model_free(m);
    }
    graph_free(g);
    free(buf);
}
END_TEST

/* Wire bytes of a model whose main graph nests `levels` If-style chains
 * graph -> node -> attribute(g) -> graph ...; `extra_node` adds one more node level. */
static TuWire nested_model(int levels, int extra_node) {
    TuWire w;
    tu_wire_init(&w, 64 + 8 * (size_t)levels * 3 + 256);
    if (extra_node) tu_wire_wrap(&w, 1); /* an empty NodeProto inside the innermost graph */
    for (int i = 0; i < levels; i++) {
        tu_wire_wrap(&w, 6); /* AttributeProto.g */
        tu_wire_wrap(&w, 5); /* NodeProto.attribute */
        tu_wire_wrap(&w, 1); /* GraphProto.node */
    }
    tu_wire_wrap(&w, 7); /* ModelProto.graph */
    static const uint8_t opset[] = {0x42, 0x02, 0x10, 17}; /* opset_import { version: 17 } */
    tu_wire_prepend(&w, opset, sizeof opset);
    tu_wire_varint_field(&w, 1, 8); /* ir_version: 8 */
    return w;
}

START_TEST(deep_nesting_refused) {
    TuWire w = nested_model(10000, 0);
    size_t len;
    const uint8_t *b = tu_wire_data(&w, &len);
    expect_load_error(b, len, "above the limit protobuf-nesting (64)");
    tu_wire_free(&w);
}
END_TEST

START_TEST(nesting_limit_boundary) {
    /* graph = level 1; each chain adds node, attribute, graph: 21 chains reach level 64. */
    TuWire w = nested_model(21, 0);
    size_t len;
    const uint8_t *b = tu_wire_data(&w, &len);
    diag_clear();
    OnnxModel *m = onnx_model_load_buffer(b, len, NULL);
    ck_assert_msg(m != NULL, "%s", diag_message());
    ck_assert_int_eq(m->proto->graph->n_node, 1);
    ck_assert_ptr_nonnull(m->proto->graph->node[0]->attribute[0]->g);
    onnx_model_free(m);
    tu_wire_free(&w);
    w = nested_model(21, 1); /* level 65 */
    b = tu_wire_data(&w, &len);
    expect_load_error(b, len, "above the limit protobuf-nesting (64)");
    tu_wire_free(&w);
}
END_TEST

START_TEST(wire_check_direct) {
    Small s;
    small_init(&s);
    size_t len;
    uint8_t *buf = tu_pack(&s.tm.model, &len);
    diag_clear();
    ck_assert_int_eq(onnx_wire_check(buf, len, &onnx__model_proto__descriptor, "x.onnx"), 0);
    ck_assert_int_eq(onnx_wire_check(buf, len - 1, &onnx__model_proto__descriptor, "x.onnx"), -1);
    ck_assert_ptr_nonnull(strstr(diag_message(), "x.onnx: malformed protobuf at byte"));
    free(buf);
}
END_TEST

int main(void) {
    Suite *s = suite_create("onnx_load");
    TCase *tc = tcase_create("load");
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_add_test(tc, valid_small_model);
    tcase_add_test(tc, model_without_graph);
    tcase_add_test(tc, model_without_ir_version);
    tcase_add_test(tc, model_opsets);
    tcase_add_test(tc, empty_and_garbage);
    tcase_add_test(tc, every_prefix_fails_cleanly);
    tcase_add_test(tc, random_bytes_and_bit_flips);
    tcase_add_test(tc, deep_nesting_refused);
    tcase_add_test(tc, nesting_limit_boundary);
    tcase_add_test(tc, wire_check_direct);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
