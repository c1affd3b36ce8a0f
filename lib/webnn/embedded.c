/* embedded.c - lookup in the tables of files built into webnnc (embedded.h). */
#include <string.h>

#include "embedded.h"

const EmbeddedFile *wn_embedded_find(const EmbeddedFile *table, const char *name) {
    for (; table->name; table++)
        if (!strcmp(table->name, name)) return table;
    return NULL;
}
