/* graph_text_read.c - the .webnn text form (webnn-graph DSL) back into a graph.
 *
 * The text is parsed into the graph JSON tree the JSON reader takes (wn_graph_tree_read), so both
 * forms pass the same checks.  Grammar (webnn-graph src/wg.pest, as graph_text_write.c writes it):
 *   file   := "webnn_graph" STRING "v" INT ["@quantized"] "{" block* "}"
 *   block  := "inputs" "{" (IDENT ":" type ";")* "}"
 *           | "consts" "{" (IDENT ":" type [annot] ";")* "}"
 *           | "nodes" "{" ((IDENT | "[" IDENT ("," IDENT)* "]") "=" IDENT "(" [arg ("," arg)*] ")" ";")* "}"
 *           | "outputs" "{" (IDENT ("," IDENT)* [";"])* "}"
 *   type   := dtype "[" [dim ("," dim)*] "]"      dtype: f32 f16 i4 u4 i32 u32 i64 u64 i8 u8
 *   dim    := INT | "dyn" "(" STRING "," INT ")"
 *   annot  := "@weights" "(" STRING ")" | "@scalar" "(" NUMBER ")" | "@bytes" "(" "[" INT,* "]" ")"
 *   arg    := IDENT "=" value | IDENT | "[" IDENT,* "]"   (bare: operands, in order)
 *   value  := NUMBER | STRING | true | false | null | IDENT (-> string) | "[" value,* "]"
 *           | "{" (STRING|IDENT) ":" value,* "}"
 * Comments run from '#' to the end of the line.  A const without annotation is
 * @weights("<its name>"); a node's id is its (first) output name.  Strings take JSON escapes.
 * Limits: identifiers and strings at most WN_TEXT_MAX_TOKEN bytes, values nested at most
 * WN_TEXT_MAX_DEPTH deep; the file size limit is webnn_read's.  Errors are one line naming the file,
 * the line and what was expected. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "reader.h"

enum { WN_TEXT_MAX_TOKEN = 1 << 16, WN_TEXT_MAX_DEPTH = 32 };

typedef enum { TK_EOF, TK_IDENT, TK_STRING, TK_NUMBER, TK_AT, TK_PUNCT } TokKind;

typedef struct {
    const char *p, *end, *src;
    int line;
    TokKind kind;    /* current token */
    char punct;
    char *text;      /* identifier / string contents / number spelling (malloc'ed, NUL-terminated) */
    size_t text_len;
    bool failed;
} Parser;

static void fail(Parser *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(Parser *ps, const char *fmt, ...) {
    if (ps->failed) return;
    ps->failed = true;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    diag_error("%s:%d: %s", ps->src, ps->line, msg);
}

static const char *tok_desc(const Parser *ps) {
    static char buf[96];
    switch (ps->kind) {
    case TK_EOF: return "the end of the file";
    case TK_PUNCT: snprintf(buf, sizeof buf, "'%c'", ps->punct); return buf;
    case TK_STRING: return "a string";
    case TK_NUMBER: snprintf(buf, sizeof buf, "number %.40s", ps->text); return buf;
    default: snprintf(buf, sizeof buf, "%s'%.60s'", ps->kind == TK_AT ? "@" : "", ps->text); return buf;
    }
}

static void set_text(Parser *ps, const char *s, size_t n) {
    ps->text = realloc(ps->text, n + 1);
    if (!ps->text) abort();
    memcpy(ps->text, s, n);
    ps->text[n] = 0;
    ps->text_len = n;
}

static bool ident_start(int ch) { return isalpha(ch) || ch == '_' || ch == '/' || ch == '$'; }
static bool ident_char(int ch) { return isalnum(ch) || ch == '_' || ch == '/' || ch == '.'; }

/* A JSON string (the writer's escapes; the grammar's \" and \\ are among them) via cJSON. */
static void lex_string(Parser *ps) {
    const char *s = ps->p + 1;
    while (s < ps->end && *s != '"' && *s != '\n') s += *s == '\\' && s + 1 < ps->end ? 2 : 1;
    if (s >= ps->end || *s != '"') { fail(ps, "unterminated string"); return; }
    /* The limit is on the string's bytes; its quoted form may be up to 6 times longer (the writer
     * spells a control byte \u00XX), so that what the writer spells always reads back. */
    if ((size_t)(s - ps->p) > 6 * (size_t)WN_TEXT_MAX_TOKEN + 1) {
        fail(ps, "string longer than %d bytes", WN_TEXT_MAX_TOKEN);
        return;
    }
    cJSON *j = cJSON_ParseWithLength(ps->p, (size_t)(s + 1 - ps->p));
    if (!cJSON_IsString(j)) {
        cJSON_Delete(j);
        { fail(ps, "malformed string (bad escape)"); return; }
    }
    if (strlen(j->valuestring) > WN_TEXT_MAX_TOKEN) {
        cJSON_Delete(j);
        fail(ps, "string longer than %d bytes", WN_TEXT_MAX_TOKEN);
        return;
    }
    set_text(ps, j->valuestring, strlen(j->valuestring));
    cJSON_Delete(j);
    ps->kind = TK_STRING;
    ps->p = s + 1;
}

/* NUMBER := -?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static void lex_number(Parser *ps) {
    const char *s = ps->p + (*ps->p == '-');
    const char *digits = s;
    while (s < ps->end && isdigit((unsigned char)*s)) s++;
    if (s == digits) { fail(ps, "'-' must start a number"); return; }
    if (s + 1 < ps->end && *s == '.' && isdigit((unsigned char)s[1]))
        for (s++; s < ps->end && isdigit((unsigned char)*s);) s++;
    if (s < ps->end && (*s == 'e' || *s == 'E')) {
        const char *e = s + 1 + (s + 1 < ps->end && (s[1] == '+' || s[1] == '-'));
        if (e < ps->end && isdigit((unsigned char)*e))
            for (s = e; s < ps->end && isdigit((unsigned char)*s);) s++;
    }
    if ((size_t)(s - ps->p) > 400) { fail(ps, "number longer than 400 characters"); return; }
    set_text(ps, ps->p, (size_t)(s - ps->p));
    ps->kind = TK_NUMBER;
    ps->p = s;
}

static void next(Parser *ps) {
    if (ps->failed) return;
    for (;;) {
        while (ps->p < ps->end && isspace((unsigned char)*ps->p)) ps->line += *ps->p++ == '\n';
        if (ps->p < ps->end && *ps->p == '#') {
            while (ps->p < ps->end && *ps->p != '\n') ps->p++;
            continue;
        }
        break;
    }
    if (ps->p >= ps->end) {
        ps->kind = TK_EOF;
        return;
    }
    unsigned char ch = (unsigned char)*ps->p;
    if (ch == '"') {
        lex_string(ps);
        return;
    }
    if (ch == '-' || isdigit(ch)) {
        lex_number(ps);
        return;
    }
    if (ident_start(ch) || (ch == '@' && ps->p + 1 < ps->end && ident_start((unsigned char)ps->p[1]))) {
        const char *s = ps->p + (ch == '@');
        const char *e = s + 1;
        while (e < ps->end && ident_char((unsigned char)*e)) e++;
        if ((size_t)(e - s) > WN_TEXT_MAX_TOKEN) { fail(ps, "identifier longer than %d bytes", WN_TEXT_MAX_TOKEN); return; }
        set_text(ps, s, (size_t)(e - s));
        ps->kind = ch == '@' ? TK_AT : TK_IDENT;
        ps->p = e;
        return;
    }
    if (strchr("()[]{},;:=", ch) && ch) {
        ps->kind = TK_PUNCT;
        ps->punct = (char)ch;
        ps->p++;
        return;
    }
    fail(ps, isprint(ch) ? "unexpected character '%c'" : "unexpected byte 0x%02x", ch);
}

static bool is_punct(const Parser *ps, char ch) { return !ps->failed && ps->kind == TK_PUNCT && ps->punct == ch; }
static bool is_word(const Parser *ps, const char *w) { return !ps->failed && ps->kind == TK_IDENT && !strcmp(ps->text, w); }

static bool accept(Parser *ps, char ch) {
    if (!is_punct(ps, ch)) return false;
    next(ps);
    return true;
}

static bool expect(Parser *ps, char ch, const char *where) {
    if (accept(ps, ch)) return true;
    fail(ps, "expected '%c' %s, found %s", ch, where, tok_desc(ps));
    return false;
}

/* The current identifier (copied into `out`, malloc'ed) and advances; NULL after an error. */
static char *take(Parser *ps, TokKind kind, const char *what) {
    if (ps->failed) return NULL;
    if (ps->kind != kind) {
        fail(ps, "expected %s, found %s", what, tok_desc(ps));
        return NULL;
    }
    char *s = strdup(ps->text);
    if (!s) abort();
    next(ps);
    return s;
}

static cJSON *take_number(Parser *ps, const char *what) {
    char *s = take(ps, TK_NUMBER, what);
    if (!s) return NULL;
    errno = 0;
    double v = strtod(s, NULL);
    cJSON *j = errno == ERANGE && (v > 1 || v < -1) ? NULL : cJSON_CreateNumber(v);
    if (!j) fail(ps, "number %.40s is out of range", s);
    free(s);
    return j;
}

/* Adds item under key (or to the array when key is NULL); frees both. */
static void add(cJSON *to, char *key, cJSON *item) {
    if (item && key)
        cJSON_AddItemToObject(to, key, item);
    else if (item)
        cJSON_AddItemToArray(to, item);
    free(key);
}

static cJSON *parse_value(Parser *ps, int depth);

/* "[" value,* "]" or "{" key ":" value,* "}" after the opening bracket. */
static cJSON *parse_container(Parser *ps, int depth, bool object) {
    cJSON *j = object ? cJSON_CreateObject() : cJSON_CreateArray();
    char close = object ? '}' : ']';
    while (!ps->failed && !accept(ps, close)) {
        if (cJSON_GetArraySize(j) && !expect(ps, ',', object ? "between object members" : "between array elements")) break;
        char *key = NULL;
        if (object) {
            key = take(ps, ps->kind == TK_STRING ? TK_STRING : TK_IDENT, "an object key");
            if (!expect(ps, ':', "after an object key")) {
                free(key);
                break;
            }
        }
        add(j, key, parse_value(ps, depth + 1));
    }
    if (ps->failed) {
        cJSON_Delete(j);
        return NULL;
    }
    return j;
}

static cJSON *parse_value(Parser *ps, int depth) {
    if (depth > WN_TEXT_MAX_DEPTH) {
        fail(ps, "values nested deeper than %d", WN_TEXT_MAX_DEPTH);
        return NULL;
    }
    if (ps->failed) return NULL;
    if (accept(ps, '[')) return parse_container(ps, depth, false);
    if (accept(ps, '{')) return parse_container(ps, depth, true);
    if (ps->kind == TK_NUMBER) return take_number(ps, "a number");
    if (ps->kind == TK_STRING || ps->kind == TK_IDENT) {
        bool word = ps->kind == TK_IDENT;
        cJSON *j = word && !strcmp(ps->text, "true")    ? cJSON_CreateTrue()
                   : word && !strcmp(ps->text, "false") ? cJSON_CreateFalse()
                   : word && !strcmp(ps->text, "null")  ? cJSON_CreateNull()
                                                        : cJSON_CreateString(ps->text);
        next(ps);
        return j;
    }
    fail(ps, "expected a value, found %s", tok_desc(ps));
    return NULL;
}

/* dtype "[" dim,* "]" into {"dataType", "shape"} members of `desc`. */
static void parse_type(Parser *ps, cJSON *desc) {
    char *dt = take(ps, TK_IDENT, "a data type (f32, f16, i64...)");
    if (!dt) return;
    DType t = DT_INVALID;
    for (int i = 0; i < DT_COUNT; i++)
        if (!strcmp(dtype_text_name((DType)i), dt)) t = (DType)i;
    if (t == DT_INVALID) fail(ps, "unknown data type '%.60s' (f32, f16, i4, u4, i32, u32, i64, u64, i8, u8)", dt);
    free(dt);
    if (ps->failed) return;
    cJSON_AddStringToObject(desc, "dataType", dtype_name(t));
    cJSON *shape = cJSON_AddArrayToObject(desc, "shape");
    expect(ps, '[', "before the dimensions");
    while (!ps->failed && !accept(ps, ']')) {
        if (cJSON_GetArraySize(shape) && !expect(ps, ',', "between dimensions")) return;
        if (!is_word(ps, "dyn")) {
            add(shape, NULL, take_number(ps, "a dimension"));
            continue;
        }
        next(ps);
        expect(ps, '(', "after dyn");
        char *name = take(ps, TK_STRING, "the dynamic dimension's name");
        expect(ps, ',', "after the dimension's name");
        cJSON *max = take_number(ps, "the dimension's maxSize");
        expect(ps, ')', "after dyn(NAME, MAX");
        cJSON *d = cJSON_CreateObject();
        if (name) cJSON_AddStringToObject(d, "name", name);
        free(name);
        add(d, strdup("maxSize"), max);
        cJSON_AddItemToArray(shape, d);
    }
}

/* @weights("ref") | @scalar(NUMBER) | @bytes([..]); none: @weights(name). */
static void parse_const_init(Parser *ps, const char *name, cJSON *desc) {
    cJSON *init = cJSON_AddObjectToObject(desc, "init");
    if (ps->kind != TK_AT) {
        cJSON_AddStringToObject(init, "kind", "weights");
        cJSON_AddStringToObject(init, "ref", name);
        return;
    }
    char *annot = take(ps, TK_AT, "an annotation");
    if (!annot) return;
    expect(ps, '(', "after the annotation");
    if (!strcmp(annot, "weights")) {
        cJSON_AddStringToObject(init, "kind", "weights");
        add(init, strdup("ref"), cJSON_CreateString(ps->kind == TK_STRING ? ps->text : ""));
        free(take(ps, TK_STRING, "the weights ref string"));
    } else if (!strcmp(annot, "scalar")) {
        cJSON_AddStringToObject(init, "kind", "scalar");
        add(init, strdup("value"), take_number(ps, "the scalar value"));
    } else if (!strcmp(annot, "bytes")) {
        cJSON_AddStringToObject(init, "kind", "inlineBytes");
        if (!is_punct(ps, '[')) fail(ps, "expected '[' of the byte list, found %s", tok_desc(ps));
        add(init, strdup("bytes"), parse_value(ps, 0));
    } else {
        fail(ps, "unknown annotation @%.60s (@weights, @scalar, @bytes)", annot);
    }
    free(annot);
    expect(ps, ')', "after the annotation's argument");
}

/* NAME ":" type [init] ";" entries of inputs / consts. */
static void parse_decls(Parser *ps, cJSON *into, bool consts) {
    while (!ps->failed && !accept(ps, '}')) {
        char *name = take(ps, TK_IDENT, consts ? "a constant name or '}'" : "an input name or '}'");
        expect(ps, ':', "after the name");
        cJSON *desc = cJSON_CreateObject();
        parse_type(ps, desc);
        if (consts && name) parse_const_init(ps, name, desc);
        expect(ps, ';', "after the declaration");
        if (!name) {
            cJSON_Delete(desc);
            return;
        }
        add(into, name, desc);
    }
}

/* Arguments of a call: bare operands (or lists of them) become inputs, NAME=value options. */
static void parse_args(Parser *ps, cJSON *inputs, cJSON *options) {
    while (!ps->failed && !accept(ps, ')')) {
        if ((cJSON_GetArraySize(inputs) || cJSON_GetArraySize(options)) && !expect(ps, ',', "between arguments")) return;
        if (ps->kind == TK_IDENT) {
            char *word = take(ps, TK_IDENT, "an argument");
            if (accept(ps, '=')) {
                add(options, word, parse_value(ps, 0));
            } else {
                add(inputs, NULL, cJSON_CreateString(word));
                free(word);
            }
        } else if (accept(ps, '[')) {
            for (int k = 0; !ps->failed && !accept(ps, ']'); k++) {
                if (k && !expect(ps, ',', "between operand names")) return;
                char *word = take(ps, TK_IDENT, "an operand name");
                add(inputs, NULL, word ? cJSON_CreateString(word) : NULL);
                free(word);
            }
        } else {
            fail(ps, "expected an operand name or NAME=value, found %s", tok_desc(ps));
        }
    }
}

/* OUT = op(args); or [A, B] = op(args); */
static void parse_nodes(Parser *ps, cJSON *nodes) {
    while (!ps->failed && !accept(ps, '}')) {
        cJSON *node = cJSON_CreateObject(), *outs = NULL;
        char *id = NULL;
        if (accept(ps, '[')) {
            outs = cJSON_CreateArray();
            while (!ps->failed && !accept(ps, ']')) {
                if (cJSON_GetArraySize(outs) && !expect(ps, ',', "between output names")) break;
                char *o = take(ps, TK_IDENT, "an output name");
                if (o && !id) id = strdup(o);
                add(outs, NULL, o ? cJSON_CreateString(o) : NULL);
                free(o);
            }
        } else {
            id = take(ps, TK_IDENT, "an output name, '[' or '}'");
        }
        expect(ps, '=', "after the output name(s)");
        char *op = take(ps, TK_IDENT, "an op name");
        expect(ps, '(', "after the op name");
        cJSON *inputs = cJSON_CreateArray(), *options = cJSON_CreateObject();
        parse_args(ps, inputs, options);
        expect(ps, ';', "after the node");
        add(node, strdup("id"), id ? cJSON_CreateString(id) : NULL);
        add(node, strdup("op"), op ? cJSON_CreateString(op) : NULL);
        cJSON_AddItemToObject(node, "inputs", inputs);
        cJSON_AddItemToObject(node, "options", options);
        if (outs) cJSON_AddItemToObject(node, "outputs", outs);
        cJSON_AddItemToArray(nodes, node);
        free(id);
        free(op);
    }
}

static void parse_outputs(Parser *ps, cJSON *outputs) {
    while (!ps->failed && !accept(ps, '}')) {
        if (accept(ps, ';') || accept(ps, ',')) continue;
        char *name = take(ps, TK_IDENT, "an output name or '}'");
        if (name) cJSON_AddStringToObject(outputs, name, name);
        free(name);
    }
}

static cJSON *parse_file(Parser *ps) {
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "format", "webnn-graph-json");
    if (!is_word(ps, "webnn_graph")) fail(ps, "a .webnn file starts with webnn_graph, found %s", tok_desc(ps));
    next(ps);
    char *name = take(ps, TK_STRING, "the graph name string");
    if (name) cJSON_AddStringToObject(root, "name", name);
    free(name);
    char *ver = take(ps, TK_IDENT, "the version (v1 or v2)");
    if (ver && !strcmp(ver, "v") && ps->kind == TK_NUMBER) add(root, strdup("version"), take_number(ps, "the version"));
    else if (ver && ver[0] == 'v' && ver[1] && strspn(ver + 1, "0123456789") == strlen(ver + 1))
        cJSON_AddNumberToObject(root, "version", atof(ver + 1));
    else if (ver) fail(ps, "expected the version (v1 or v2), found '%.60s'", ver);
    free(ver);
    if (ps->kind == TK_AT && !strcmp(ps->text, "quantized")) {
        cJSON_AddTrueToObject(root, "quantized");
        next(ps);
    }
    expect(ps, '{', "after the graph header");
    cJSON *inputs = cJSON_AddObjectToObject(root, "inputs"), *consts = cJSON_AddObjectToObject(root, "consts");
    cJSON *nodes = cJSON_AddArrayToObject(root, "nodes"), *outputs = cJSON_AddObjectToObject(root, "outputs");
    while (!ps->failed && !accept(ps, '}')) {
        char *block = take(ps, TK_IDENT, "a block (inputs, consts, nodes, outputs) or '}'");
        if (!block) break;
        expect(ps, '{', "after the block name");
        if (!strcmp(block, "inputs") || !strcmp(block, "consts"))
            parse_decls(ps, block[0] == 'c' ? consts : inputs, block[0] == 'c');
        else if (!strcmp(block, "nodes"))
            parse_nodes(ps, nodes);
        else if (!strcmp(block, "outputs"))
            parse_outputs(ps, outputs);
        else
            fail(ps, "unknown block '%.60s' (inputs, consts, nodes, outputs)", block);
        free(block);
    }
    if (!ps->failed && ps->kind != TK_EOF) fail(ps, "expected the end of the file after the graph, found %s", tok_desc(ps));
    if (ps->failed) {
        cJSON_Delete(root);
        return NULL;
    }
    return root;
}

Graph *wn_graph_text_read(const char *text, size_t len, const char *src, const char *dir, const char *stem,
                       unsigned flags) {
    Parser ps = {.p = text, .end = text + len, .src = src, .line = 1};
    next(&ps);
    cJSON *root = parse_file(&ps);
    free(ps.text);
    return root ? wn_graph_tree_read(root, src, dir, stem, flags) : NULL;
}
