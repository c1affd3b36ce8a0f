/* graph_form.h - how IR pieces are spelled in webnn-graph files, shared by the JSON and the
 * .webnn text writers: a node's operand layout (positional operands vs operand-valued options,
 * from the op table's `?@` marks), option values typed by the op's schema, and dimensions. */
#ifndef WEBNNC_GRAPH_FORM_H
#define WEBNNC_GRAPH_FORM_H

#include "core.h"
#include "textbuf.h"

typedef enum { FORM_JSON, FORM_TEXT } FormStyle;

typedef struct {
    int n_pos;
    const Value *const *pos;                   /* positional operands, in order */
    const Value *pos_buf[WN_MAX_INPUT_SLOTS];
    int n_opt;                                 /* operand-valued options, in slot order */
    const char *opt_key[WN_MAX_INPUT_SLOTS];
    const Value *opt_val[WN_MAX_INPUT_SLOTS];
} NodeForm;

/* Splits a node's operands: positional ones (slots 0, 1, ... as the readers count them) up to the
 * first absent or `?@` slot, then every present operand after it (optional or required) as an
 * option keyed by its slot name, in slot order (`?@` slots are always options).  The readers put each operand
 * named by an option into its slot, so IR -> JSON -> IR keeps every operand where it was.  -1 +
 * diagnostic for an absent required operand or more operands than slots. */
int wn_node_form(const Node *n, NodeForm *f);

/* Writes one dimension: a number, or JSON {"name": .., "maxSize": ..} / text dyn("..", N).
 * `in_option` selects the object-literal form in text too.  -1 + diagnostic (naming `what`)
 * for expressions that are not a pure symbol or symbols without a positive maxSize. */
int wn_form_dim(TextBuf *b, const Graph *g, Dim d, FormStyle style, bool in_option, const char *what);

/* Writes the value of a node option as its schema slot types it.  -1 + diagnostic naming the
 * node and key for a type the slot does not take, negative values in unsigned slots, non-finite
 * floats (neither JSON nor the text grammar can spell them) and inexpressible dims. */
int wn_form_option_value(TextBuf *b, const Graph *g, const Node *n, const OpOptionSlot *slot,
                      const Attr *a, FormStyle style);

/* A value's shape as "[d0, d1, ...]" (dims as wn_form_dim); -1 + diagnostic naming the value. */
int wn_form_shape(TextBuf *b, const Graph *g, const Value *v, FormStyle style);
/* A scalar constant's value: an integer for integer types, else a float (wn_tb_double). */
void wn_form_scalar(TextBuf *b, DType dt, double value);
/* A constant's element bytes as "[b0, b1, ...]" (little-endian, 4-bit types one per element). */
void wn_form_const_bytes(TextBuf *b, const Value *v, uint64_t elements);

/* Checks that every attribute of the node is in its op's schema (-1 + diagnostic if not). */
int wn_form_check_attrs(const Node *n);

#endif
