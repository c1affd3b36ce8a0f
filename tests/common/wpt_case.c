/* wpt_case.c - builds IR graphs from WebNN WPT conformance cases (JSON converted from the WPT
 * .https.any.js files): graph inputs (constants or inputs with data, scalar data = fill),
 * operators (positional operand arguments, literal arguments and options typed by the op table,
 * operands named inside options), expected outputs, and tolerance (wpt_tolerance.c).
 * Encodings: integers may be strings ("123", BigInt literals "123n"); non-finite numbers are the
 * tags "Infinity", "-Infinity", "NaN" (the corpus's conversion lost them as null, which is
 * rejected; wpt_restore.c puts the tags back from testdata/wpt/nonfinite_restore.json). */
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "wpt_case.h"
#include "wpt_tolerance.h"

#define MAX_FILE_BYTES (64u << 20)
#define MAX_ELEMENTS (1 << 26)

struct WptFile {
    char *stem;
    cJSON *root;
    cJSON *tests;
    const char *operation;
};

/* ---- file ---------------------------------------------------------------------------------- */

static char *read_file(const char *path) {
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        diag_error("%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    char *buf = NULL;
    long size = -1;
    if (fseek(fp, 0, SEEK_END) == 0) size = ftell(fp);
    if (size < 0 || (unsigned long)size > MAX_FILE_BYTES || fseek(fp, 0, SEEK_SET) != 0) {
        diag_error("%s: cannot read (size %ld)", path, size);
    } else if ((buf = malloc((size_t)size + 1)) && fread(buf, 1, (size_t)size, fp) == (size_t)size) {
        buf[size] = 0;
    } else {
        diag_error("%s: read failed", path);
        free(buf);
        buf = NULL;
    }
    fclose(fp);
    return buf;
}

WptFile *wpt_file_load(const char *path) {
    char *text = read_file(path);
    if (!text) return NULL;
    cJSON *root = cJSON_Parse(text);
    free(text);
    cJSON *tests = root ? cJSON_GetObjectItemCaseSensitive(root, "tests") : NULL;
    if (!cJSON_IsArray(tests)) {
        diag_error("%s: not a WPT case file (no \"tests\" array)", path);
        cJSON_Delete(root);
        return NULL;
    }
    WptFile *f = calloc(1, sizeof *f);
    if (!f) abort();
    const char *base = strrchr(path, '/');
    f->stem = strdup(base ? base + 1 : path);
    if (!f->stem) abort();
    char *dot = strrchr(f->stem, '.');
    if (dot) *dot = 0;
    f->root = root;
    f->tests = tests;
    cJSON *op = cJSON_GetObjectItemCaseSensitive(root, "operation");
    f->operation = cJSON_IsString(op) ? op->valuestring : f->stem;
    return f;
}

void wpt_file_free(WptFile *f) {
    if (!f) return;
    cJSON_Delete(f->root);
    free(f->stem);
    free(f);
}

int wpt_file_case_count(const WptFile *f) { return cJSON_GetArraySize(f->tests); }
const char *wpt_file_operation(const WptFile *f) { return f->operation; }
const char *wpt_file_stem(const WptFile *f) { return f->stem; }
cJSON *wpt_file_case_json(const WptFile *f, int index) { return cJSON_GetArrayItem(f->tests, index); }

const char *wpt_file_case_name(const WptFile *f, int index) {
    cJSON *c = cJSON_GetArrayItem(f->tests, index);
    cJSON *name = c ? cJSON_GetObjectItemCaseSensitive(c, "name") : NULL;
    return cJSON_IsString(name) ? name->valuestring : "?";
}

/* ---- values -------------------------------------------------------------------------------- */

bool wpt_nonfinite_tag(const char *s, double *value) {
    static const struct {
        const char *tag;
        double value;
    } tags[] = {{"Infinity", INFINITY}, {"-Infinity", -INFINITY}, {"NaN", NAN}};
    for (size_t i = 0; s && i < sizeof tags / sizeof *tags; i++)
        if (strcmp(s, tags[i].tag) == 0) {
            if (value) *value = tags[i].value;
            return true;
        }
    return false;
}

/* An integer literal as the corpus writes them in strings: -?[0-9]+, optionally with BigInt's "n". */
static bool integer_literal(const char *s) {
    if (*s == '-') s++;
    size_t digits = strspn(s, "0123456789");
    return digits > 0 && (s[digits] == 0 || (s[digits] == 'n' && s[digits + 1] == 0));
}

/* A JSON scalar as double: numbers, integer strings ("123", "123n") and the non-finite tags;
 * false for null and any other string. */
static bool json_double(const cJSON *j, double *out) {
    if (cJSON_IsNumber(j)) {
        *out = j->valuedouble;
        return true;
    }
    if (!cJSON_IsString(j)) return false;
    if (wpt_nonfinite_tag(j->valuestring, out)) return true;
    if (!integer_literal(j->valuestring)) return false;
    *out = strtod(j->valuestring, NULL);
    return true;
}

/* A JSON scalar as an exact 64-bit integer (BigInt strings parsed exactly). */
static bool wn_json_int(const cJSON *j, bool is_unsigned, int64_t *out) {
    if (cJSON_IsNumber(j)) {
        double d = j->valuedouble;
        if (!(d >= -0x1p63 && d < 0x1p64)) return false;
        *out = d >= 0x1p63 ? (int64_t)(uint64_t)d : (int64_t)d;
        return true;
    }
    if (!cJSON_IsString(j)) return false;
    char *end;
    errno = 0;
    if (is_unsigned && j->valuestring[0] != '-') *out = (int64_t)strtoull(j->valuestring, &end, 10);
    else *out = strtoll(j->valuestring, &end, 10);
    return errno == 0 && end != j->valuestring && (*end == 0 || (*end == 'n' && end[1] == 0));
}

/* Shape from a descriptor; returns the element count or -1 with a diagnostic. */
static int64_t parse_desc(const cJSON *desc, const char *what, DType *dt, int *rank, int64_t *shape) {
    const cJSON *sh = cJSON_GetObjectItemCaseSensitive(desc, "shape");
    const cJSON *ty = cJSON_GetObjectItemCaseSensitive(desc, "dataType");
    if (!cJSON_IsArray(sh) || !cJSON_IsString(ty) || (*dt = dtype_from_name(ty->valuestring)) == DT_INVALID) {
        diag_error("%s: bad descriptor", what);
        return -1;
    }
    *rank = cJSON_GetArraySize(sh);
    if (*rank > WN_MAX_RANK) {
        diag_error("%s: rank %d too large", what, *rank);
        return -1;
    }
    int64_t count = 1;
    for (int i = 0; i < *rank; i++) {
        const cJSON *d = cJSON_GetArrayItem(sh, i);
        if (!cJSON_IsNumber(d) || d->valuedouble < 1 || d->valuedouble > MAX_ELEMENTS) {
            diag_error("%s: bad dimension %d", what, i);
            return -1;
        }
        shape[i] = (int64_t)d->valuedouble;
        count *= shape[i];
        if (count > MAX_ELEMENTS) {
            diag_error("%s: too many elements", what);
            return -1;
        }
    }
    return count;
}

/* Element k of `data` (array, or a scalar meaning fill); NULL when missing. */
static const cJSON *element(const cJSON *data, int64_t k) {
    return cJSON_IsArray(data) ? cJSON_GetArrayItem(data, (int)k) : data;
}

static bool check_data_count(const cJSON *data, int64_t count, const char *what) {
    if (cJSON_IsArray(data) ? cJSON_GetArraySize(data) == count : (cJSON_IsNumber(data) || cJSON_IsString(data)))
        return true;
    diag_error("%s: data has %d elements, shape needs %lld", what,
               cJSON_IsArray(data) ? cJSON_GetArraySize(data) : -1, (long long)count);
    return false;
}

/* Encodes JSON data into IR layout bytes for dtype dt. */
static void *encode(Graph *g, const cJSON *data, DType dt, int64_t count, uint64_t *nbytes, const char *what) {
    if (!check_data_count(data, count, what)) return NULL;
    *nbytes = dtype_storage_bytes(dt, (uint64_t)count);
    unsigned char *out = graph_alloc(g, (size_t)*nbytes + 1);
    for (int64_t k = 0; k < count; k++) {
        const cJSON *e = element(data, k);
        double d = 0;
        int64_t v = 0;
        bool ok = dtype_is_float(dt) ? json_double(e, &d) : wn_json_int(e, !dtype_is_signed(dt), &v);
        if (!ok) {
            diag_error("%s: element %lld is not a number (null: an Infinity/NaN the JSON conversion lost?)", what,
                       (long long)k);
            return NULL;
        }
        switch (dt) {
        case DT_F32: { float x = (float)d; memcpy(out + k * 4, &x, 4); break; }
        case DT_F16: { uint16_t h = wpt_to_half(d); memcpy(out + k * 2, &h, 2); break; }
        case DT_I32:
        case DT_U32: { uint32_t x = (uint32_t)v; memcpy(out + k * 4, &x, 4); break; }
        case DT_I64:
        case DT_U64: memcpy(out + k * 8, &v, 8); break;
        case DT_I8:
        case DT_U8: out[k] = (unsigned char)v; break;
        case DT_I4:
        case DT_U4: out[k / 2] |= (unsigned char)((v & 15) << ((k & 1) * 4)); break;
        default: return NULL;
        }
    }
    return out;
}

/* ---- operands by name ---------------------------------------------------------------------- */

typedef struct {
    const char *name;
    Value *value;
} Named;

typedef struct {
    WptCase *c;
    Named *names;
    int n_names, cap;
} Builder;

static void bind(Builder *b, const char *name, Value *v) {
    if (b->n_names == b->cap) {
        b->cap = b->cap ? b->cap * 2 : 16;
        b->names = realloc(b->names, sizeof *b->names * (size_t)b->cap);
        if (!b->names) abort();
    }
    b->names[b->n_names++] = (Named){name, v};
}

static Value *lookup(const Builder *b, const char *name) {
    for (int i = b->n_names - 1; i >= 0; i--)
        if (strcmp(b->names[i].name, name) == 0) return b->names[i].value;
    return NULL;
}

/* ---- inputs -------------------------------------------------------------------------------- */

static int add_inputs(Builder *b, const cJSON *inputs) {
    Graph *g = b->c->g;
    int n = cJSON_GetArraySize(inputs);
    b->c->inputs = graph_alloc(g, sizeof *b->c->inputs * (size_t)(n ? n : 1));
    for (const cJSON *in = inputs ? inputs->child : NULL; in; in = in->next) {
        DType dt;
        int rank;
        int64_t shape[WN_MAX_RANK];
        int64_t count = parse_desc(cJSON_GetObjectItemCaseSensitive(in, "descriptor"), in->string, &dt, &rank, shape);
        if (count < 0) return -1;
        uint64_t nbytes;
        void *data = encode(g, cJSON_GetObjectItemCaseSensitive(in, "data"), dt, count, &nbytes, in->string);
        if (!data) return -1;
        Value *v;
        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(in, "constant"))) {
            v = graph_add_const(g, in->string, dt, rank, shape, data, nbytes);
        } else {
            Dim dims[WN_MAX_RANK];
            for (int i = 0; i < rank; i++) dims[i] = dim_static(shape[i]);
            v = graph_add_input(g, in->string, dt, rank, dims);
            b->c->inputs[b->c->n_inputs++] = (WptInput){v, data, nbytes};
        }
        bind(b, in->string, v);
    }
    return 0;
}

/* ---- operators ----------------------------------------------------------------------------- */

static int input_slot(const OpInfo *info, const char *key) {
    for (int i = 0; i < info->n_inputs; i++)
        if (strcmp(info->inputs[i].name, key) == 0) return i;
    return -1;
}

/* Sets option `key` of n from JSON value j, typed by the op's schema. */
static int set_option(Graph *g, Node *n, const OpInfo *info, const char *key, const cJSON *j) {
    if (info->id == OP_CAST && (!strcmp(key, "type") || !strcmp(key, "dataType"))) key = "to";
    int oi = op_option_index(info, key);
    if (oi < 0) {
        diag_error("%s: unknown option or argument '%s'", info->name, key);
        return -1;
    }
    AttrType t = info->options[oi].type;
    int count = cJSON_IsArray(j) ? cJSON_GetArraySize(j) : 0;
    if (count > 64) goto bad;
    int64_t ints[64];
    double floats[64];
    Dim dims[64];
    const char *strs[64];
    for (int i = 0; i < count; i++) {
        const cJSON *e = cJSON_GetArrayItem(j, i);
        if (t == AT_STRINGS) {
            if (!cJSON_IsString(e)) goto bad;
            strs[i] = e->valuestring;
        } else if (t == AT_FLOATS) {
            if (!json_double(e, &floats[i])) goto bad;
        } else if (wn_json_int(e, false, &ints[i])) {
            dims[i] = dim_static(ints[i]);
        } else {
            goto bad;
        }
    }
    double d;
    int64_t v;
    switch (t) {
    case AT_INT:
    case AT_UINT:
        if (!wn_json_int(j, false, &v)) goto bad;
        if (t == AT_INT) node_set_int(g, n, key, v);
        else node_set_uint(g, n, key, v);
        return 0;
    case AT_FLOAT:
        if (!json_double(j, &d)) goto bad;
        node_set_float(g, n, key, d);
        return 0;
    case AT_BOOL:
        if (!cJSON_IsBool(j)) goto bad;
        node_set_bool(g, n, key, cJSON_IsTrue(j));
        return 0;
    case AT_STRING:
        if (!cJSON_IsString(j)) goto bad;
        node_set_string(g, n, key, j->valuestring);
        return 0;
    case AT_DTYPE:
        if (!cJSON_IsString(j) || dtype_from_name(j->valuestring) == DT_INVALID) goto bad;
        node_set_dtype(g, n, key, dtype_from_name(j->valuestring));
        return 0;
    case AT_SPLITS:
        if (cJSON_IsArray(j)) {
            node_set_ints(g, n, key, count, ints);
            return 0;
        }
        if (!wn_json_int(j, false, &v)) goto bad;
        node_set_uint(g, n, key, v);
        return 0;
    case AT_INTS: if (!cJSON_IsArray(j)) goto bad; node_set_ints(g, n, key, count, ints); return 0;
    case AT_FLOATS: if (!cJSON_IsArray(j)) goto bad; node_set_floats(g, n, key, count, floats); return 0;
    case AT_STRINGS: if (!cJSON_IsArray(j)) goto bad; node_set_strings(g, n, key, count, strs); return 0;
    case AT_DIMS: if (!cJSON_IsArray(j)) goto bad; node_set_dims(g, n, key, count, dims); return 0;
    }
bad:
    diag_error("%s: option '%s' has an unsupported value (null: an Infinity/NaN the JSON conversion lost?)", info->name,
               key);
    return -1;
}

/* Resolves an operand argument (a name, or for variadic slots an array of names). */
static int set_operand(const Builder *b, const OpInfo *info, int slot, const cJSON *j, Value **slots,
                       Value ***variadic, int *n_variadic, Graph *g) {
    if (info->inputs[slot].variadic) {
        if (!cJSON_IsArray(j)) goto bad;
        *n_variadic = cJSON_GetArraySize(j);
        *variadic = graph_alloc(g, sizeof **variadic * (size_t)(*n_variadic ? *n_variadic : 1));
        for (int i = 0; i < *n_variadic; i++) {
            const cJSON *e = cJSON_GetArrayItem(j, i);
            if (!cJSON_IsString(e) || !((*variadic)[i] = lookup(b, e->valuestring))) goto bad;
        }
        return 0;
    }
    if (!cJSON_IsString(j) || !(slots[slot] = lookup(b, j->valuestring))) goto bad;
    return 0;
bad:
    diag_error("%s: operand '%s' does not name a known operand", info->name, info->inputs[slot].name);
    return -1;
}

static int add_operator(Builder *b, const cJSON *op) {
    Graph *g = b->c->g;
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(op, "name");
    int id = cJSON_IsString(name) ? op_from_name(name->valuestring) : -1;
    if (id < 0) {
        diag_error("unknown operator %s", cJSON_IsString(name) ? name->valuestring : "?");
        return -1;
    }
    const OpInfo *info = op_info((OpId)id);
    Node *n = graph_new_node(g, (OpId)id, name->valuestring);
    Value *slots[WN_MAX_INPUT_SLOTS] = {0}, **variadic = NULL;
    int n_variadic = 0;
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(op, "arguments");
    for (const cJSON *a = cJSON_IsArray(args) ? args->child : NULL; a; a = a->next) {
        for (const cJSON *kv = a->child; kv; kv = kv->next) {
            bool is_options = strcmp(kv->string, "options") == 0;
            for (const cJSON *o = is_options ? kv->child : kv; o; o = is_options ? o->next : NULL) {
                if (strcmp(o->string, "label") == 0) continue;
                int slot = input_slot(info, o->string);
                int rc = slot >= 0 ? set_operand(b, info, slot, o, slots, &variadic, &n_variadic, g)
                                   : set_option(g, n, info, o->string, o);
                if (rc < 0) return -1;
            }
        }
    }
    if (variadic) {
        for (int i = 0; i < n_variadic; i++) node_add_input(g, n, variadic[i]);
    } else {
        int last = -1;
        for (int i = 0; i < info->n_inputs; i++)
            if (slots[i]) last = i;
        for (int i = 0; i <= last; i++) node_add_input(g, n, slots[i]);
    }
    const cJSON *outs = cJSON_GetObjectItemCaseSensitive(op, "outputs");
    int n_out = cJSON_IsArray(outs) ? cJSON_GetArraySize(outs) : cJSON_IsString(outs) ? 1 : 0;
    if (n_out < 1 || n_out > 16) {
        diag_error("%s: bad outputs", info->name);
        return -1;
    }
    const char *out_names[16];
    for (int i = 0; i < n_out; i++) {
        const cJSON *e = cJSON_IsArray(outs) ? cJSON_GetArrayItem(outs, i) : outs;
        if (!cJSON_IsString(e)) return -1;
        out_names[i] = e->valuestring;
    }
    node_set_output_names(g, n, n_out, out_names);
    if (graph_insert_node(g, n) < 0) return -1;
    if (n->n_outputs != n_out) {
        diag_node_error(n, "has %d outputs, the case names %d", n->n_outputs, n_out);
        return -1;
    }
    for (int i = 0; i < n_out; i++) bind(b, out_names[i], n->outputs[i]);
    return 0;
}

/* ---- expected outputs ---------------------------------------------------------------------- */

static int add_expected(Builder *b, const cJSON *expected) {
    WptCase *c = b->c;
    Graph *g = c->g;
    int n = cJSON_GetArraySize(expected);
    c->outputs = graph_alloc(g, sizeof *c->outputs * (size_t)(n ? n : 1));
    for (const cJSON *e = expected ? expected->child : NULL; e; e = e->next) {
        WptOutput *o = &c->outputs[c->n_outputs];
        int rank;
        int64_t shape[WN_MAX_RANK];
        o->count = parse_desc(cJSON_GetObjectItemCaseSensitive(e, "descriptor"), e->string, &o->dtype, &rank, shape);
        if (o->count < 0) return -1;
        o->name = graph_strdup(g, e->string);
        o->value = lookup(b, e->string);
        if (!o->value) {
            diag_error("expected output %s is not produced by the graph", e->string);
            return -1;
        }
        bool same = o->value->dtype == o->dtype && o->value->rank == rank;
        for (int i = 0; same && i < rank; i++) same = dim_equal(o->value->shape[i], dim_static(shape[i]));
        if (!same) {
            char buf[160];
            diag_error("output %s: shape inference gives %s, the case expects another type/shape", e->string,
                       value_format_type(g, o->value, buf, sizeof buf));
            return -1;
        }
        const cJSON *data = cJSON_GetObjectItemCaseSensitive(e, "data");
        if (!check_data_count(data, o->count, e->string)) return -1;
        o->checked = !cJSON_IsArray(data) && o->count > 1000 ? 1000 : o->count;
        o->expect = graph_alloc(g, sizeof *o->expect * (size_t)o->checked);
        if (!dtype_is_float(o->dtype)) o->expect_i = graph_alloc(g, sizeof *o->expect_i * (size_t)o->checked);
        for (int64_t k = 0; k < o->checked; k++) {
            const cJSON *x = element(data, k);
            bool ok = o->expect_i ? wn_json_int(x, !dtype_is_signed(o->dtype), &o->expect_i[k]) : json_double(x, &o->expect[k]);
            if (!ok) {
                diag_error("%s: expected element %lld is not a number (null: an Infinity/NaN the JSON conversion "
                           "lost?)", e->string, (long long)k);
                return -1;
            }
            if (o->expect_i) o->expect[k] = o->dtype == DT_U64 ? (double)(uint64_t)o->expect_i[k] : (double)o->expect_i[k];
        }
        graph_add_output(g, o->value);
        c->n_outputs++;
    }
    return 0;
}

WptCase *wpt_case_build(const WptFile *f, int index) {
    const cJSON *tc = cJSON_GetArrayItem(f->tests, index);
    const cJSON *graph = tc ? cJSON_GetObjectItemCaseSensitive(tc, "graph") : NULL;
    if (!graph) {
        diag_error("%s: case %d has no graph", f->stem, index);
        return NULL;
    }
    Graph *g = graph_new(wpt_file_case_name(f, index));
    WptCase *c = graph_alloc(g, sizeof *c);
    c->g = g;
    c->file = graph_strdup(g, f->stem);
    c->name = graph_strdup(g, wpt_file_case_name(f, index));
    Builder b = {c, NULL, 0, 0};
    int rc = add_inputs(&b, cJSON_GetObjectItemCaseSensitive(graph, "inputs"));
    const cJSON *ops = cJSON_GetObjectItemCaseSensitive(graph, "operators");
    for (const cJSON *op = cJSON_IsArray(ops) ? ops->child : NULL; rc == 0 && op; op = op->next) rc = add_operator(&b, op);
    if (rc == 0) rc = add_expected(&b, cJSON_GetObjectItemCaseSensitive(graph, "expectedOutputs"));
    free(b.names);
    if (rc == 0 && c->n_outputs == 0) {
        diag_error("case has no expected outputs");
        rc = -1;
    }
    if (rc < 0) {
        graph_free(g);
        return NULL;
    }
    wpt_set_tolerance(c);
    return c;
}

void wpt_case_free(WptCase *c) {
    if (c) graph_free(c->g);
}
