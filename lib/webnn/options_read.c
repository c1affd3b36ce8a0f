/* options_read.c - a node's JSON "options" typed by its op's schema (ops.def): schema keys
 * become attributes, keys naming an optional operand slot (e.g. layerNormalization "scale",
 * gemm "c", conv2d "bias") resolve to operands, "label" is ignored, anything else is an error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader.h"

static const char *type_words(AttrType t) {
    switch (t) {
    case AT_INT: return "an integer";
    case AT_UINT: return "a non-negative integer";
    case AT_FLOAT: return "a finite number";
    case AT_BOOL: return "a boolean";
    case AT_STRING: return "a string";
    case AT_DTYPE: return "a data type name";
    case AT_INTS: return "an array of non-negative integers";
    case AT_FLOATS: return "an array of finite numbers";
    case AT_STRINGS: return "an array of strings";
    case AT_DIMS: return "an array of dimensions";
    case AT_SPLITS: return "a non-negative integer or an array of them";
    }
    return "?";
}

static bool json_uint(const cJSON *j, int64_t *out) { return wn_json_int(j, out) && *out >= 0; }

static bool json_finite(const cJSON *j, double *out) {
    if (!cJSON_IsNumber(j)) return false;
    double d = j->valuedouble;
    if (!(d - d == 0)) return false; /* inf/nan (cJSON maps overflow to inf) */
    *out = d;
    return true;
}

/* Array items into a malloc'ed buffer of `size` bytes each, via `get`; NULL when not an array
 * or an item does not convert.  *count gets the length. */
static void *read_array(const cJSON *j, size_t size, int *count, bool (*get)(const cJSON *, void *)) {
    if (!cJSON_IsArray(j)) return NULL;
    int n = cJSON_GetArraySize(j);
    unsigned char *buf = malloc(size * (size_t)(n > 0 ? n : 1));
    if (!buf) abort();
    int i = 0;
    for (const cJSON *it = j->child; it; it = it->next, i++) {
        if (i >= n || !get(it, buf + size * (size_t)i)) {
            free(buf);
            return NULL;
        }
    }
    *count = i;
    return buf;
}

static bool get_uint(const cJSON *j, void *out) { return json_uint(j, out); }
static bool get_float(const cJSON *j, void *out) { return json_finite(j, out); }
static bool get_string(const cJSON *j, void *out) {
    if (!cJSON_IsString(j)) return false;
    *(const char **)out = j->valuestring;
    return true;
}

static int read_dims(ReadCtx *c, Node *n, const char *id, const char *key, const cJSON *j) {
    if (!cJSON_IsArray(j)) return 1;
    int count = cJSON_GetArraySize(j);
    Dim *dims = malloc(sizeof *dims * (size_t)(count > 0 ? count : 1));
    if (!dims) abort();
    char what[320];
    snprintf(what, sizeof what, "node '%s': option '%s'", id, key);
    int i = 0;
    for (const cJSON *it = j->child; it && i < count; it = it->next, i++) {
        if (wn_read_dim(c, it, true, what, &dims[i])) {
            free(dims);
            return -1;
        }
    }
    node_set_dims(c->g, n, key, i, dims);
    free(dims);
    return 0;
}

/* 0 ok, 1 wrong type (caller reports), -1 error already reported. */
static int read_typed(ReadCtx *c, Node *n, const char *id, const OpOptionSlot *slot, const cJSON *j) {
    Graph *g = c->g;
    const char *key = slot->key;
    int64_t i;
    double f;
    int count;
    void *arr;
    switch (slot->type) {
    case AT_INT:
        if (!wn_json_int(j, &i)) return 1;
        node_set_int(g, n, key, i);
        return 0;
    case AT_UINT:
        if (!json_uint(j, &i)) return 1;
        node_set_uint(g, n, key, i);
        return 0;
    case AT_FLOAT:
        if (!json_finite(j, &f)) return 1;
        node_set_float(g, n, key, f);
        return 0;
    case AT_BOOL:
        if (!cJSON_IsBool(j)) return 1;
        node_set_bool(g, n, key, cJSON_IsTrue(j));
        return 0;
    case AT_STRING:
        if (!cJSON_IsString(j)) return 1;
        node_set_string(g, n, key, j->valuestring);
        return 0;
    case AT_DTYPE: {
        if (!cJSON_IsString(j)) return 1;
        DType dt = dtype_from_name(j->valuestring);
        if (dt == DT_INVALID) {
            wn_rd_error(c, "node '%s': option '%s': unknown data type '%s'", id, key, j->valuestring);
            return -1;
        }
        node_set_dtype(g, n, key, dt);
        return 0;
    }
    case AT_SPLITS:
        if (json_uint(j, &i)) {
            node_set_uint(g, n, key, i);
            return 0;
        }
        __attribute__((fallthrough)); /* an array of sizes */
    case AT_INTS:
        if (!(arr = read_array(j, sizeof(int64_t), &count, get_uint))) return 1;
        node_set_ints(g, n, key, count, arr);
        free(arr);
        return 0;
    case AT_FLOATS:
        if (!(arr = read_array(j, sizeof(double), &count, get_float))) return 1;
        node_set_floats(g, n, key, count, arr);
        free(arr);
        return 0;
    case AT_STRINGS:
        if (!(arr = read_array(j, sizeof(const char *), &count, get_string))) return 1;
        node_set_strings(g, n, key, count, arr);
        free(arr);
        return 0;
    case AT_DIMS:
        return read_dims(c, n, id, key, j);
    }
    return 1;
}

/* Index of the operand slot named `key`, or -1.  Any non-variadic operand may be given as an
 * option by name (the writers do so for every operand after an absent one, graph_form.h). */
static int operand_slot(const OpInfo *info, const char *key) {
    for (int i = 0; i < info->n_inputs; i++)
        if (!info->inputs[i].variadic && strcmp(info->inputs[i].name, key) == 0) return i;
    return -1;
}

int wn_read_node_options(ReadCtx *c, Node *n, const char *id, const cJSON *options, Value **slots, int npos) {
    const OpInfo *info = op_info(n->op);
    if (!options || cJSON_IsNull(options)) return 0;
    if (!cJSON_IsObject(options)) {
        wn_rd_error(c, "node '%s': \"options\" must be an object", id);
        return -1;
    }
    for (const cJSON *o = options->child; o; o = o->next) {
        const char *key = o->string;
        for (const cJSON *p = options->child; p != o; p = p->next)
            if (strcmp(p->string, key) == 0) {
                wn_rd_error(c, "node '%s': option '%s' appears twice", id, key);
                return -1;
            }
        int slot = operand_slot(info, key);
        if (slot >= 0) {
            Value *v = cJSON_IsString(o) ? wn_name_map_get(&c->values, o->valuestring) : NULL;
            if (!v) {
                wn_rd_error(c, "node '%s': option '%s' must name an operand defined earlier%s%s", id, key,
                         cJSON_IsString(o) ? ", not " : "", cJSON_IsString(o) ? o->valuestring : "");
                return -1;
            }
            if (slot < npos || slots[slot]) {
                wn_rd_error(c, "node '%s': operand '%s' is given both positionally and as an option", id, key);
                return -1;
            }
            slots[slot] = v;
            continue;
        }
        if (strcmp(key, "label") == 0) continue;
        int idx = op_option_index(info, key);
        if (idx < 0) {
            wn_rd_error(c, "node '%s': unknown option '%s' for op %s", id, key, info->name);
            return -1;
        }
        int rc = read_typed(c, n, id, &info->options[idx], o);
        if (rc > 0) wn_rd_error(c, "node '%s': option '%s' must be %s", id, key, type_words(info->options[idx].type));
        if (rc) return -1;
    }
    for (int i = 0; i < info->n_options; i++) {
        if (info->options[i].required && !node_attr(n, info->options[i].key)) {
            wn_rd_error(c, "node '%s': required option '%s' is missing", id, info->options[i].key);
            return -1;
        }
    }
    return 0;
}
