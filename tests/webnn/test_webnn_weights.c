/* test_webnn_weights.c - the one-pass weights writer: duplicates found after they were written
 * are rewound over (zero padding and exact file size afterwards, also for tensors written
 * straight from memory in chunks), hashes match libxxhash over the expected bytes, the file_map
 * registry drops resident pages of registered mappings only, ONNX external data is registered,
 * and the output folder gets the umask's mode. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "core.h"
#include "onnx_model.h"
#include "webnn_test_util.h"


/* The bytes tu_const_f32 gives element i: (i % 13) * scale + offset. */
static float *expected_f32(int64_t n, float scale, float offset) {
    float *f = malloc((size_t)n * sizeof *f);
    for (int64_t i = 0; i < n; i++) f[i] = (float)(i % 13) * scale + offset;
    return f;
}

/* Output y_<name> = relu(const) for each constant, so every constant is written. */
static void use(Graph *g, Value *c) { graph_add_output(g, tu_finish(g, tu_node(g, OP_RELU, 1, c))); }

static unsigned char *write_and_read(Graph *g, size_t *len, char **manifest, char **json) {
    const char *out = tu_path(tu_scratch, "out");
    ck_assert_msg(webnn_write(g, out, NULL) == 0, "%s", diag_message());
    unsigned char *w = (unsigned char *)tu_read_file(tu_path(out, WN_WEIGHTS_FILE), len);
    ck_assert_ptr_nonnull(w);
    *manifest = tu_read_file(tu_path(out, WN_MANIFEST_FILE), NULL);
    *json = tu_read_file(tu_path(out, WN_GRAPH_FILE), NULL);
    return w;
}

static void assert_manifest_entry(const char *manifest, const char *name, uint64_t offset,
                                  uint64_t length, const void *bytes) {
    char want[256];
    snprintf(want, sizeof want, "\"%s\": {\"dataType\": \"float32\", \"shape\": [%llu], \"byteOffset\": %llu, "
             "\"byteLength\": %llu, \"layout\": \"row-major\", \"xxhash64\": \"%016llx\"}", name,
             (unsigned long long)(length / 4), (unsigned long long)offset, (unsigned long long)length,
             (unsigned long long)XXH64(bytes, (size_t)length, 0));
    ck_assert_msg(strstr(manifest, want), "manifest lacks %s in:\n%s", want, manifest);
}

static void assert_zero(const unsigned char *w, size_t from, size_t to) {
    for (size_t i = from; i < to; i++) ck_assert_msg(w[i] == 0, "byte %zu is %u, not padding", i, w[i]);
}

START_TEST(duplicate_rewound_then_shorter_tensor) {
    /* a: 20 floats at 64..144; b == a (written at 192, rewound); c: 12 floats at 192..240. */
    Graph *g = graph_new("dups");
    use(g, tu_const_f32(g, "a", SHAPE(20), 0.5f, 1.0f));
    use(g, tu_const_f32(g, "b", SHAPE(20), 0.5f, 1.0f));
    use(g, tu_const_f32(g, "c", SHAPE(12), -0.25f, 3.0f));
    size_t len;
    char *m, *j;
    unsigned char *w = write_and_read(g, &len, &m, &j);
    float *a = expected_f32(20, 0.5f, 1.0f), *c = expected_f32(12, -0.25f, 3.0f);
    ck_assert_uint_eq(len, 240);
    ck_assert(memcmp(w, "WGWT\x01\x00\x00\x00", 8) == 0);
    assert_zero(w, 8, 64);
    ck_assert(memcmp(w + 64, a, 80) == 0);
    assert_zero(w, 144, 192);
    ck_assert(memcmp(w + 192, c, 48) == 0);
    assert_manifest_entry(m, "a", 64, 80, a);
    assert_manifest_entry(m, "c", 192, 48, c);
    ck_assert_ptr_null(strstr(m, "\"b\""));
    ck_assert_ptr_nonnull(strstr(j, "\"b\": {\"dataType\": \"float32\", \"shape\": [20], \"init\": {\"kind\": \"weights\", \"ref\": \"a\"}}"));
    free(a);
    free(c);
    free(w);
    free(m);
    free(j);
    graph_free(g);
}
END_TEST

START_TEST(duplicate_last_truncates) {
    Graph *g = graph_new("dup_last");
    use(g, tu_const_f32(g, "a", SHAPE(20), 0.5f, 1.0f));
    use(g, tu_const_f32(g, "z", SHAPE(20), 0.5f, 1.0f));
    size_t len;
    char *m, *j;
    unsigned char *w = write_and_read(g, &len, &m, &j);
    ck_assert_uint_eq(len, 144);
    ck_assert_ptr_nonnull(strstr(j, "\"ref\": \"a\"}}"));
    ck_assert_ptr_null(strstr(j, "\"ref\": \"z\"}}"));
    free(w);
    free(m);
    free(j);
    graph_free(g);
}
END_TEST

START_TEST(large_chunked_duplicate) {
    /* 300000 floats = 1.2 MB: written straight from memory in chunks, hashed as it goes.
     * big1 at 64..1200064 (a multiple of 64); big2 == big1 is rewound; small at 1200064. */
    enum { N = 300000 };
    Graph *g = graph_new("large");
    use(g, tu_const_f32(g, "big1", SHAPE(N), 0.125f, -0.5f));
    use(g, tu_const_f32(g, "big2", SHAPE(N), 0.125f, -0.5f));
    use(g, tu_const_f32(g, "small", SHAPE(16), 2.0f, 0.0f));
    size_t len;
    char *m, *j;
    unsigned char *w = write_and_read(g, &len, &m, &j);
    float *big = expected_f32(N, 0.125f, -0.5f), *small = expected_f32(16, 2.0f, 0.0f);
    ck_assert_uint_eq(len, 1200064 + 64);
    ck_assert(memcmp(w + 64, big, N * 4) == 0);
    ck_assert(memcmp(w + 1200064, small, 64) == 0);
    assert_manifest_entry(m, "big1", 64, N * 4, big);
    assert_manifest_entry(m, "small", 1200064, 64, small);
    ck_assert_ptr_nonnull(strstr(j, "\"big2\": {\"dataType\": \"float32\", \"shape\": [300000], \"init\": {\"kind\": \"weights\", \"ref\": \"big1\"}}"));
    free(big);
    free(small);
    free(w);
    free(m);
    free(j);
    graph_free(g);
}
END_TEST

/* Resident pages of this process (/proc/self/statm, field 2). */
static long resident_pages(void) {
    FILE *f = fopen("/proc/self/statm", "r");
    long size = 0, res = -1;
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(fscanf(f, "%ld %ld", &size, &res), 2);
    fclose(f);
    return res;
}

START_TEST(file_map_release_drops_mapped_pages_only) {
    enum { SIZE = 8 << 20 };
    const char *path = tu_path(tu_scratch, "data.bin");
    unsigned char *pattern = malloc(SIZE);
    for (size_t i = 0; i < SIZE; i++) pattern[i] = (unsigned char)(i * 7 + (i >> 12));
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, pattern, SIZE), SIZE);
    const unsigned char *map = mmap(NULL, SIZE, PROT_READ, MAP_PRIVATE, fd, 0);
    ck_assert(map != MAP_FAILED);
    ck_assert(file_map_register(map, SIZE, fd));

    int got_fd = -2;
    uint64_t off = 0;
    ck_assert(file_map_find(map + 4101, 100, &got_fd, &off));
    ck_assert_int_eq(got_fd, fd);
    ck_assert_uint_eq(off, 4101);
    ck_assert(!file_map_find(map + SIZE - 10, 20, &got_fd, &off)); /* runs past the end */
    ck_assert(!file_map_find(pattern, 10, &got_fd, &off));

    ck_assert(memcmp(map, pattern, SIZE) == 0); /* every page resident now */
    long before = resident_pages();
    file_map_release(map + 1, SIZE - 1); /* rounded out to whole pages */
    long after = resident_pages();
    ck_assert_msg(before - after >= (SIZE / 4096) * 3 / 4, "resident %ld -> %ld pages", before, after);
    ck_assert(memcmp(map, pattern, SIZE) == 0); /* refaults the same bytes */

    /* Memory that is not a registered mapping is left alone (MADV_DONTNEED would zero it). */
    unsigned char *heap = malloc(SIZE);
    memcpy(heap, pattern, SIZE);
    file_map_release(heap, SIZE);
    ck_assert(memcmp(heap, pattern, SIZE) == 0);

    file_map_unregister(map);
    ck_assert(!file_map_find(map + 4101, 100, &got_fd, &off));
    munmap((void *)map, SIZE);
    close(fd);
    free(heap);
    free(pattern);
}
END_TEST

START_TEST(onnx_external_data_is_registered) {
    const char *path = tu_path(tu_scratch, "w.data");
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ck_assert_int_ge(fd, 0);
    static unsigned char bytes[8192];
    for (size_t i = 0; i < sizeof bytes; i++) bytes[i] = (unsigned char)i;
    ck_assert_int_eq(write(fd, bytes, sizeof bytes), (int)sizeof bytes);
    close(fd);
    OnnxModel *m = calloc(1, sizeof *m);
    m->path = strdup("model.onnx");
    m->dir = strdup(tu_scratch);
    const unsigned char *p = onnx_model_external_bytes(m, "w", "w.data", 4096, 100);
    ck_assert_msg(p != NULL, "%s", diag_message());
    ck_assert_uint_eq(p[0], 0); /* byte 4096 = (unsigned char)4096 */
    ck_assert_uint_eq(p[5], 5);
    int got_fd = -1;
    uint64_t off = 0;
    ck_assert(file_map_find(p, 100, &got_fd, &off));
    ck_assert_uint_eq(off, 4096);
    unsigned char back[100];
    ck_assert_int_eq(pread(got_fd, back, sizeof back, (off_t)off), (int)sizeof back); /* fd usable */
    ck_assert(memcmp(back, bytes + 4096, sizeof back) == 0);
    onnx_model_free(m);
    ck_assert(!file_map_find(p, 100, &got_fd, &off)); /* unregistered with the mapping */
}
END_TEST

static unsigned folder_mode_with_umask(mode_t mask) {
    mode_t old = umask(mask);
    Graph *g = graph_new("mode");
    use(g, tu_const_f32(g, "a", SHAPE(20), 0.5f, 1.0f));
    const char *out = tu_path(tu_scratch, "out");
    int rc = webnn_write(g, out, NULL);
    umask(old);
    ck_assert_msg(rc == 0, "%s", diag_message());
    struct stat st;
    ck_assert_int_eq(stat(out, &st), 0);
    tu_rmtree(out);
    graph_free(g);
    return st.st_mode & 07777;
}

START_TEST(output_folder_mode_follows_umask) {
    ck_assert_uint_eq(folder_mode_with_umask(022), 0755);
    ck_assert_uint_eq(folder_mode_with_umask(027), 0750);
}
END_TEST

int main(void) {
    Suite *s = suite_create("webnn-weights");
    TCase *tc = tcase_create("weights");
    tcase_add_checked_fixture(tc, tu_scratch_setup, tu_scratch_teardown);
    tcase_add_test(tc, duplicate_rewound_then_shorter_tensor);
    tcase_add_test(tc, duplicate_last_truncates);
    tcase_add_test(tc, large_chunked_duplicate);
    tcase_add_test(tc, file_map_release_drops_mapped_pages_only);
    tcase_add_test(tc, onnx_external_data_is_registered);
    tcase_add_test(tc, output_folder_mode_follows_umask);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
