/* vk_pipeline.c - shader table lookup, lazy compute-pipeline creation and the on-disk pipeline
 * cache (see vk_pipeline.h): files checked by their own xxHash64 before the driver reads them,
 * written through a temporary file renamed into place. */
#include "vk_pipeline.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "core.h"
#include "kernel.h"
#include "rt_env.h"
#include "vk_spirv_push.h"
#include "vk_spirv_rte.h"
#include "webnn.h"

/* ---- shader table (generated) ------------------------------------------------------------ */
#include "shader_table.h"

int vk_shader_count(void) { return (int)(sizeof shader_table / sizeof shader_table[0]); }
const ShaderInfo *vk_shader_get(int id) { return id >= 0 && id < vk_shader_count() ? &shader_table[id] : NULL; }

int vk_shader_lookup(const char *name, DType a, DType b) {
    for (int i = 0; i < vk_shader_count(); i++)
        if (shader_table[i].a == a && shader_table[i].b == b && strcmp(shader_table[i].name, name) == 0) return i;
    return -1;
}

bool vk_shader_dtype_ok(const VkDev *d, DType dt) {
    switch (dt) {
    case DT_F16: return d->info.storage16;
    case DT_I8:
    case DT_U8: return d->info.storage8 && d->info.int8;
    case DT_I64:
    case DT_U64: return d->info.int64;
    case DT_I4: /* packed two per byte; shaders bind them as 32-bit words (k_quant.c) */
    case DT_U4:
    case DT_INVALID:
    case DT_F32:
    case DT_I32:
    case DT_U32: return true;
    default: return false;
    }
}

/* ---- pipelines ------------------------------------------------------------------------ */

typedef struct {
    int shader;
    bool push; /* its parameter block read from push constants (vk_spirv_push.h) */
    int n_spec;
    uint32_t spec[K_MAX_SPEC];
    VkPipeline pipeline;
} PipeEntry;

struct PipelineSet {
    VkDescriptorSetLayout set_layout;
    VkPipelineLayout layout;
    VkShaderModule *modules; /* per shader id (2 id, 2 id + 1 with push-constant parameters), lazily */
    uint32_t push_range;     /* bytes of push constants in the layout: K_PUSH_MAX or the device's limit */
    uint32_t *push_extent;   /* per shader id: 1 + the bytes its parameter block spans (0: not known yet) */
    PipeEntry *entries;
    int n, cap;
    char cache_dir[1024]; /* empty = no disk cache */
};

static void cache_dir_init(PipelineSet *p) {
    p->cache_dir[0] = 0;
    if (wnrt_env_flag("WEBNNC_NO_PIPELINE_CACHE", false)) return;
    const char *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    char base[900];
    if (xdg && *xdg) snprintf(base, sizeof base, "%s", xdg);
    else if (home && *home) snprintf(base, sizeof base, "%s/.cache", home);
    else return;
    mkdir(base, 0755);
    int n = snprintf(p->cache_dir, sizeof p->cache_dir, "%s/webnnc", base);
    if (n <= 0 || (size_t)n >= sizeof p->cache_dir || (mkdir(p->cache_dir, 0755) != 0 && errno != EEXIST))
        p->cache_dir[0] = 0;
}

PipelineSet *vk_pipeset_create(VkDev *d) {
    PipelineSet *p = calloc(1, sizeof *p);
    if (p) p->modules = calloc(2 * (size_t)vk_shader_count() + 2, sizeof *p->modules);
    if (p) p->push_extent = calloc((size_t)vk_shader_count() + 1, sizeof *p->push_extent);
    if (!p || !p->modules || !p->push_extent) {
        if (p) {
            free(p->modules);
            free(p->push_extent);
        }
        free(p);
        diag_error("out of memory");
        return NULL;
    }
    if (d->info.max_storage_buffers < K_MAX_BINDINGS) {
        diag_error("vulkan: device %s allows %u storage buffers per shader stage; the kernels' layout has %d", d->info.name,
                   d->info.max_storage_buffers, K_MAX_BINDINGS);
        vk_pipeset_destroy(d, p);
        return NULL;
    }
    /* bindings 0..K_MAX_BINDINGS-1: the kernel's tensors; K_PARAMS_BINDING: its parameter block */
    VkDescriptorSetLayoutBinding b[K_MAX_BINDINGS + 1];
    for (int i = 0; i <= K_MAX_BINDINGS; i++)
        b[i] = (VkDescriptorSetLayoutBinding){.binding = (uint32_t)i, .descriptorType = k_binding_type(i),
                                              .descriptorCount = 1, .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT};
    VkDescriptorSetLayoutCreateInfo dl = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                          .flags = d->push_descriptor_fn ? VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR : 0,
                                          .bindingCount = K_MAX_BINDINGS + 1, .pBindings = b};
    VkResult r = vkCreateDescriptorSetLayout(d->device, &dl, NULL, &p->set_layout);
    if (r != VK_SUCCESS) goto fail;
    /* push constants for the parameter blocks that fit (vk_spirv_push.h; every device has 128 bytes) */
    p->push_range = d->info.max_push_constants < K_PUSH_MAX ? d->info.max_push_constants & ~3u : K_PUSH_MAX;
    VkPushConstantRange push = {VK_SHADER_STAGE_COMPUTE_BIT, 0, p->push_range};
    VkPipelineLayoutCreateInfo pl = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, .setLayoutCount = 1,
                                     .pSetLayouts = &p->set_layout, .pushConstantRangeCount = p->push_range ? 1 : 0,
                                     .pPushConstantRanges = &push};
    r = vkCreatePipelineLayout(d->device, &pl, NULL, &p->layout);
    if (r != VK_SUCCESS) goto fail;
    cache_dir_init(p);
    return p;
fail:
    vkdev_fail("vkCreatePipelineLayout", r);
    vk_pipeset_destroy(d, p);
    return NULL;
}

void vk_pipeset_destroy(VkDev *d, PipelineSet *p) {
    if (!p) return;
    for (int i = 0; i < p->n; i++) vkDestroyPipeline(d->device, p->entries[i].pipeline, NULL);
    for (int i = 0; p->modules && i < 2 * vk_shader_count(); i++)
        if (p->modules[i]) vkDestroyShaderModule(d->device, p->modules[i], NULL);
    if (p->layout) vkDestroyPipelineLayout(d->device, p->layout, NULL);
    if (p->set_layout) vkDestroyDescriptorSetLayout(d->device, p->set_layout, NULL);
    free(p->entries);
    free(p->modules);
    free(p->push_extent);
    free(p);
}

VkPipelineLayout vk_pipeset_layout(const VkDev *d) { return d->pipelines->layout; }
uint32_t vk_pipeset_push_range(const VkDev *d) { return d->pipelines->push_range; }

bool vk_pipeset_push_fits(VkDev *d, int shader) {
    PipelineSet *p = d->pipelines;
    const ShaderInfo *si = vk_shader_get(shader);
    if (!si) return false;
    if (!p->push_extent[shader]) {
        uint32_t e = vk_spirv_params_extent(si->code, si->size, K_PARAMS_BINDING);
        p->push_extent[shader] = e == UINT32_MAX ? UINT32_MAX : e + 1;
    }
    return p->push_extent[shader] - 1 <= p->push_range;
}
VkDescriptorSetLayout vk_pipeset_set_layout(const VkDev *d) { return d->pipelines->set_layout; }
int vk_pipeset_count(const VkDev *d) { return d->pipelines->n; }

/* Cache files: "WNPC" + xxHash64 of the driver's data (little-endian) + the data.  A file that is
 * short, foreign or corrupt is ignored (the pipeline is compiled and the file rewritten), so the
 * driver only ever sees bytes webnnc itself got from vkGetPipelineCacheData. */
#define CACHE_MAGIC "WNPC"
#define CACHE_HEADER 12
#define CACHE_MAX_BYTES (64u << 20)

/* The driver's data inside a cache file (malloc'ed block at *block), or NULL. */
static const void *read_cache(const char *path, void **block, size_t *len) {
    FILE *f = fopen(path, "rb");
    *block = NULL;
    if (!f) return NULL;
    uint8_t *buf = malloc(CACHE_MAX_BYTES);
    size_t n = buf ? fread(buf, 1, CACHE_MAX_BYTES, f) : 0;
    fclose(f);
    uint64_t want = 0;
    for (int i = 0; i < 8 && n > CACHE_HEADER; i++) want |= (uint64_t)buf[4 + i] << (8 * i);
    if (n <= CACHE_HEADER || n == CACHE_MAX_BYTES || memcmp(buf, CACHE_MAGIC, 4) != 0 ||
        XXH64(buf + CACHE_HEADER, n - CACHE_HEADER, 0) != want) {
        free(buf);
        return NULL;
    }
    *block = buf;
    *len = n - CACHE_HEADER;
    return buf + CACHE_HEADER;
}

/* Best effort (a cache): a temporary file created O_EXCL | O_NOFOLLOW, renamed into place. */
static void write_cache(const char *path, const void *data, size_t len) {
    uint8_t hdr[CACHE_HEADER] = CACHE_MAGIC;
    uint64_t h = XXH64(data, len, 0);
    for (int i = 0; i < 8; i++) hdr[4 + i] = (uint8_t)(h >> (8 * i));
    OutFile f;
    bool had_error = diag_has_error();
    if (wn_outfile_open(&f, path) < 0 || wn_outfile_write(&f, hdr, sizeof hdr) < 0 || wn_outfile_write(&f, data, len) < 0 ||
        wn_outfile_commit(&f) < 0) {
        if (f.fd >= 0) wn_outfile_abort(&f);
        if (!had_error) diag_clear(); /* no error: the pipeline is simply compiled again next time */
    }
}

/* WEBNNC_PIPELINE_STATS=1: one stderr line per new pipeline with the driver's statistics. */
static void print_pipeline_stats(VkDev *d, VkPipeline pipe, const ShaderInfo *si, const uint32_t *spec, int n_spec) {
    PFN_vkGetPipelineExecutableStatisticsKHR get_stats =
        (PFN_vkGetPipelineExecutableStatisticsKHR)vkGetDeviceProcAddr(d->device, "vkGetPipelineExecutableStatisticsKHR");
    if (!get_stats) return;
    VkPipelineExecutableInfoKHR ei = {.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR, .pipeline = pipe, .executableIndex = 0};
    VkPipelineExecutableStatisticKHR st[32];
    uint32_t n = 32;
    for (uint32_t i = 0; i < n; i++) st[i] = (VkPipelineExecutableStatisticKHR){.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR};
    VkResult r = get_stats(d->device, &ei, &n, st);
    if (r != VK_SUCCESS && r != VK_INCOMPLETE) return;
    fprintf(stderr, "pipeline %s %s->%s spec [", si->name, dtype_name(si->a), dtype_name(si->b));
    for (int i = 0; i < n_spec; i++) fprintf(stderr, "%s%u", i ? " " : "", spec[i]);
    fprintf(stderr, "]:");
    for (uint32_t i = 0; i < n; i++) {
        fprintf(stderr, " %s=", st[i].name);
        switch (st[i].format) {
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR: fprintf(stderr, "%u", st[i].value.b32); break;
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR: fprintf(stderr, "%lld", (long long)st[i].value.i64); break;
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR: fprintf(stderr, "%llu", (unsigned long long)st[i].value.u64); break;
        default: fprintf(stderr, "%g", st[i].value.f64); break;
        }
        fprintf(stderr, ";");
    }
    fprintf(stderr, "\n");
}

/* The module of `shader` as the device takes it: with push-constant parameters when `push`
 * (vk_spirv_push.h), float16 rounding to nearest even where asked (vk_spirv_rte.h). */
static VkShaderModule module_of(VkDev *d, PipelineSet *p, const ShaderInfo *si, int shader, bool push) {
    VkShaderModule *m = &p->modules[2 * shader + (push ? 1 : 0)];
    if (*m) return *m;
    size_t size = si->size;
    uint32_t *pushed = push ? vk_spirv_params_push(si->code, si->size, K_PARAMS_BINDING, &size) : NULL;
    if (push && !pushed) return VK_NULL_HANDLE;
    const uint32_t *code = pushed ? pushed : si->code;
    uint32_t *rte = d->round_rte16 ? vk_spirv_with_rte16(code, size, &size) : NULL;
    if (d->round_rte16 && !rte) {
        free(pushed);
        return VK_NULL_HANDLE;
    }
    VkShaderModuleCreateInfo mi = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = size, .pCode = rte ? rte : code};
    VkResult r = vkCreateShaderModule(d->device, &mi, NULL, m);
    free(rte);
    free(pushed);
    if (r != VK_SUCCESS) {
        vkdev_fail("vkCreateShaderModule", r);
        *m = VK_NULL_HANDLE;
    }
    return *m;
}

VkPipeline vk_pipeset_get(VkDev *d, int shader, const uint32_t *spec, int n_spec, bool push) {
    PipelineSet *p = d->pipelines;
    const ShaderInfo *si = vk_shader_get(shader);
    if (!si || n_spec < 0 || n_spec > K_MAX_SPEC || (push && !vk_pipeset_push_fits(d, shader))) {
        diag_error("internal: bad shader %d", shader);
        return VK_NULL_HANDLE;
    }
    for (int i = 0; i < p->n; i++) {
        PipeEntry *e = &p->entries[i];
        if (e->shader == shader && e->push == push && e->n_spec == n_spec && memcmp(e->spec, spec, sizeof *spec * (size_t)n_spec) == 0)
            return e->pipeline;
    }
    VkResult r;
    VkShaderModule module = module_of(d, p, si, shader, push);
    if (!module) return VK_NULL_HANDLE;
    VkSpecializationMapEntry me[K_MAX_SPEC];
    for (int i = 0; i < n_spec; i++) me[i] = (VkSpecializationMapEntry){(uint32_t)i, (uint32_t)(4 * i), 4};
    VkSpecializationInfo spi = {.mapEntryCount = (uint32_t)n_spec, .pMapEntries = me, .dataSize = 4 * (size_t)n_spec, .pData = spec};

    /* Disk cache keyed by SPIR-V + spec constants + driver UUID. */
    char path[1100] = "";
    void *init_block = NULL;
    const void *init = NULL;
    size_t init_len = 0;
    if (p->cache_dir[0]) {
        XXH64_state_t *st = XXH64_createState();
        if (st) {
            XXH64_reset(st, 0);
            XXH64_update(st, si->code, si->size);
            XXH64_update(st, spec, 4 * (size_t)n_spec);
            XXH64_update(st, &d->round_rte16, sizeof d->round_rte16); /* the module as patched */
            XXH64_update(st, &push, sizeof push);
            XXH64_update(st, d->pipeline_cache_uuid, VK_UUID_SIZE);
            snprintf(path, sizeof path, "%s/%016llx.bin", p->cache_dir, (unsigned long long)XXH64_digest(st));
            XXH64_freeState(st);
            init = read_cache(path, &init_block, &init_len);
        }
    }
    VkPipelineCache cache = VK_NULL_HANDLE;
    VkPipelineCacheCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO, .initialDataSize = init_len, .pInitialData = init};
    if (path[0] && vkCreatePipelineCache(d->device, &ci, NULL, &cache) != VK_SUCCESS) cache = VK_NULL_HANDLE;

    VkComputePipelineCreateInfo pci = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                  .module = module, .pName = "main", .pSpecializationInfo = &spi},
        .layout = p->layout, .flags = d->pipeline_stats ? VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR : 0};
    VkPipeline pipe = VK_NULL_HANDLE;
    r = vkCreateComputePipelines(d->device, cache, 1, &pci, NULL, &pipe);
    if (cache && r == VK_SUCCESS && !init) {
        size_t len = 0;
        if (vkGetPipelineCacheData(d->device, cache, &len, NULL) == VK_SUCCESS && len > 0) {
            void *data = malloc(len);
            if (data && vkGetPipelineCacheData(d->device, cache, &len, data) == VK_SUCCESS) write_cache(path, data, len);
            free(data);
        }
    }
    if (cache) vkDestroyPipelineCache(d->device, cache, NULL);
    free(init_block);
    if (r != VK_SUCCESS) {
        diag_error("vulkan: creating the pipeline for shader %s failed (VkResult %d)", si->name, (int)r);
        return VK_NULL_HANDLE;
    }
    if (d->pipeline_stats) print_pipeline_stats(d, pipe, si, spec, n_spec);
    if (p->n == p->cap) {
        int cap = p->cap ? 2 * p->cap : 32;
        PipeEntry *ne = realloc(p->entries, sizeof *ne * (size_t)cap);
        if (!ne) {
            vkDestroyPipeline(d->device, pipe, NULL);
            diag_error("out of memory");
            return VK_NULL_HANDLE;
        }
        p->entries = ne;
        p->cap = cap;
    }
    PipeEntry *e = &p->entries[p->n++];
    d->pipelines_created++;
    memset(e, 0, sizeof *e);
    e->shader = shader;
    e->push = push;
    e->n_spec = n_spec;
    memcpy(e->spec, spec, 4 * (size_t)n_spec);
    e->pipeline = pipe;
    return pipe;
}
