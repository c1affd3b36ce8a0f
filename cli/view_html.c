/* view_html.c - the self-contained HTML page of `webnnc view` (view_html.h): web/view.html with
 * its two slots filled, the graph's JSON (view_model.c, escaped for a script element) and the
 * drawing code web/view.js; docs/extension-ops.md goes in when the graph has extension ops. */
#include <string.h>

#include "core.h"
#include "webnn.h"
#include "view_html.h"
#include "view_model.h"

/* web/view.html, web/view.js and docs/extension-ops.md (data/embed.py, cli/meson.build). */
extern const EmbeddedFile webnnc_view_files[];

void view_script_json(TextBuf *b, const char *json, size_t len) {
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)json[i];
        if (c == '<' || c == '>' || c == '&') wn_tb_printf(b, "\\u%04x", c);
        else if (c == 0xe2 && i + 2 < len && (unsigned char)json[i + 1] == 0x80 &&
                 ((unsigned char)json[i + 2] == 0xa8 || (unsigned char)json[i + 2] == 0xa9))
            wn_tb_printf(b, "\\u%04x", 0x2000 + ((unsigned char)json[i + 2] - 0xa8 + 0x28)), i += 2;
        else wn_tb_putn(b, json + i, 1);
    }
}

static const char *view_file(const char *name) {
    const EmbeddedFile *f = wn_embedded_find(webnnc_view_files, name);
    if (!f) diag_error("%s is not built into this webnnc", name);
    return f ? f->data : NULL;
}

int view_html(TextBuf *b, const Graph *g, const char *source) {
    const char *page = view_file("view.html"), *js = view_file("view.js"), *docs = view_file("extension-ops.md");
    if (!page || !js || !docs) return -1;
    static const char data_slot[] = "@GRAPH_JSON@", js_slot[] = "@VIEW_JS@";
    const char *d = strstr(page, data_slot), *s = strstr(page, js_slot);
    if (!d || !s || s < d) {
        diag_error("web/view.html lacks its %s / %s slots", data_slot, js_slot);
        return -1;
    }
    TextBuf json;
    wn_tb_init(&json);
    view_model_json(&json, g, source, docs);
    wn_tb_putn(b, page, (size_t)(d - page));
    view_script_json(b, json.data, json.len);
    wn_tb_free(&json);
    d += sizeof data_slot - 1;
    wn_tb_putn(b, d, (size_t)(s - d));
    wn_tb_puts(b, js);
    wn_tb_puts(b, s + sizeof js_slot - 1);
    return 0;
}
