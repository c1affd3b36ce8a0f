/* inspect.h - the two readers behind `webnnc inspect`; each fills a summary (summary.h). */
#ifndef WEBNNC_CLI_INSPECT_H
#define WEBNNC_CLI_INSPECT_H

#include "summary.h"

/* Return 0, or -1 with a diagnostic. */
int inspect_onnx(const char *path, cJSON *s);
int inspect_webnn(const char *path, cJSON *s);

#endif
