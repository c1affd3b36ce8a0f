/* view_html.h - `webnnc view FILE.html`: one self-contained page (web/view.html + web/view.js,
 * built into webnnc) with the graph embedded as JSON, which lays it out and draws it. */
#ifndef WEBNNC_CLI_VIEW_HTML_H
#define WEBNNC_CLI_VIEW_HTML_H

#include "core.h"
#include "webnn.h"

/* Appends the page for g (source: the path shown as its origin).  0, or -1 + diagnostic. */
int view_html(TextBuf *b, const Graph *g, const char *source);

/* Appends JSON text so that it can sit inside <script type="application/json">: every <, > and &
 * as \u003c, \u003e, \u0026 and U+2028/U+2029 as \u2028/\u2029 (all only occur inside strings,
 * where the escapes mean the same characters), so no name can end the element or start markup. */
void view_script_json(TextBuf *b, const char *json, size_t len);

#endif
