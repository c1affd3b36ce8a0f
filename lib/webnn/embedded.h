/* embedded.h - data files built into webnnc by data/embed.py: the browser runner web/ (served by
 * `webnnc serve`, inlined by `webnnc emit-js`) and the built-in WebNN limits (limits_notes.c). */
#ifndef WEBNNC_EMBEDDED_H
#define WEBNNC_EMBEDDED_H

typedef struct {
    const char *name; /* file name ("run.html"); NULL ends a table */
    const char *data; /* NUL-terminated */
    unsigned long len;
} EmbeddedFile;

/* web/: run.html, run.js, webnn_graph_loader.js, tensor_files.js. */
extern const EmbeddedFile wn_web_files[];
/* The entry named `name`, or NULL. */
const EmbeddedFile *wn_embedded_find(const EmbeddedFile *table, const char *name);

#endif
