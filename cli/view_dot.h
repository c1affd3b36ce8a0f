/* view_dot.h - `webnnc view` output formats other than HTML: Graphviz DOT text of a graph, and SVG
 * made from it by Graphviz's `dot` program. */
#ifndef WEBNNC_CLI_VIEW_DOT_H
#define WEBNNC_CLI_VIEW_DOT_H

#include "core.h"
#include "webnn.h"

/* Appends the graph as DOT: one box per live node ("n<i>", labelled op type + id, filled with its
 * family's colour, extension ops bold), one ellipse per graph input ("in<i>") and output
 * ("out<i>"), an edge per non-constant operand labelled with its shape and dtype.  Every name is
 * escaped for a DOT quoted string. */
void view_dot(TextBuf *b, const Graph *g);

/* The Graphviz program that view_svg runs, and the Debian package that has it. */
#define VIEW_DOT_PROGRAM "dot"
#define VIEW_DOT_PACKAGE "graphviz"

/* Above this many nodes `webnnc view` says that dot may take minutes. */
#define VIEW_DOT_SLOW_NODES 2000

/* Whether VIEW_DOT_PROGRAM is an executable file on $PATH. */
bool view_dot_available(void);

/* Runs `dot -Tsvg` on the DOT text; the SVG goes to `svg`.  0, or -1 + diagnostic. */
int view_svg(const char *dot, size_t len, TextBuf *svg);

#endif
