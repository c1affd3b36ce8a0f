/* graph_json_read.c - webnn-graph JSON -> IR.  Validates the whole file (format/version, data
 * types, shapes, constant inits, op names from ops.def, topological references, typed options,
 * unique names, outputs) and builds the graph through the IR construction API, so every node is
 * checked by shape inference.  Values are created in file order: inputs, consts, then nodes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "graph_json_kv.h"
#include "reader.h"
#include "tensor_codec.h"
#include "webnn_io.h"

/* Adds a value name (JSON spelling) to the scope; -1 + diagnostic on a duplicate. */
static int define(ReadCtx *c, const char *name, Value *v) {
    if (wn_name_map_put(&c->values, name, v)) return 0;
    wn_rd_error(c, "name '%s' is defined twice", name);
    return -1;
}

static DType read_dtype(ReadCtx *c, const cJSON *desc, const char *what, const char *name) {
    const cJSON *dt = cJSON_GetObjectItemCaseSensitive(desc, "dataType");
    DType t = cJSON_IsString(dt) ? dtype_from_name(dt->valuestring) : DT_INVALID;
    if (t == DT_INVALID)
        wn_rd_error(c, "%s '%s': \"dataType\" %s%s%s", what, name, cJSON_IsString(dt) ? "'" : "is missing or not a string",
                 cJSON_IsString(dt) ? dt->valuestring : "", cJSON_IsString(dt) ? "' is not a WebNN data type" : "");
    return t;
}

static int read_shape(ReadCtx *c, const cJSON *desc, bool dynamic, const char *what, const char *name, int *rank, Dim *dims) {
    const cJSON *shape = cJSON_GetObjectItemCaseSensitive(desc, "shape");
    if (!cJSON_IsArray(shape)) {
        wn_rd_error(c, "%s '%s': \"shape\" is missing or not an array", what, name);
        return -1;
    }
    if (cJSON_GetArraySize(shape) > WN_MAX_RANK) {
        wn_rd_error(c, "%s '%s': rank %d is above the maximum %d", what, name, cJSON_GetArraySize(shape), WN_MAX_RANK);
        return -1;
    }
    char where[320];
    snprintf(where, sizeof where, "%s '%s'", what, name);
    int r = 0;
    for (const cJSON *d = shape->child; d; d = d->next)
        if (wn_read_dim(c, d, dynamic, where, &dims[r++])) return -1;
    *rank = r;
    return 0;
}

static int read_inputs(ReadCtx *c, const cJSON *inputs) {
    if (!cJSON_IsObject(inputs)) {
        wn_rd_error(c, "\"inputs\" is missing or not an object");
        return -1;
    }
    for (const cJSON *in = inputs->child; in; in = in->next) {
        Dim dims[WN_MAX_RANK];
        int rank;
        DType dt = read_dtype(c, in, "input", in->string);
        if (dt == DT_INVALID || read_shape(c, in, true, "input", in->string, &rank, dims)) return -1;
        if (wn_shape_elements(c, rank, dims, in->string) < 0) return -1;
        if (define(c, in->string, graph_add_input(c->g, in->string, dt, rank, dims))) return -1;
    }
    return 0;
}

/* Builds the bytes of a scalar or inlineBytes constant in the graph's arena. */
static void *const_bytes(ReadCtx *c, const char *name, const cJSON *init, const char *kind, DType dt,
                         uint64_t elements, uint64_t *nbytes) {
    *nbytes = dtype_storage_bytes(dt, elements);
    if (!strcmp(kind, "scalar")) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(init, "value");
        if (!cJSON_IsNumber(v) || !wn_scalar_fits(dt, v->valuedouble)) {
            wn_rd_error(c, "const '%s': scalar \"value\" must be a number that fits %s through float32%s", name,
                     dtype_name(dt), dtype_is_4bit(dt) || dt == DT_I64 || dt == DT_U64 ? " (not allowed for this type)" : "");
            return NULL;
        }
        if (*nbytes > WN_SCALAR_EXPAND_MAX_BYTES) {
            wn_rd_error(c, "const '%s': a scalar constant of %llu bytes is too large to expand", name, (unsigned long long)*nbytes);
            return NULL;
        }
        void *data = graph_alloc(c->g, (size_t)*nbytes);
        wn_tensor_fill_scalar(dt, elements, v->valuedouble, data);
        return data;
    }
    const cJSON *bytes = cJSON_GetObjectItemCaseSensitive(init, "bytes");
    uint64_t want = elements * file_elem_bytes(dt);
    if (!cJSON_IsArray(bytes) || (uint64_t)cJSON_GetArraySize(bytes) != want) {
        wn_rd_error(c, "const '%s': inlineBytes \"bytes\" must be an array of %llu bytes", name, (unsigned long long)want);
        return NULL;
    }
    uint8_t *raw = graph_alloc(c->g, (size_t)want);
    size_t i = 0;
    for (const cJSON *b = bytes->child; b; b = b->next, i++) {
        int64_t v;
        if (!wn_json_int(b, &v) || v < 0 || v > 255) {
            wn_rd_error(c, "const '%s': inlineBytes item %zu is not a byte", name, i);
            return NULL;
        }
        raw[i] = (uint8_t)v;
    }
    if (!dtype_is_4bit(dt)) return raw;
    if (!wn_nibbles_valid(dt, raw, elements)) {
        wn_rd_error(c, "const '%s': inlineBytes hold a byte that is not a %s value", name, dtype_name(dt));
        return NULL;
    }
    uint8_t *packed = graph_alloc(c->g, (size_t)*nbytes);
    wn_nibbles_pack(raw, elements, packed);
    return packed;
}

static int read_const(ReadCtx *c, const cJSON *k) {
    const char *name = k->string;
    Dim dims[WN_MAX_RANK];
    int64_t shape[WN_MAX_RANK];
    int rank;
    DType dt = read_dtype(c, k, "const", name);
    if (dt == DT_INVALID || read_shape(c, k, false, "const", name, &rank, dims)) return -1;
    int64_t elements = wn_shape_elements(c, rank, dims, name);
    if (elements < 0 || !input_limit_ok(LIMIT_TENSOR_ELEMENTS, (uint64_t)elements, c->src, "const element count"))
        return -1;
    for (int i = 0; i < rank; i++) shape[i] = dims[i].v;
    const cJSON *init = cJSON_GetObjectItemCaseSensitive(k, "init");
    const cJSON *kind = cJSON_GetObjectItemCaseSensitive(init, "kind");
    if (!cJSON_IsString(kind)) {
        wn_rd_error(c, "const '%s': \"init\" must be an object with a string \"kind\"", name);
        return -1;
    }
    const void *data = NULL;
    uint64_t nbytes = 0;
    if (!strcmp(kind->valuestring, "weights")) {
        const cJSON *ref = cJSON_GetObjectItemCaseSensitive(init, "ref");
        if (!cJSON_IsString(ref)) {
            wn_rd_error(c, "const '%s': weights \"ref\" is missing or not a string", name);
            return -1;
        }
        if (!c->weights && !(c->weights = wn_weights_open(c))) return -1;
        if (wn_weights_get(c, c->weights, name, ref->valuestring, dt, rank, shape, (uint64_t)elements, &data, &nbytes))
            return -1;
    } else if (!strcmp(kind->valuestring, "scalar") || !strcmp(kind->valuestring, "inlineBytes")) {
        if (!(data = const_bytes(c, name, init, kind->valuestring, dt, (uint64_t)elements, &nbytes))) return -1;
    } else {
        wn_rd_error(c, "const '%s': unknown init kind '%s' (weights, scalar or inlineBytes)", name, kind->valuestring);
        return -1;
    }
    return define(c, name, graph_add_const(c->g, name, dt, rank, shape, data, nbytes));
}

static int read_consts(ReadCtx *c, const cJSON *consts) {
    if (!consts || cJSON_IsNull(consts)) return 0;
    if (!cJSON_IsObject(consts)) {
        wn_rd_error(c, "\"consts\" must be an object");
        return -1;
    }
    for (const cJSON *k = consts->child; k; k = k->next)
        if (read_const(c, k)) return -1;
    return 0;
}

/* Positional operands into slots[]; returns their count or -1. */
static int read_operands(ReadCtx *c, const OpInfo *info, const char *id, const cJSON *inputs, Value ***slots) {
    bool variadic = info->n_inputs == 1 && info->inputs[0].variadic;
    if (inputs && !cJSON_IsNull(inputs) && !cJSON_IsArray(inputs)) {
        wn_rd_error(c, "node '%s': \"inputs\" must be an array of names", id);
        return -1;
    }
    int n = inputs && cJSON_IsArray(inputs) ? cJSON_GetArraySize(inputs) : 0;
    if (!variadic && n > info->n_inputs) {
        wn_rd_error(c, "node '%s': %s takes at most %d operands, got %d", id, info->name, info->n_inputs, n);
        return -1;
    }
    int cap = variadic ? n : info->n_inputs;
    *slots = calloc((size_t)(cap ? cap : 1), sizeof **slots);
    if (!*slots) abort();
    int i = 0;
    for (const cJSON *in = n ? inputs->child : NULL; in && i < n; in = in->next, i++) {
        Value *v = cJSON_IsString(in) ? wn_name_map_get(&c->values, in->valuestring) : NULL;
        if (!v) {
            if (cJSON_IsString(in))
                wn_rd_error(c, "node '%s': input '%s' is not defined before it (inputs, consts and earlier nodes)", id,
                         in->valuestring);
            else
                wn_rd_error(c, "node '%s': input %d is not a string", id, i);
            return -1;
        }
        (*slots)[i] = v;
    }
    return i;
}

/* Output names: "outputs" when given (array of strings), else the id. */
static int read_output_names(ReadCtx *c, const char *id, const cJSON *outputs, const char ***names) {
    if (!outputs || cJSON_IsNull(outputs)) {
        *names = malloc(sizeof **names);
        if (!*names) abort();
        (*names)[0] = id;
        return 1;
    }
    int n = cJSON_IsArray(outputs) ? cJSON_GetArraySize(outputs) : 0;
    if (n < 1) {
        wn_rd_error(c, "node '%s': \"outputs\" must be a non-empty array of names", id);
        return -1;
    }
    *names = calloc((size_t)n, sizeof **names);
    if (!*names) abort();
    int i = 0;
    for (const cJSON *o = outputs->child; o && i < n; o = o->next, i++) {
        if (!cJSON_IsString(o)) {
            wn_rd_error(c, "node '%s': output %d is not a string", id, i);
            return -1;
        }
        (*names)[i] = o->valuestring;
    }
    return i;
}

static int build_node(ReadCtx *c, const cJSON *jn, const char *id, int op, Value **slots, int npos,
                      const char **names, int n_names, bool listed) {
    const OpInfo *info = op_info((OpId)op);
    Graph *g = c->g;
    Node *n = graph_new_node(g, (OpId)op, id);
    if (wn_read_node_options(c, n, id, cJSON_GetObjectItemCaseSensitive(jn, "options"), slots, npos)) return -1;
    bool variadic = info->n_inputs == 1 && info->inputs[0].variadic;
    int count = variadic ? npos : 0;
    for (int i = 0; !variadic && i < info->n_inputs; i++) {
        if (slots[i]) count = i + 1;
        else if (!info->inputs[i].optional) {
            wn_rd_error(c, "node '%s': required operand '%s' of %s is missing", id, info->inputs[i].name, info->name);
            return -1;
        }
    }
    if (variadic && count < 1) {
        wn_rd_error(c, "node '%s': %s needs at least one operand", id, info->name);
        return -1;
    }
    n->inputs = graph_alloc(g, sizeof *n->inputs * (size_t)(count ? count : 1));
    memcpy(n->inputs, slots, sizeof *n->inputs * (size_t)count);
    n->n_inputs = count;
    for (int i = 0; i < n_names; i++)
        if (wn_name_map_get(&c->values, names[i])) {
            wn_rd_error(c, "node '%s': output name '%s' is already defined", id, names[i]);
            return -1;
        }
    /* The id of a node that lists its outputs may equal one of them (a fused qkvProjection with one
     * split keeps the graph output's name as its id): the outputs are named first, so they keep
     * their names, and such an id is the output's name rather than a second reservation of it. */
    bool multi = listed && ((info->flags & OPF_MULTI) || n_names != 1);
    int id_is_output = -1;
    for (int i = 0; multi && i < n_names && id_is_output < 0; i++)
        if (strcmp(names[i], id) == 0) id_is_output = i;
    if (multi && id_is_output < 0) n->id = graph_unique_name(g, id);
    node_set_output_names(g, n, n_names, names);
    if (graph_insert_node(g, n)) return -1;
    if (n->n_outputs != n_names) {
        wn_rd_error(c, "node '%s': %s produces %d outputs but %d %s named", id, info->name, n->n_outputs, n_names,
                 listed ? "are" : "(the id) is");
        return -1;
    }
    if (id_is_output >= 0) n->id = n->outputs[id_is_output]->name;
    for (int i = 0; i < n_names; i++)
        if (define(c, names[i], n->outputs[i])) return -1;
    return 0;
}

static int read_node(ReadCtx *c, const cJSON *jn, int index) {
    const cJSON *jid = cJSON_GetObjectItemCaseSensitive(jn, "id");
    const cJSON *jop = cJSON_GetObjectItemCaseSensitive(jn, "op");
    if (!cJSON_IsString(jid) || !jid->valuestring[0]) {
        wn_rd_error(c, "node %d: \"id\" is missing or not a non-empty string", index);
        return -1;
    }
    const char *id = jid->valuestring;
    if (!wn_name_map_put(&c->node_ids, id, (void *)jn)) {
        wn_rd_error(c, "node id '%s' is used twice", id);
        return -1;
    }
    int op = cJSON_IsString(jop) ? op_from_name(jop->valuestring) : -1;
    if (op < 0) {
        wn_rd_error(c, "unknown op '%s' at node %s", cJSON_IsString(jop) ? jop->valuestring : "(missing)", id);
        return -1;
    }
    Value **slots = NULL;
    const char **names = NULL;
    const cJSON *outputs = cJSON_GetObjectItemCaseSensitive(jn, "outputs");
    int npos = read_operands(c, op_info((OpId)op), id, cJSON_GetObjectItemCaseSensitive(jn, "inputs"), &slots);
    int n_names = npos < 0 ? -1 : read_output_names(c, id, outputs, &names);
    int rc = n_names < 0 ? -1 : build_node(c, jn, id, op, slots, npos, names, n_names, outputs && !cJSON_IsNull(outputs));
    free(slots);
    free(names);
    return rc;
}

static int read_nodes(ReadCtx *c, const cJSON *nodes) {
    if (!cJSON_IsArray(nodes)) {
        wn_rd_error(c, "\"nodes\" is missing or not an array");
        return -1;
    }
    if (!input_limit_ok(LIMIT_NODE_COUNT, (uint64_t)cJSON_GetArraySize(nodes), c->src, "node count")) return -1;
    int i = 0;
    for (const cJSON *jn = nodes->child; jn; jn = jn->next, i++) {
        if (!cJSON_IsObject(jn)) {
            wn_rd_error(c, "node %d is not an object", i);
            return -1;
        }
        if (read_node(c, jn, i)) return -1;
    }
    return 0;
}

static int read_outputs(ReadCtx *c, const cJSON *outputs) {
    if (!cJSON_IsObject(outputs) || !outputs->child) {
        wn_rd_error(c, "\"outputs\" is missing or not a non-empty object");
        return -1;
    }
    for (const cJSON *o = outputs->child; o; o = o->next) {
        Value *v = cJSON_IsString(o) ? wn_name_map_get(&c->values, o->valuestring) : NULL;
        if (!v) {
            wn_rd_error(c, "output '%s' does not name a defined value", o->string);
            return -1;
        }
        if (!(v->flags & VF_OUTPUT)) graph_add_output(c->g, v);
    }
    return 0;
}

static int read_header(ReadCtx *c, const cJSON *root) {
    const cJSON *format = cJSON_GetObjectItemCaseSensitive(root, "format");
    const cJSON *version = cJSON_GetObjectItemCaseSensitive(root, "version");
    const cJSON *quantized = cJSON_GetObjectItemCaseSensitive(root, "quantized");
    int64_t ver;
    if (!cJSON_IsString(format) || strcmp(format->valuestring, "webnn-graph-json") != 0) {
        wn_rd_error(c, "\"format\" is not \"webnn-graph-json\"");
        return -1;
    }
    if (!wn_json_int(version, &ver) || (ver != 1 && ver != 2)) {
        wn_rd_error(c, "\"version\" must be 1 or 2");
        return -1;
    }
    if (quantized && !cJSON_IsBool(quantized)) {
        wn_rd_error(c, "\"quantized\" must be a boolean");
        return -1;
    }
    c->g->quantized = cJSON_IsTrue(quantized);
    return 0;
}

Graph *wn_graph_json_read(const char *json, size_t len, const char *src, const char *dir, const char *stem,
                       unsigned flags) {
    if (!json_within_limits(json, len, src)) return NULL;
    cJSON *root = cJSON_ParseWithLength(json, len);
    if (!cJSON_IsObject(root)) {
        ReadCtx c = {.src = src};
        wn_rd_error(&c, "not a JSON object (malformed or truncated JSON%s)", root ? "" : ", parse failed");
        cJSON_Delete(root);
        return NULL;
    }
    return wn_graph_tree_read(root, src, dir, stem, flags);
}

Graph *wn_graph_tree_read(cJSON *root, const char *src, const char *dir, const char *stem, unsigned flags) {
    ReadCtx c = {.src = src, .dir = dir, .stem = stem, .flags = flags};
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(root, "name");
    c.g = graph_new(cJSON_IsString(name) ? name->valuestring : NULL);
    c.g->source = graph_strdup(c.g, src);
    wn_name_map_init(&c.values);
    wn_name_map_init(&c.node_ids);
    int rc = read_header(&c, root);
    if (!rc) rc = read_inputs(&c, cJSON_GetObjectItemCaseSensitive(root, "inputs"));
    if (!rc) rc = read_consts(&c, cJSON_GetObjectItemCaseSensitive(root, "consts"));
    if (!rc) rc = read_nodes(&c, cJSON_GetObjectItemCaseSensitive(root, "nodes"));
    if (!rc) rc = read_outputs(&c, cJSON_GetObjectItemCaseSensitive(root, "outputs"));
    if (!rc) rc = wn_graph_json_read_kv(&c, cJSON_GetObjectItemCaseSensitive(root, "webnnc"));
    wn_name_map_free(&c.values);
    wn_name_map_free(&c.node_ids);
    cJSON_Delete(root);
    if (rc) {
        if (!diag_has_error()) diag_error("%s: invalid graph", src);
        graph_free(c.g);
        return NULL;
    }
    return c.g;
}
