/* post_processors.c - tokenizer.json post-processors for single sequences: TemplateProcessing (its
 * "single" template: special tokens before and after sequence A), RobertaProcessing and
 * BertProcessing (cls + A + sep), ByteLevel (offsets only: ids unchanged) and Sequence.  Special
 * tokens are added only when encoding asks for them. */
#include <string.h>

#include "core.h"
#include "tok_components.h"

bool tk_post_noargs_load(TkLoad *ld, const cJSON *j, TkComp *c) { return true; }
bool tk_post_identity(const TkComp *c, TkIds *ids, bool add_special) { return true; }

static bool special_ids(TkLoad *ld, const cJSON *specials, const char *name, TkIds *dst)
{
    const cJSON *sp = cJSON_GetObjectItemCaseSensitive(specials, name);
    const cJSON *ids = cJSON_GetObjectItemCaseSensitive(sp, "ids");
    if (!cJSON_IsArray(ids)) {
        diag_error("%s: TemplateProcessing: special token %s not in \"special_tokens\"", ld->file, name);
        return false;
    }
    const cJSON *e;
    cJSON_ArrayForEach(e, ids) {
        if (!cJSON_IsNumber(e) || e->valueint < 0) {
            diag_error("%s: TemplateProcessing: special token %s has a bad id", ld->file, name);
            return false;
        }
        tk_ids_add(dst, e->valueint);
    }
    return true;
}

bool tk_post_template_load(TkLoad *ld, const cJSON *j, TkComp *c)
{
    const cJSON *single = cJSON_GetObjectItemCaseSensitive(j, "single");
    const cJSON *specials = cJSON_GetObjectItemCaseSensitive(j, "special_tokens");
    if (!cJSON_IsArray(single)) {
        diag_error("%s: TemplateProcessing without a \"single\" array", ld->file);
        return false;
    }
    bool seen_a = false;
    const cJSON *e;
    cJSON_ArrayForEach(e, single) {
        const cJSON *st = cJSON_GetObjectItemCaseSensitive(e, "SpecialToken");
        if (cJSON_GetObjectItemCaseSensitive(e, "Sequence")) {
            seen_a = true;
            continue;
        }
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(st, "id");
        if (!cJSON_IsString(id)) {
            diag_error("%s: TemplateProcessing: \"single\" entry is neither SpecialToken nor Sequence", ld->file);
            return false;
        }
        if (!special_ids(ld, specials, id->valuestring, seen_a ? &c->post : &c->pre))
            return false;
    }
    return true;
}

/* "cls": ["<s>", 0], "sep": ["</s>", 2] */
static bool pair_id(TkLoad *ld, const cJSON *j, const char *key, TkIds *dst)
{
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(j, key);
    if (!cJSON_IsArray(p) || cJSON_GetArraySize(p) != 2 || !cJSON_IsNumber(p->child->next)) {
        diag_error("%s: %s: \"%s\" must be [TOKEN, ID]", ld->file, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "type")), key);
        return false;
    }
    tk_ids_add(dst, p->child->next->valueint);
    return true;
}

bool tk_post_cls_sep_load(TkLoad *ld, const cJSON *j, TkComp *c)
{
    return pair_id(ld, j, "cls", &c->pre) && pair_id(ld, j, "sep", &c->post);
}

bool tk_post_template(const TkComp *c, TkIds *ids, bool add_special)
{
    if (!add_special)
        return true;
    TkIds out = {0};
    for (size_t i = 0; i < c->pre.n; i++)
        tk_ids_add(&out, c->pre.p[i]);
    for (size_t i = 0; i < ids->n; i++)
        tk_ids_add(&out, ids->p[i]);
    for (size_t i = 0; i < c->post.n; i++)
        tk_ids_add(&out, c->post.p[i]);
    tk_ids_free(ids);
    *ids = out;
    return true;
}

bool tk_post_sequence_load(TkLoad *ld, const cJSON *j, TkComp *c)
{
    return tk_load_children(ld, j, "processors", TK_FAM_POSTPROC, c);
}

bool tk_post_sequence(const TkComp *c, TkIds *ids, bool add_special)
{
    for (size_t i = 0; i < c->n_kids; i++)
        if (!c->kids[i]->apply.post(c->kids[i], ids, add_special))
            return false;
    return true;
}
