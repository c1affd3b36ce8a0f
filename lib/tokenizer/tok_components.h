/* tok_components.h - declarations of every component loader and apply function listed in
 * components.def (generated from the X-macro). */
#ifndef WEBNNC_TOK_COMPONENTS_H
#define WEBNNC_TOK_COMPONENTS_H

#include "tok_internal.h"

#define TK_NORMALIZER(name, load, fn) bool load(TkLoad *, const cJSON *, TkComp *); bool fn(const TkComp *, TkStr *);
#define TK_PRETOK(name, load, fn) bool load(TkLoad *, const cJSON *, TkComp *); bool fn(const TkComp *, TkPieces *, TkPieces *, bool);
#define TK_POSTPROC(name, load, fn) bool load(TkLoad *, const cJSON *, TkComp *); bool fn(const TkComp *, TkIds *, bool);
#define TK_DECODER(name, load, fn) bool load(TkLoad *, const cJSON *, TkComp *); bool fn(const TkComp *, TkPieces *, TkPieces *);
#include "components.def"
#undef TK_NORMALIZER
#undef TK_PRETOK
#undef TK_POSTPROC
#undef TK_DECODER

/* Loads the array j[key] as c's children of the given family (Sequence components). */
bool tk_load_children(TkLoad *ld, const cJSON *j, const char *key, int family, TkComp *c);

#endif
