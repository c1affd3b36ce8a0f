/* validate.h - checking a written webnn-graph against the WebNN op table (validate.c): used by
 * `webnnc validate`, by `webnnc convert` on its own output (convert_write) and by the library API. */
#ifndef WEBNNC_VALIDATE_H
#define WEBNNC_VALIDATE_H

#include <stddef.h>

#include "webnn.h"

/* Reads PATH (.webnn.json or OUTDIR) with webnn_read and checks it: spec ops only, options and
 * dtypes/ranks by the op rules, dims > 0, element counts < 2^31, only named dynamic dims
 * (graph_verify VERIFY_SPEC_ONLY | VERIFY_EXPORTABLE), and what the reader leaves open: every
 * dynamic dim is bound by a graph input, outputs exist and are node results.  Returns WN_EXIT_OK
 * and a one-line summary in `summary`, WN_EXIT_BAD_INPUT when the files are malformed, or
 * WN_EXIT_CHECK_FAILED when a check fails (the diagnostic names the node or value).  flags:
 * VALIDATE_* below. */
enum {
    VALIDATE_TRUST_WEIGHT_HASHES = 1 << 0, /* files this process just wrote: skip re-hashing */
    VALIDATE_ALLOW_EXTENSION_OPS = 1 << 1, /* --fuse output: webnnc extension ops are expected */
};
int convert_validate_graph_files(const char *path, unsigned flags, char *summary, size_t len);
/* Same, and (limits not NULL) the checks of wn_limits_check_graph. */
int convert_validate_graph_files_limits(const char *path, unsigned flags, const ImplLimits *limits, char *summary, size_t len);

#endif
