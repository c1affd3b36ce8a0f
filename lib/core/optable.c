/* optable.c - the op table (ops.def) expanded into OpInfo records with parsed schemas. */
#include <stdlib.h>
#include <string.h>

#include "ir.h"

static const struct {
    const char *name, *inputs, *options;
    OpFamily family;
    unsigned flags;
} raw_ops[OP_COUNT] = {
#define OP(ID, FAMILY, NAME, INPUTS, OPTIONS, FLAGS) [OP_##ID] = {NAME, INPUTS, OPTIONS, OPFAM_##FAMILY, FLAGS},
#include "ops.def"
#undef OP
};

static const char *const family_names[OPFAM_COUNT] = {
#define FAMILY(NAME) [OPFAM_##NAME] = #NAME,
#include "op_families.def"
#undef FAMILY
};

static OpInfo infos[OP_COUNT];
static bool parsed;
/* Backing store for the slot names cut out of the schema strings. */
static char names_pool[OP_COUNT * 512];

static const char *take_token(const char **p, size_t *pool_used) {
    while (**p == ' ') (*p)++;
    if (!**p) return NULL;
    const char *start = *p;
    while (**p && **p != ' ') (*p)++;
    size_t len = (size_t)(*p - start);
    char *dst = names_pool + *pool_used;
    memcpy(dst, start, len);
    dst[len] = 0;
    *pool_used += len + 1;
    return dst;
}

static void parse_all(void) {
    size_t used = 0;
    for (int op = 0; op < OP_COUNT; op++) {
        OpInfo *info = &infos[op];
        info->id = (OpId)op;
        info->name = raw_ops[op].name;
        info->family = raw_ops[op].family;
        info->flags = raw_ops[op].flags;
        const char *p = raw_ops[op].inputs;
        char *tok;
        while ((tok = (char *)take_token(&p, &used))) {
            OpInputSlot *s = &info->inputs[info->n_inputs++];
            size_t len = strlen(tok);
            while (len && (tok[len - 1] == '?' || tok[len - 1] == '@' || tok[len - 1] == '*')) {
                char c = tok[--len];
                if (c == '?') s->optional = true;
                if (c == '@') s->as_option = true;
                if (c == '*') s->variadic = true;
                tok[len] = 0;
            }
            s->name = tok;
        }
        p = raw_ops[op].options;
        while ((tok = (char *)take_token(&p, &used))) {
            OpOptionSlot *s = &info->options[info->n_options++];
            char *colon = strchr(tok, ':');
            *colon = 0;
            s->key = tok;
            s->type = (AttrType)colon[1];
            s->required = colon[2] == '!';
        }
    }
    parsed = true;
}

const OpInfo *op_info(OpId op) {
    if (!parsed) parse_all();
    if ((int)op < 0 || op >= OP_COUNT) return NULL;
    return &infos[op];
}

const char *op_name(OpId op) { return ((int)op >= 0 && op < OP_COUNT) ? raw_ops[op].name : "?"; }

const char *op_family_name(OpFamily family) {
    return ((int)family >= 0 && family < OPFAM_COUNT) ? family_names[family] : "?";
}

int op_from_name(const char *name) {
    for (int op = 0; op < OP_COUNT; op++)
        if (strcmp(raw_ops[op].name, name) == 0) return op;
    return -1;
}

int op_option_index(const OpInfo *info, const char *key) {
    for (int i = 0; i < info->n_options; i++)
        if (strcmp(info->options[i].key, key) == 0) return i;
    return -1;
}

int op_min_inputs(const OpInfo *info) {
    int n = 0;
    for (int i = 0; i < info->n_inputs; i++)
        if (!info->inputs[i].optional) n++;
    return n;
}
