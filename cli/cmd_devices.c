/* cmd_devices.c - `webnnc devices`: the Vulkan devices the runtime can use, with the limits and
 * features its kernels care about.  The index is what `run --device N` / WEBNNC_DEVICE take. */
#include <stdio.h>

#include "args.h"
#include "diag.h"
#include "webnnc_runtime.h"

int cmd_devices(const CliCommand *self, int argc, char **argv) {
    ArgResult r;
    int rc = args_parse(self, NULL, 0, 0, 0, argc, argv, &r);
    if (rc != ARGS_OK) return rc == ARGS_HELP ? WN_EXIT_OK : WN_EXIT_BAD_INPUT;
    int n = wnrt_device_count();
    if (n < 0) return cli_fail(NULL, WN_EXIT_BAD_INPUT);
    if (n == 0) printf("no Vulkan devices\n");
    for (int i = 0; i < n; i++) {
        WnrtDeviceInfo d;
        if (wnrt_device_info(i, &d) < 0) return cli_fail(NULL, WN_EXIT_BAD_INPUT);
        printf("%d: %s (%s), Vulkan %u.%u.%u\n", i, d.name, wnrt_device_type_name(d.type), (d.api_version >> 22) & 0x7f,
               (d.api_version >> 12) & 0x3ff, d.api_version & 0xfff);
        printf("   maxStorageBufferRange %llu, maxBufferSize %llu, shared memory %u, push constants %u, subgroup %u%s\n",
               (unsigned long long)d.max_storage_buffer_range, (unsigned long long)d.max_buffer_size, d.max_shared_memory,
               d.max_push_constants, d.subgroup_size, d.subgroup_arithmetic ? " (arithmetic)" : "");
        printf("   float16 %s, 16-bit storage %s, int8 %s, 8-bit storage %s, int64 %s, push descriptors %s\n",
               d.float16 ? "yes" : "no", d.storage16 ? "yes" : "no", d.int8 ? "yes" : "no", d.storage8 ? "yes" : "no",
               d.int64 ? "yes" : "no", d.push_descriptor ? "yes" : "no");
        printf("   memory heaps:");
        for (int h = 0; h < d.n_heaps; h++)
            printf(" %llu MiB%s", (unsigned long long)(d.heap_size[h] >> 20), d.heap_device_local[h] ? " (device local)" : "");
        printf("%s\n", d.unified_memory ? ", unified" : "");
    }
    return WN_EXIT_OK;
}
