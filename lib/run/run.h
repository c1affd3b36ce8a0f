/* run.h - what lib/run offers the floors above (its one public header): generation
 * (decoder_generate.h, with the decoder step and the device token loop), tensor folders
 * (run_inputs.h), ONNX-interface KV binding (run_io.h, kv_io.h), output comparison
 * (tensor_compare.h) and conversion fitted to a device (capacity_fit.h). */
#ifndef WEBNNC_RUN_H
#define WEBNNC_RUN_H

#include "capacity_fit.h"
#include "decoder_generate.h"
#include "kv_io.h"
#include "run_inputs.h"
#include "run_io.h"
#include "tensor_compare.h"

#endif
