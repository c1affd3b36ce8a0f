/* webnn.h - what lib/webnn offers the floors above (its one public header): reading and writing
 * webnn-graph files (webnn_io.h), implementation limits and their checks (impl_limits.h,
 * limits_check.h), output folders written through a temporary name (outdir.h), text buffers,
 * graph forms and tensor encodings, the embedded web files and the local HTTP server. */
#ifndef WEBNNC_WEBNN_H
#define WEBNNC_WEBNN_H

#include "embedded.h"
#include "graph_form.h"
#include "impl_limits.h"
#include "limits_check.h"
#include "outdir.h"
#include "serve_http.h"
#include "tensor_codec.h"
#include "textbuf.h"
#include "webnn_io.h"

#endif
