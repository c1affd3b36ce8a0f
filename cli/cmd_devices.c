/* cmd_devices.c - `webnnc devices`: the Vulkan devices the runtime can use, with the limits and
 * features its kernels care about.  The index is what `run --device N` / WEBNNC_DEVICE take. */
#include <stdio.h>

#include "args.h"
#include "core.h"
#include "report.h"
#include "webnnc_runtime.h"

static const ArgSpec specs[] = {ARG_SPEC_JSON};

static void print_device(int i, const WnrtDeviceInfo *dp) {
    WnrtDeviceInfo d = *dp;
    printf("%d: %s (%s), Vulkan %u.%u.%u\n", i, d.name, wnrt_device_type_name(d.type), (d.api_version >> 22) & 0x7f,
           (d.api_version >> 12) & 0x3ff, d.api_version & 0xfff);
    printf("   maxStorageBufferRange %llu, maxBufferSize %llu, shared memory %u, push constants %u, storage buffers per "
           "stage %u, subgroup %u%s\n",
           (unsigned long long)d.max_storage_buffer_range, (unsigned long long)d.max_buffer_size, d.max_shared_memory,
           d.max_push_constants, d.max_storage_buffers, d.subgroup_size, d.subgroup_arithmetic ? " (arithmetic)" : "");
    printf("   float16 %s, 16-bit storage %s, int8 %s, 8-bit storage %s, int64 %s (atomics %s), push descriptors %s, "
           "uniformBufferStandardLayout %s, float16 round to nearest even %s\n",
           d.float16 ? "yes" : "no", d.storage16 ? "yes" : "no", d.int8 ? "yes" : "no", d.storage8 ? "yes" : "no",
           d.int64 ? "yes" : "no", d.int64_atomics ? "yes" : "no", d.push_descriptor ? "yes" : "no", d.uniform_standard_layout ? "yes" : "no",
           d.rte16 ? "yes" : "no");
    printf("   memory heaps:");
    for (int h = 0; h < d.n_heaps; h++)
        printf(" %llu MiB%s", (unsigned long long)(d.heap_size[h] >> 20), d.heap_device_local[h] ? " (device local)" : "");
    printf("%s\n", d.unified_memory ? ", unified" : "");
}

/* The same facts under the names of the text lines (camelCase). */
static void json_device(cJSON *list, int i, const WnrtDeviceInfo *d) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToArray(list, o);
    cJSON_AddNumberToObject(o, "index", i);
    cJSON_AddStringToObject(o, "name", d->name);
    cJSON_AddStringToObject(o, "type", wnrt_device_type_name(d->type));
    char api[32];
    snprintf(api, sizeof api, "%u.%u.%u", (d->api_version >> 22) & 0x7f, (d->api_version >> 12) & 0x3ff,
             d->api_version & 0xfff);
    cJSON_AddStringToObject(o, "vulkan", api);
    cJSON_AddNumberToObject(o, "maxStorageBufferRange", (double)d->max_storage_buffer_range);
    cJSON_AddNumberToObject(o, "maxBufferSize", (double)d->max_buffer_size);
    cJSON_AddNumberToObject(o, "sharedMemory", d->max_shared_memory);
    cJSON_AddNumberToObject(o, "pushConstants", d->max_push_constants);
    cJSON_AddNumberToObject(o, "storageBuffersPerStage", d->max_storage_buffers);
    cJSON_AddNumberToObject(o, "subgroupSize", d->subgroup_size);
    cJSON_AddBoolToObject(o, "subgroupArithmetic", d->subgroup_arithmetic);
    cJSON_AddBoolToObject(o, "float16", d->float16);
    cJSON_AddBoolToObject(o, "storage16", d->storage16);
    cJSON_AddBoolToObject(o, "int8", d->int8);
    cJSON_AddBoolToObject(o, "storage8", d->storage8);
    cJSON_AddBoolToObject(o, "int64", d->int64);
    cJSON_AddBoolToObject(o, "int64Atomics", d->int64_atomics);
    cJSON_AddBoolToObject(o, "pushDescriptors", d->push_descriptor);
    cJSON_AddBoolToObject(o, "uniformBufferStandardLayout", d->uniform_standard_layout);
    cJSON_AddBoolToObject(o, "roundingModeRTEFloat16", d->rte16);
    cJSON_AddBoolToObject(o, "unifiedMemory", d->unified_memory);
    cJSON *heaps = report_add_array(o, "memoryHeaps");
    for (int h = 0; h < d->n_heaps; h++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddItemToArray(heaps, e);
        cJSON_AddNumberToObject(e, "bytes", (double)d->heap_size[h]);
        cJSON_AddBoolToObject(e, "deviceLocal", d->heap_device_local[h]);
    }
}

int cmd_devices(const CliCommand *self, int argc, char **argv) {
    ArgResult r;
    int rc = args_parse(self, specs, (int)(sizeof specs / sizeof specs[0]), 0, 0, argc, argv, &r);
    if (rc != ARGS_OK) return rc == ARGS_HELP ? WN_EXIT_OK : WN_EXIT_BAD_INPUT;
    cJSON *report = args_count(&r, "json") ? report_new(self->name) : NULL;
    cJSON *list = report ? report_add_array(report, "devices") : NULL;
    int n = wnrt_device_count();
    if (n < 0) return report_fail(report, NULL, WN_EXIT_BAD_INPUT);
    if (n == 0 && !report) printf("no Vulkan devices\n");
    for (int i = 0; i < n; i++) {
        WnrtDeviceInfo d;
        if (wnrt_device_info(i, &d) < 0) return report_fail(report, NULL, WN_EXIT_BAD_INPUT);
        if (report)
            json_device(list, i, &d);
        else
            print_device(i, &d);
    }
    return report ? report_end(report, WN_EXIT_OK) : WN_EXIT_OK;
}
