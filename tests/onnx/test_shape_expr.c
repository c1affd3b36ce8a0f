/* test_shape_expr.c - shape expressions in the importer: symbolic shape values from Shape/Size on
 * dynamic dims and their propagation (Gather/Slice/Concat/Unsqueeze/Squeeze/Cast/arithmetic/
 * Max/Equal/Where), their consumption (Reshape incl. 0/-1, Expand, Slice ends, Range,
 * ConstantOfShape), lazy materialization as data, folding through symbolic dims, the ORT-GenAI
 * attention-mask subgraphs (standard and WebGPU graph-capture), Phi-style If, the dims normal
 * form, and genai_config.json defaults.  Expected values are written by hand. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core.h"
#include "genai_config.h"
#include "test_import_builder.h"
#include "test_util.h"

static MB *b;
static Graph *g;

static void setup(void) {
    b = mb_new(17);
    g = NULL;
}

static void teardown(void) {
    graph_free(g);
    mb_free(b);
}

static void expect_ok(const ImportOptions *opt) { g = mb_import_ok(b, opt); }
static void expect_fail(const ImportOptions *opt, const char *needle) { mb_import_fails(b, opt, needle); }

static const DimSetting seq64[] = {{"seq", 64}};
static const ImportOptions dyn_seq = {NULL, 0, seq64, 1};

static Value *output(const char *name) {
    for (int i = 0; i < g->n_outputs; i++)
        if (g->outputs[i]->origin && !strcmp(g->outputs[i]->origin, name)) return g->outputs[i];
    ck_abort_msg("no output %s", name);
    return NULL;
}

/* The producer of v, looking through identity nodes added for graph outputs. */
static Node *producer(Value *v) {
    Node *n = v->producer;
    while (n && n->op == OP_IDENTITY) n = n->inputs[0]->producer;
    return n;
}

static int64_t i64_at(const Value *v, int i) {
    ck_assert_msg(v->flags & VF_CONST, "%s is not a constant", v->name);
    int64_t x;
    if (v->dtype == DT_I32) {
        int32_t y;
        memcpy(&y, (const char *)v->data + 4 * i, 4);
        return y;
    }
    ck_assert_int_eq(v->dtype, DT_I64);
    memcpy(&x, (const char *)v->data + 8 * i, 8);
    return x;
}

/* ---- dims normal form (lib/core/dims.c) --------------------------------------------------------- */

START_TEST(dims_affine_normal_form) {
    g = graph_new("t");
    Dim s = dim_symbol(g, "seq", 64), p = dim_symbol(g, "past", 32);
    ck_assert(dim_equal(dim_sub(g, dim_add(g, dim_static(1), s), dim_static(1)), s));
    ck_assert(dim_equal(dim_div(g, dim_mul(g, dim_mul(g, s, dim_static(4)), dim_static(32)), dim_static(128)), s));
    ck_assert(dim_equal(dim_sub(g, dim_add(g, p, s), p), s));
    ck_assert(dim_equal(dim_add(g, dim_add(g, s, dim_static(2)), dim_static(3)), dim_add(g, dim_static(5), s)));
    Dim ps = dim_add(g, p, s);
    ck_assert_int_eq(ps.v, 96);
    ck_assert_int_eq(dim_sub(g, ps, dim_static(1)).v, 95);
    ck_assert(!dim_equal(dim_div(g, dim_mul(g, s, dim_static(3)), dim_static(2)), s)); /* not exact: stays a quotient */
    int64_t vals[2] = {7, 5}; /* seq = 7, past = 5 */
    ck_assert_int_eq(dim_eval(g, dim_div(g, dim_mul(g, s, dim_static(3)), dim_static(2)), vals), 10);
}
END_TEST

/* ---- propagation and consumption ---------------------------------------------------------------- */

START_TEST(shape_gather_concat_feeds_reshape) {
    mb_input(b, "x", TF32, "1,seq,8");
    mb_init_i64(b, "one", 1, (int64_t[]){1});
    mb_init_i64(b, "split", 2, (int64_t[]){2, 4});
    mb_init_i64(b, "ax0", 1, (int64_t[]){0});
    mb_init_i64(b, "i1", -1, (int64_t[]){1});
    mb_node(b, "Shape", "shape", "x", "s");
    mb_node(b, "Gather", "g", "s,i1", "d");
    mb_node(b, "Unsqueeze", "u", "d,ax0", "du");
    mb_attr_i(b, mb_node(b, "Concat", "cat", "one,du,split", "ns"), "axis", 0);
    mb_node(b, "Reshape", "r", "x,ns", "y");
    mb_output(b, "y");
    expect_ok(&dyn_seq);
    ck_assert_int_eq(graph_node_count(g), 1); /* only the reshape: no shape pseudo-op */
    Node *r = producer(output("y"));
    ck_assert_int_eq(r->op, OP_RESHAPE);
    ck_assert_str_eq(dims_of(g, r, "newShape"), "1,seq,2,4");
    ck_assert_str_eq(type_of(g, output("y")), "float32[1, seq, 2, 4]");
}
END_TEST

START_TEST(reshape_zero_and_minus_one_with_symbolic_count) {
    mb_input(b, "x", TF32, "1,seq,8");
    mb_init_i64(b, "s1", 4, (int64_t[]){0, -1, 4, 2});
    mb_init_i64(b, "s2", 2, (int64_t[]){-1, 8});
    mb_node(b, "Reshape", "r1", "x,s1", "y1");
    mb_node(b, "Reshape", "r2", "x,s2", "y2");
    mb_output(b, "y1");
    mb_output(b, "y2");
    expect_ok(&dyn_seq);
    ck_assert_str_eq(type_of(g, output("y1")), "float32[1, seq, 4, 2]");
    ck_assert_str_eq(type_of(g, output("y2")), "float32[seq, 8]");
}
END_TEST

START_TEST(arithmetic_max_equal_where_on_shapes) {
    /* Expand(x [1, 1], Where(Equal(shape, -1), ones, shape)) with shape = [Max(seq, 1), 4 * 2]. */
    mb_input(b, "x", TF32, "1,seq");
    mb_input(b, "z", TF32, "1,1");
    mb_init_i64(b, "i1", -1, (int64_t[]){1});
    mb_init_i64(b, "one", -1, (int64_t[]){1});
    mb_init_i64(b, "four", 1, (int64_t[]){4});
    mb_init_i64(b, "two", -1, (int64_t[]){2});
    mb_init_i64(b, "ax0", 1, (int64_t[]){0});
    mb_init_i64(b, "neg", -1, (int64_t[]){-1});
    mb_init_i64(b, "ones", 2, (int64_t[]){1, 1});
    mb_node(b, "Shape", "shape", "x", "s");
    mb_node(b, "Gather", "g", "s,i1", "d");
    mb_node(b, "Max", "mx", "d,one", "dm");
    mb_node(b, "Unsqueeze", "u", "dm,ax0", "du");
    mb_node(b, "Mul", "m", "four,two", "eight");
    mb_attr_i(b, mb_node(b, "Concat", "cat", "du,eight", "sh"), "axis", 0);
    mb_node(b, "Equal", "eq", "sh,neg", "isneg");
    mb_node(b, "Where", "w", "isneg,ones,sh", "sh2");
    mb_node(b, "Expand", "e", "z,sh2", "y");
    mb_output(b, "y");
    expect_ok(&dyn_seq);
    ck_assert_str_eq(type_of(g, output("y")), "float32[seq, 8]");
    ck_assert_int_eq(graph_node_count(g), 1);
    ck_assert_str_eq(dims_of(g, producer(output("y")), "newShape"), "seq,8");
}
END_TEST

START_TEST(slice_with_symbolic_end_and_size) {
    /* x[:, 1 : seq] (end from the shape) -> sizes (seq-1); x[:, 0 : seq] is x itself. */
    mb_input(b, "x", TF32, "1,seq");
    mb_init_i64(b, "st1", 1, (int64_t[]){1});
    mb_init_i64(b, "st0", 1, (int64_t[]){0});
    mb_init_i64(b, "ax", 1, (int64_t[]){1});
    Onnx__NodeProto *sh = mb_node(b, "Shape", "shape", "x", "e");
    mb_attr_i(b, sh, "start", 1);
    mb_node(b, "Slice", "s1", "x,st1,e,ax", "y1");
    mb_node(b, "Slice", "s0", "x,st0,e,ax", "y0");
    mb_output(b, "y1");
    mb_output(b, "y0");
    expect_ok(&dyn_seq);
    Node *s = producer(output("y1"));
    ck_assert_int_eq(s->op, OP_SLICE);
    ck_assert_str_eq(ints_of(s, "starts"), "0,1");
    ck_assert_str_eq(dims_of(g, s, "sizes"), "1,(seq-1)");
    ck_assert_int_eq(count_op(g, OP_SLICE), 1);
}
END_TEST

START_TEST(range_and_constant_of_shape_consume_symbols) {
    mb_input(b, "x", TF32, "1,seq");
    mb_init_i64(b, "zero", -1, (int64_t[]){0});
    mb_init_i64(b, "step", -1, (int64_t[]){1});
    mb_init_i64(b, "i1", -1, (int64_t[]){1});
    mb_node(b, "Shape", "shape", "x", "s");
    mb_node(b, "Gather", "g", "s,i1", "d");
    mb_node(b, "Range", "range", "zero,d,step", "pos");
    Onnx__NodeProto *cos = mb_node(b, "ConstantOfShape", "cos", "s", "ones");
    float one = 1.0f;
    mb_attr_tensor(b, cos, "value", TF32, "1", &one, sizeof one);
    mb_node(b, "Add", "add", "x,ones", "y");
    mb_output(b, "pos");
    mb_output(b, "y");
    expect_ok(&dyn_seq);
    ck_assert_str_eq(type_of(g, output("pos")), "int64[seq]");
    Node *sl = producer(output("pos"));
    ck_assert_int_eq(sl->op, OP_SLICE);
    ck_assert_str_eq(dims_of(g, sl, "sizes"), "seq");
    Value *iota = sl->inputs[0];
    ck_assert_str_eq(type_of(g, iota), "int64[64]");
    ck_assert_int_eq(i64_at(iota, 0), 0);
    ck_assert_int_eq(i64_at(iota, 63), 63);
    /* ones = expand(1.0, [1, seq]); folded through the bound into a sliced constant */
    Node *add = producer(output("y"));
    ck_assert_int_eq(add->op, OP_ADD);
    Node *ones = add->inputs[1]->producer;
    ck_assert_ptr_nonnull(ones);
    ck_assert(ones->op == OP_SLICE || ones->op == OP_EXPAND);
    ck_assert_str_eq(type_of(g, add->inputs[1]), "float32[1, seq]");
}
END_TEST

START_TEST(folding_through_symbolic_dims) {
    /* torch-dynamo style: p = Range(0, seq); c = Concat(p[0:1] - 1, p) has dim (1+seq) but only
     * c[1 : 1+seq] - c[0 : seq] (all ones) is used: folds to slice(constant ones, [1, seq]). */
    mb_input(b, "x", TI64, "1,seq");
    mb_init_i64(b, "zero", -1, (int64_t[]){0});
    mb_init_i64(b, "onei", -1, (int64_t[]){1});
    mb_init_i64(b, "z1", 1, (int64_t[]){0});
    mb_init_i64(b, "o1", 1, (int64_t[]){1});
    mb_init_i64(b, "ax", 1, (int64_t[]){1});
    mb_init_i64(b, "i1", -1, (int64_t[]){1});
    mb_node(b, "Shape", "shape", "x", "s");
    mb_node(b, "Gather", "g", "s,i1", "d");
    mb_node(b, "Range", "range", "zero,d,onei", "p");
    mb_node(b, "Unsqueeze", "u", "p,z1", "pu");
    mb_node(b, "Slice", "first", "pu,z1,o1,ax", "f");
    mb_node(b, "Sub", "sub", "f,onei", "fm");
    mb_attr_i(b, mb_node(b, "Concat", "cat", "fm,pu", "c"), "axis", -1);
    mb_node(b, "Add", "end", "d,onei", "d1");
    mb_node(b, "Unsqueeze", "ue", "d1,z1", "d1u");
    mb_node(b, "Unsqueeze", "ud", "d,z1", "du");
    mb_node(b, "Slice", "hi", "c,o1,d1u,ax", "h");
    mb_node(b, "Slice", "lo", "c,z1,du,ax", "l");
    mb_node(b, "Sub", "diff", "h,l", "ones");
    mb_node(b, "Add", "use", "x,ones", "y");
    mb_output(b, "y");
    expect_ok(&dyn_seq);
    ck_assert_str_eq(type_of(g, output("y")), "int64[1, seq]");
    Node *add = producer(output("y"));
    Node *sl = add->inputs[1]->producer;
    ck_assert_msg(sl && sl->op == OP_SLICE, "ones is not a slice of a constant");
    Value *full = sl->inputs[0];
    ck_assert_str_eq(type_of(g, full), "int64[1, 64]");
    for (int i = 0; i < 64; i++) ck_assert_int_eq(i64_at(full, i), 1);
    ck_assert_int_eq(graph_verify(g, VERIFY_SPEC_ONLY), 0);
}
END_TEST

START_TEST(size_and_data_use_materialize) {
    /* Size(x) * 2.0 as data: the symbolic count is computed from the graph (reduceMax over a slice
     * of [1..64]), and float math on it stays a run-time node. */
    mb_input(b, "x", TF32, "1,seq");
    float two = 2.0f;
    mb_init_f32(b, "two", "", 1, &two);
    mb_node(b, "Size", "size", "x", "n");
    Onnx__NodeProto *c = mb_node(b, "Cast", "cast", "n", "nf");
    mb_attr_i(b, c, "to", TF32);
    mb_node(b, "Mul", "mul", "nf,two", "y");
    mb_output(b, "y");
    expect_ok(&dyn_seq);
    ck_assert_int_eq(count_op(g, OP_REDUCE_MAX), 1);
    Node *rm = nth_op(g, OP_REDUCE_MAX, 0);
    Node *sl = rm->inputs[0]->producer;
    ck_assert_int_eq(sl->op, OP_SLICE);
    ck_assert_str_eq(dims_of(g, sl, "sizes"), "seq");
    ck_assert_int_eq(i64_at(sl->inputs[0], 0), 1);
    ck_assert_int_eq(i64_at(sl->inputs[0], 63), 64);
    ck_assert_str_eq(type_of(g, output("y")), "float32[]");
}
END_TEST

START_TEST(symbolic_shape_output_is_materialized) {
    mb_input(b, "x", TF32, "2,seq");
    mb_node(b, "Shape", "shape", "x", "s");
    mb_output(b, "s");
    expect_ok(&dyn_seq);
    ck_assert_str_eq(type_of(g, output("s")), "int64[2]");
    ck_assert_int_eq(count_op(g, OP_CONCAT), 1);
    ck_assert_int_eq(graph_verify(g, VERIFY_SPEC_ONLY | VERIFY_EXPORTABLE), 0);
}
END_TEST

START_TEST(static_shape_is_still_a_constant) {
    mb_input(b, "x", TF32, "2,3");
    mb_node(b, "Shape", "shape", "x", "s");
    mb_node(b, "Reshape", "r", "x,s", "y");
    mb_output(b, "y");
    expect_ok(NULL);
    ck_assert_int_eq(graph_node_count(g), 1); /* the output identity: reshape to the same shape */
}
END_TEST

START_TEST(undecidable_broadcast_is_an_error) {
    mb_input(b, "x", TF32, "1,seq");
    mb_input(b, "z", TF32, "4");
    mb_node(b, "Shape", "shape", "x", "s");
    mb_node(b, "Expand", "e", "z,s", "y");
    mb_output(b, "y");
    expect_fail(&dyn_seq, "node e (Expand): cannot broadcast dimension 1 of 'z' to seq");
}
END_TEST

/* ---- ORT-GenAI attention-mask subgraphs (ortgenai-ops.md section 1.4) ------------------------------- */

static const DimSetting genai_fix[] = {{"batch_size", 1}};
static const DimSetting genai_dims[] = {{"total_sequence_length", 512}};
static const ImportOptions genai_opt = {genai_fix, 1, genai_dims, 1};

START_TEST(genai_mask_subgraph_standard) {
    mb_input(b, "attention_mask", TI64, "batch_size,total_sequence_length");
    mb_init_i64(b, "axes1", 1, (int64_t[]){1});
    mb_init_i64(b, "one", 1, (int64_t[]){1});
    mb_init_i64(b, "idx1", -1, (int64_t[]){1});
    mb_attr_i(b, mb_node(b, "ReduceSum", "rs", "attention_mask,axes1", "sum"), "keepdims", 0);
    mb_node(b, "Sub", "sub", "sum,one", "sm1");
    mb_attr_i(b, mb_node(b, "Cast", "sub_cast", "sm1", "seqlens_k"), "to", TI32);
    mb_node(b, "Shape", "shape", "attention_mask", "ms");
    mb_attr_i(b, mb_node(b, "Gather", "gather", "ms,idx1", "width"), "axis", 0);
    mb_attr_i(b, mb_node(b, "Cast", "gather_cast", "width", "total_sequence_length"), "to", TI32);
    mb_output(b, "seqlens_k");
    mb_output(b, "total_sequence_length");
    expect_ok(&genai_opt);
    ck_assert_str_eq(type_of(g, output("seqlens_k")), "int32[1]");
    ck_assert_str_eq(type_of(g, output("total_sequence_length")), "int32[]");
    /* total = reduceMax(slice(int32 [1..512], [total_sequence_length])) */
    Node *rm = producer(output("total_sequence_length"));
    ck_assert_int_eq(rm->op, OP_REDUCE_MAX);
    Node *sl = rm->inputs[0]->producer;
    ck_assert_int_eq(sl->op, OP_SLICE);
    ck_assert_str_eq(dims_of(g, sl, "sizes"), "total_sequence_length");
    ck_assert_str_eq(type_of(g, sl->inputs[0]), "int32[512]");
    ck_assert_int_eq(i64_at(sl->inputs[0], 511), 512);
    ck_assert_int_eq(count_op(g, OP_REDUCE_SUM), 1);
    ck_assert_int_eq(graph_verify(g, VERIFY_SPEC_ONLY | VERIFY_EXPORTABLE), 0);
}
END_TEST

START_TEST(genai_mask_subgraph_webgpu_capture) {
    mb_input(b, "attention_mask", TI64, "batch_size,total_sequence_length");
    mb_init_i64(b, "axes1", 1, (int64_t[]){1});
    int32_t one = 1;
    mb_init(b, "one32", TI32, "1", &one, sizeof one);
    mb_attr_i(b, mb_node(b, "Cast", "cast", "attention_mask", "m32"), "to", TI32);
    mb_attr_i(b, mb_node(b, "ReduceSum", "rs", "m32,axes1", "sum"), "keepdims", 0);
    mb_node(b, "Sub", "sub", "sum,one32", "seqlens_k");
    mb_attr_i(b, mb_node(b, "ReduceMax", "rm", "sum", "total_sequence_length"), "keepdims", 0);
    mb_output(b, "seqlens_k");
    mb_output(b, "total_sequence_length");
    expect_ok(&genai_opt);
    ck_assert_str_eq(type_of(g, output("seqlens_k")), "int32[1]");
    ck_assert_str_eq(type_of(g, output("total_sequence_length")), "int32[]");
    ck_assert_int_eq(count_op(g, OP_REDUCE_SUM), 1);
    ck_assert_int_eq(count_op(g, OP_REDUCE_MAX), 1);
    ck_assert_int_eq(graph_verify(g, VERIFY_SPEC_ONLY | VERIFY_EXPORTABLE), 0);
}
END_TEST

/* ---- If (ops_control.c) ------------------------------------------------------------------------------ */

/* A branch graph with one Constant node producing float32[2] {a, b} as output `out`. */
typedef struct {
    Onnx__GraphProto graph;
    Onnx__NodeProto node, *nodes[1];
    Onnx__AttributeProto attr, *attrs[1];
    Onnx__TensorProto tensor;
    Onnx__ValueInfoProto out, *outs[1];
    int64_t dims[1];
    float vals[2];
    char *node_out[1];
    const char *op;
} Branch;

static Branch then_b, else_b;
static Onnx__AttributeProto then_a, else_a;

static void branch_init(Branch *br, const char *op, const char *out, float a, float b2) {
    memset(br, 0, sizeof *br);
    onnx__graph_proto__init(&br->graph);
    onnx__node_proto__init(&br->node);
    onnx__attribute_proto__init(&br->attr);
    onnx__tensor_proto__init(&br->tensor);
    onnx__value_info_proto__init(&br->out);
    br->vals[0] = a;
    br->vals[1] = b2;
    br->dims[0] = 2;
    br->tensor.n_dims = 1;
    br->tensor.dims = br->dims;
    br->tensor.has_data_type = 1;
    br->tensor.data_type = TF32;
    br->tensor.n_float_data = 2;
    br->tensor.float_data = br->vals;
    br->attr.name = "value";
    br->attr.has_type = 1;
    br->attr.type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR;
    br->attr.t = &br->tensor;
    br->attrs[0] = &br->attr;
    br->node.op_type = (char *)op;
    br->node.n_attribute = 1;
    br->node.attribute = br->attrs;
    br->node_out[0] = (char *)out;
    br->node.n_output = 1;
    br->node.output = br->node_out;
    br->nodes[0] = &br->node;
    br->graph.n_node = 1;
    br->graph.node = br->nodes;
    br->out.name = (char *)out;
    br->outs[0] = &br->out;
    br->graph.n_output = 1;
    br->graph.output = br->outs;
    br->graph.name = "branch";
}

static void add_if(const char *cond, const char *then_op) {
    Onnx__NodeProto *n = mb_node(b, "If", "rope_if", cond, "cos_cache");
    branch_init(&then_b, then_op, "large", 10, 20);
    branch_init(&else_b, "Constant", "small", 1, 2);
    Onnx__AttributeProto *as[2] = {&then_a, &else_a};
    Branch *bs[2] = {&then_b, &else_b};
    const char *names[2] = {"then_branch", "else_branch"};
    for (int i = 0; i < 2; i++) {
        onnx__attribute_proto__init(as[i]);
        as[i]->name = (char *)names[i];
        as[i]->has_type = 1;
        as[i]->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH;
        as[i]->g = &bs[i]->graph;
    }
    static Onnx__AttributeProto *list[2];
    list[0] = &then_a;
    list[1] = &else_a;
    n->n_attribute = 2;
    n->attribute = list;
}

static const float *f32s(const Value *v) {
    ck_assert_msg(v->flags & VF_CONST, "%s is not a constant", v->name);
    return v->data;
}

/* If(Greater(attention_mask width, threshold)) with Constant branches (add_if), imported with the
 * GenAI options; returns what cos_cache holds (past a trailing identity). */
static Value *if_on_mask_width(int64_t threshold) {
    mb_input(b, "attention_mask", TI64, "batch_size,total_sequence_length");
    mb_init_i64(b, "idx1", -1, (int64_t[]){1});
    mb_init_i64(b, "orig", -1, (int64_t[]){threshold});
    mb_node(b, "Shape", "shape", "attention_mask", "ms");
    mb_node(b, "Gather", "gather", "ms,idx1", "width");
    mb_node(b, "Greater", "greater", "width,orig", "large");
    add_if("large", "Constant");
    mb_output(b, "cos_cache");
    expect_ok(&genai_opt);
    Value *v = output("cos_cache");
    return v->producer && v->producer->op == OP_IDENTITY ? v->producer->inputs[0] : v;
}

START_TEST(if_decided_from_bounds_picks_else) {
    /* Greater(mask width, 4096) with total_sequence_length <= 512: always the else branch. */
    Value *src = if_on_mask_width(4096);
    ck_assert_str_eq(type_of(g, src), "float32[2]");
    ck_assert(f32s(src)[0] == 1 && f32s(src)[1] == 2);
}
END_TEST

START_TEST(if_decided_true_picks_then) {
    Value *src = if_on_mask_width(0);
    ck_assert(f32s(src)[0] == 10 && f32s(src)[1] == 20);
}
END_TEST

START_TEST(if_runtime_condition_becomes_where) {
    mb_input(b, "c", TBOOL, "");
    add_if("c", "Constant");
    mb_output(b, "cos_cache");
    expect_ok(NULL);
    Node *w = producer(output("cos_cache"));
    ck_assert_int_eq(w->op, OP_WHERE);
    ck_assert(f32s(w->inputs[1])[0] == 10);
    ck_assert(f32s(w->inputs[2])[0] == 1);
}
END_TEST

START_TEST(if_with_computing_branch_is_refused) {
    mb_input(b, "c", TBOOL, "");
    add_if("c", "Relu");
    mb_output(b, "cos_cache");
    expect_fail(NULL, "node rope_if (If): If branch then_branch holds a Relu node");
}
END_TEST

/* ---- genai_config.json ----------------------------------------------------------------------------- */

static char cfg_path[64];

static void write_cfg(const char *text) {
    strcpy(cfg_path, "/tmp/webnnc_genai_XXXXXX");
    int fd = mkstemp(cfg_path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
}

START_TEST(genai_config_defaults_and_precedence) {
    write_cfg("{\"model\": {\"context_length\": 2048, \"decoder\": {\"head_size\": 64}}, \"search\": {\"max_length\": 512}}");
    GenaiConfig cfg;
    ck_assert_int_eq(onnx_genai_config_read(cfg_path, &cfg), 0);
    unlink(cfg_path);
    ck_assert_int_eq(cfg.max_length, 512);
    ck_assert_int_eq(cfg.head_size, 64);
    DimSetting user_fix[1] = {{"sequence_length", 1}}, user_dim[1] = {{"batch_size", 4}};
    DimSetting fix[8], dim[8];
    int nf = 0, nd = 0;
    onnx_genai_default_dims(&cfg, user_fix, 1, user_dim, 1, fix, &nf, dim, &nd, 8);
    ck_assert_int_eq(nf, 1); /* kv_cache_dim; batch_size was given as --dim */
    ck_assert_str_eq(fix[0].name, "kv_cache_dim");
    ck_assert_int_eq(fix[0].value, 64);
    ck_assert_int_eq(nd, 4); /* every sequence-like dim but the user's sequence_length */
    for (int i = 0; i < nd; i++) {
        ck_assert_str_ne(dim[i].name, "sequence_length");
        ck_assert_int_eq(dim[i].value, 512);
    }
    ck_assert_str_eq(dim[0].name, "total_sequence_length");
    nf = nd = 0;
    onnx_genai_default_dims(&cfg, NULL, 0, NULL, 0, fix, &nf, dim, &nd, 8);
    ck_assert_str_eq(fix[0].name, "batch_size");
    ck_assert_int_eq(fix[0].value, 1);
}
END_TEST

START_TEST(genai_config_context_length_fallback_and_errors) {
    write_cfg("{\"model\": {\"context_length\": 128}}");
    GenaiConfig cfg;
    ck_assert_int_eq(onnx_genai_config_read(cfg_path, &cfg), 0);
    unlink(cfg_path);
    ck_assert_int_eq(cfg.max_length, 128);
    ck_assert_int_eq(cfg.head_size, 0);
    write_cfg("{\"search\": {\"max_length\": -3}}");
    diag_clear();
    ck_assert_int_eq(onnx_genai_config_read(cfg_path, &cfg), -1);
    ck_assert_msg(strstr(diag_message(), "search.max_length must be a positive integer"), "%s", diag_message());
    unlink(cfg_path);
    write_cfg("[1, 2");
    diag_clear();
    ck_assert_int_eq(onnx_genai_config_read(cfg_path, &cfg), -1);
    ck_assert_msg(strstr(diag_message(), "not a JSON object"), "%s", diag_message());
    unlink(cfg_path);
    diag_clear();
}
END_TEST

static Suite *suite(void) {
    Suite *s = suite_create("onnx_shape_expr");
    TCase *tc = tcase_create("shape_expr");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, dims_affine_normal_form);
    tcase_add_test(tc, shape_gather_concat_feeds_reshape);
    tcase_add_test(tc, reshape_zero_and_minus_one_with_symbolic_count);
    tcase_add_test(tc, arithmetic_max_equal_where_on_shapes);
    tcase_add_test(tc, slice_with_symbolic_end_and_size);
    tcase_add_test(tc, range_and_constant_of_shape_consume_symbols);
    tcase_add_test(tc, folding_through_symbolic_dims);
    tcase_add_test(tc, size_and_data_use_materialize);
    tcase_add_test(tc, symbolic_shape_output_is_materialized);
    tcase_add_test(tc, static_shape_is_still_a_constant);
    tcase_add_test(tc, undecidable_broadcast_is_an_error);
    tcase_add_test(tc, genai_mask_subgraph_standard);
    tcase_add_test(tc, genai_mask_subgraph_webgpu_capture);
    tcase_add_test(tc, if_decided_from_bounds_picks_else);
    tcase_add_test(tc, if_decided_true_picks_then);
    tcase_add_test(tc, if_runtime_condition_becomes_where);
    tcase_add_test(tc, if_with_computing_branch_is_refused);
    tcase_add_test(tc, genai_config_defaults_and_precedence);
    tcase_add_test(tc, genai_config_context_length_fallback_and_errors);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run_suite(suite()); }
