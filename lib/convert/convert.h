/* convert.h - what lib/convert offers the floors above (its one public header): the convert
 * pipeline (convert_pipeline.h), the kind of an input path (input_kind.h), graph loading for
 * ladder/diff/view (graph_load.h) and validation of written folders (validate.h). */
#ifndef WEBNNC_CONVERT_H
#define WEBNNC_CONVERT_H

#include "convert_pipeline.h"
#include "graph_load.h"
#include "input_kind.h"
#include "validate.h"

#endif
