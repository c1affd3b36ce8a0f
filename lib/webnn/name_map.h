/* name_map.h - string -> pointer hash map (open addressing) used by the reader to resolve the
 * names in a webnn-graph file (values, node ids, manifest entries).  Keys are not copied. */
#ifndef WEBNNC_NAME_MAP_H
#define WEBNNC_NAME_MAP_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    const char **keys;
    void **vals;
    size_t cap, count;
} NameMap;

void wn_name_map_init(NameMap *m);
void wn_name_map_free(NameMap *m);
void *wn_name_map_get(const NameMap *m, const char *key);
/* Inserts key -> val; false (and no change) when the key is already present. */
bool wn_name_map_put(NameMap *m, const char *key, void *val);

#endif
