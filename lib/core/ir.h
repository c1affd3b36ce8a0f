/* ir.h - the one intermediate representation of webnnc.
 *
 * A Graph is a list of Values (graph inputs, constants, node outputs) and a list of Nodes in
 * topological order.  Node kinds come from the op table (ops.def); element types from dtype.def.
 * Shapes are arrays of Dim: a static size, or a symbolic dimension expression with an upper bound
 * (the WebNN {name, maxSize} proposal; see dims.c).  Constants point at their bytes without
 * copying them (memory-mapped ONNX external data stays mapped for the graph's lifetime).
 * Every Value and Node remembers its original ONNX name (`origin`) so errors and `inspect`
 * can show it.
 *
 * Memory: everything hangs off the graph's arena and is freed by graph_free().
 */
#ifndef WEBNNC_IR_H
#define WEBNNC_IR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define WN_MAX_RANK 8
#define WN_MAX_INPUT_SLOTS 16 /* groupQueryAttention has 16 operand slots */
#define WN_MAX_OPTION_SLOTS 12

/* ------------------------------------------------------------------------------------------ */
/* Data types                                                                                  */

typedef enum {
    DT_INVALID = -1,
#define DTYPE(ID, NAME, TEXT, BITS, ONNX, FLAGS) DT_##ID,
#include "dtype.def"
#undef DTYPE
    DT_COUNT
} DType;

enum { DTF_FLOAT = 1, DTF_INT = 2, DTF_SIGNED = 4 };

const char *dtype_name(DType dt);      /* "float32"; "invalid" for DT_INVALID */
const char *dtype_text_name(DType dt); /* "f32" (the .webnn text form) */
int dtype_bits(DType dt);
bool dtype_is_float(DType dt);
bool dtype_is_int(DType dt);
bool dtype_is_signed(DType dt);
DType dtype_from_name(const char *name);  /* WebNN name; DT_INVALID if unknown */
DType dtype_from_onnx(int onnx_code);     /* DT_INVALID if no direct mapping */
/* Bytes needed to store n elements in IR layout (4-bit types packed two per byte). */
uint64_t dtype_storage_bytes(DType dt, uint64_t n);

/* ------------------------------------------------------------------------------------------ */
/* Op table                                                                                   */

typedef enum {
#define OP(ID, FAMILY, NAME, INPUTS, OPTIONS, FLAGS) OP_##ID,
#include "ops.def"
#undef OP
    OP_COUNT
} OpId;

/* Op families (op_families.def): the FAMILY column of ops.def. */
typedef enum {
#define FAMILY(NAME) OPFAM_##NAME,
#include "op_families.def"
#undef FAMILY
    OPFAM_COUNT
} OpFamily;

enum {
    OPF_SPEC = 1 << 0,
    OPF_EXT = 1 << 1,
    OPF_MULTI = 1 << 2,
    OPF_ELTWISE_UNARY = 1 << 3,
    OPF_ELTWISE_BINARY = 1 << 4,
    OPF_COMPARE = 1 << 5,
    OPF_LOGICAL = 1 << 6,
    OPF_REDUCE = 1 << 7,
    OPF_POOL = 1 << 8,
};

typedef enum {
    AT_INT = 'i',
    AT_UINT = 'u',
    AT_FLOAT = 'f',
    AT_BOOL = 'b',
    AT_STRING = 's',
    AT_DTYPE = 't',
    AT_INTS = 'I',
    AT_FLOATS = 'F',
    AT_STRINGS = 'A',
    AT_DIMS = 'D',
    AT_SPLITS = 'S', /* stored as AT_UINT (a count) or AT_INTS (sizes) */
} AttrType;

typedef struct {
    const char *name;
    bool optional;  /* name?  */
    bool as_option; /* name?@ */
    bool variadic;  /* name*  */
} OpInputSlot;

typedef struct {
    const char *key;
    AttrType type;
    bool required;
} OpOptionSlot;

typedef struct {
    OpId id;
    const char *name; /* WebNN method name, e.g. "layerNormalization" */
    OpFamily family;  /* ops.def FAMILY column */
    unsigned flags;
    int n_inputs;
    OpInputSlot inputs[WN_MAX_INPUT_SLOTS];
    int n_options;
    OpOptionSlot options[WN_MAX_OPTION_SLOTS];
} OpInfo;

const OpInfo *op_info(OpId op);
const char *op_name(OpId op);
int op_from_name(const char *name); /* OpId, or -1 if not in the table */
const char *op_family_name(OpFamily family); /* "eltwise", ...; "?" when out of range */
/* Index of option `key` in the op's schema, or -1. */
int op_option_index(const OpInfo *info, const char *key);
/* Minimum number of operands (required slots); variadic ops return 1. */
int op_min_inputs(const OpInfo *info);

/* ------------------------------------------------------------------------------------------ */
/* Dimensions                                                                                 */

/* A dimension.  e == 0: static size v.  e > 0: symbolic expression number e of the graph's
 * expression table; v is its upper bound (maxSize), 0 when unknown. */
typedef struct {
    int64_t v;
    int32_t e;
} Dim;

struct Graph;

static inline Dim dim_static(int64_t v) { return (Dim){v, 0}; }
static inline bool dim_is_static(Dim d) { return d.e == 0; }
/* Upper bound of a dimension (its size when static). */
static inline int64_t dim_max(Dim d) { return d.v; }

/* A named symbolic dimension with an upper bound; the same name always yields the same Dim. */
Dim dim_symbol(struct Graph *g, const char *name, int64_t max_size);
/* Arithmetic on dims; folds static operands, hash-conses expressions, tracks upper bounds. */
Dim dim_add(struct Graph *g, Dim a, Dim b);
Dim dim_sub(struct Graph *g, Dim a, Dim b);
Dim dim_mul(struct Graph *g, Dim a, Dim b);
Dim dim_div(struct Graph *g, Dim a, Dim b); /* floor division, b > 0 */
bool dim_equal(Dim a, Dim b);
/* Name of a pure symbol ({name, maxSize} in JSON), NULL for static dims and compound expressions. */
const char *dim_symbol_name(const struct Graph *g, Dim d);
/* Writes a human readable form ("8", "sequence_length", "(past+seq)") into buf. */
const char *dim_format(const struct Graph *g, Dim d, char *buf, size_t len);
/* Evaluates a dim given values for the graph's symbols (indexed by symbol number). */
int64_t dim_eval(const struct Graph *g, Dim d, const int64_t *symbol_values);

typedef struct {
    const char *name;
    int64_t max_size;
} DimSymbol;

typedef struct {
    char kind; /* 's' symbol, '+', '-', '*', '/' */
    int32_t sym;  /* for 's' */
    Dim a, b;     /* for binary kinds */
} DimExpr;

/* ------------------------------------------------------------------------------------------ */
/* Values, attributes, nodes, graphs                                                          */

enum {
    VF_INPUT = 1 << 0,  /* graph input */
    VF_CONST = 1 << 1,  /* constant with data */
    VF_OUTPUT = 1 << 2, /* graph output */
};

typedef struct Value {
    int32_t id;          /* index in graph->values */
    const char *name;    /* unique WebNN identifier: [A-Za-z_][A-Za-z0-9_]* */
    const char *origin;  /* original ONNX tensor name, or NULL */
    DType dtype;
    int rank;
    Dim shape[WN_MAX_RANK];
    unsigned flags;
    struct Node *producer; /* NULL for inputs and constants */
    int producer_slot;     /* output index in producer */
    /* VF_CONST: bytes in IR layout (dtype_storage_bytes), not owned unless from the arena. */
    const void *data;
    uint64_t nbytes;
    /* Optional symbolic contents of a small 1-D integer tensor (shape expressions, issue 4). */
    const Dim *symval;
    int32_t symval_len;
} Value;

typedef struct {
    const char *key;
    AttrType type; /* never AT_SPLITS: splits are stored as AT_UINT or AT_INTS */
    int n;         /* element count for array types */
    union {
        int64_t i;   /* AT_INT, AT_UINT, AT_BOOL (0/1), AT_DTYPE (a DType) */
        double f;    /* AT_FLOAT */
        const char *s;
        const int64_t *ints;
        const double *floats;
        const char *const *strs;
        const Dim *dims;
    } u;
} Attr;

typedef struct Node {
    int32_t index;       /* position in graph->nodes (kept current by graph_compact) */
    OpId op;
    const char *id;      /* JSON node id (== output name for single-output nodes) */
    const char *origin;  /* original ONNX node name (or op type + index), or NULL */
    int n_inputs;
    Value **inputs;      /* NULL entries are absent optional operands */
    int n_outputs;
    Value **outputs;
    int n_attrs;
    Attr *attrs;
    bool dead;           /* removed by a pass; dropped by graph_compact */
} Node;

typedef void (*CleanupFn)(void *ctx);

/* A KV-cache binding (passes/kv_cache.c, docs/kv-cache.md): graph input `past` is a fixed-capacity
 * cache whose axis `axis` holds the capacity; graph output `present` is the same buffer after the
 * step.  `total_dim` names the ONNX-interface dim that holds the valid length after the step
 * (e.g. "total_sequence_length"), so a runtime can map ONNX-shaped test data onto the cache. */
typedef struct KvBinding {
    const char *past;      /* graph input name (IR name) */
    const char *present;   /* graph output name (IR name) */
    int axis;              /* the sequence axis (2 for [B, kvHeads, C, H]) */
    int64_t capacity;      /* C */
    const char *total_dim; /* name of the total-length dim, or NULL */
} KvBinding;

typedef struct Graph {
    struct Arena *arena;
    const char *name;
    const char *source;  /* file the graph came from (for diagnostics) */
    bool quantized;

    Value **values;
    int n_values, cap_values;
    Node **nodes;
    int n_nodes, cap_nodes;
    Value **inputs;
    int n_inputs, cap_inputs;
    Value **outputs;
    int n_outputs, cap_outputs;

    DimSymbol *symbols;
    int n_symbols, cap_symbols;
    DimExpr *exprs; /* exprs[0] unused so that e == 0 means static */
    int n_exprs, cap_exprs;

    KvBinding *kv; /* KV-cache bindings (graph_alloc'ed), see KvBinding */
    int n_kv;

    struct NameSet *names; /* used value names and node ids */
    struct Cleanup *cleanups;
} Graph;

Graph *graph_new(const char *name);
void graph_free(Graph *g);
void *graph_alloc(Graph *g, size_t size); /* zeroed, 16-byte aligned, freed with the graph */
char *graph_strdup(Graph *g, const char *s);
void graph_add_cleanup(Graph *g, CleanupFn fn, void *ctx);

/* Makes `base` a valid, unused identifier (sanitizing and suffixing as needed) and reserves it. */
const char *graph_unique_name(Graph *g, const char *base);
/* The identifier graph_unique_name starts from (before any uniqueness suffix): lets a name from an
 * ONNX model or tensor file be matched against graph value names. */
#define NAME_SANITIZED_MAX 256
void name_sanitize(const char *base, char out[NAME_SANITIZED_MAX]);

Value *graph_add_input(Graph *g, const char *name, DType dt, int rank, const Dim *shape);
/* Adds a constant; `data` is referenced, not copied, and must outlive the graph. */
Value *graph_add_const(Graph *g, const char *name, DType dt, int rank, const int64_t *shape,
                       const void *data, uint64_t nbytes);
/* Same, copying `data` into the graph's arena. */
Value *graph_add_const_copy(Graph *g, const char *name, DType dt, int rank, const int64_t *shape,
                            const void *data, uint64_t nbytes);
void graph_add_output(Graph *g, Value *v);

/* Node construction: new -> add inputs and attributes -> insert (runs shape inference and
 * creates the outputs).  insert returns 0, or -1 with a diagnostic naming the node. */
Node *graph_new_node(Graph *g, OpId op, const char *origin);
void node_add_input(Graph *g, Node *n, Value *v); /* v may be NULL for an absent optional */
/* Optional: names for the outputs created by graph_insert_node (sanitized, made unique). */
void node_set_output_names(Graph *g, Node *n, int count, const char *const *names);
int graph_insert_node(Graph *g, Node *n);
/* Convenience: insert and return outputs[0], or NULL on error. */
Value *graph_finish(Graph *g, Node *n);

void node_set_int(Graph *g, Node *n, const char *key, int64_t v);
void node_set_uint(Graph *g, Node *n, const char *key, int64_t v);
void node_set_float(Graph *g, Node *n, const char *key, double v);
void node_set_bool(Graph *g, Node *n, const char *key, bool v);
void node_set_string(Graph *g, Node *n, const char *key, const char *v);
void node_set_dtype(Graph *g, Node *n, const char *key, DType v);
void node_set_ints(Graph *g, Node *n, const char *key, int count, const int64_t *v);
void node_set_floats(Graph *g, Node *n, const char *key, int count, const double *v);
void node_set_strings(Graph *g, Node *n, const char *key, int count, const char *const *v);
void node_set_dims(Graph *g, Node *n, const char *key, int count, const Dim *v);

const Attr *node_attr(const Node *n, const char *key);
int64_t node_int(const Node *n, const char *key, int64_t def); /* also reads bool/dtype */
double node_float(const Node *n, const char *key, double def);
bool node_bool(const Node *n, const char *key, bool def);
const char *node_str(const Node *n, const char *key, const char *def);
DType node_dtype(const Node *n, const char *key, DType def);
/* Array attributes: returns the count (-1 when absent) and stores the pointer. */
int node_ints(const Node *n, const char *key, const int64_t **out);
int node_floats(const Node *n, const char *key, const double **out);
int node_dims(const Node *n, const char *key, const Dim **out);

/* Node outputs replace: every use of `from` (node inputs, graph outputs) becomes `to`. */
void graph_replace_uses(Graph *g, Value *from, Value *to);
/* Drops dead nodes and values no longer referenced; renumbers. */
void graph_compact(Graph *g);
/* Number of live nodes. */
int graph_node_count(const Graph *g);

/* Element count of a value's upper-bound shape (static product; bounds for symbolic dims). */
uint64_t value_max_elements(const Value *v);
bool value_is_static(const Value *v);
/* The same rank and dims (dim_equal per dim); dtypes are not compared. */
bool value_same_shape(const Value *a, const Value *b);
/* Formats "float32[1, sequence_length, 128]" into buf. */
const char *value_format_type(const Graph *g, const Value *v, char *buf, size_t len);
/* Name used in diagnostics: the ONNX origin when known, else the IR name. */
const char *value_display_name(const Value *v);
const char *node_display_name(const Node *n);

/* ------------------------------------------------------------------------------------------ */
/* Shape inference (infer.c) and verification (verify.c)                                      */

typedef struct {
    DType dtype;
    int rank;
    Dim shape[WN_MAX_RANK];
} TensorDesc;

/* Validates a node against its op's rules (operand count, dtypes, ranks, options) and computes
 * its outputs.  Returns the number of outputs, or -1 with a diagnostic naming the node. */
int infer_node(Graph *g, const Node *n, TensorDesc *out, int max_out);
/* Bidirectional (numpy) broadcasting of shapes a and b into out (may alias a or b): dims are
 * compatible when dim_equal or one is static 1.  Returns false (no diagnostic) if incompatible. */
bool infer_broadcast(Graph *g, int ra, const Dim *a, int rb, const Dim *b, int *rout, Dim *out);

enum {
    VERIFY_SPEC_ONLY = 1 << 0,  /* reject extension ops */
    VERIFY_EXPORTABLE = 1 << 1, /* only pure symbols as dynamic dims (webnn-graph JSON) */
};
/* Single assignment, topological order, per-op rules, dims > 0, element count < 2^31.
 * Returns 0, or -1 with a diagnostic. */
int graph_verify(Graph *g, unsigned flags);

#endif
