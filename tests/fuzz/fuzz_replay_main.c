/* fuzz_replay_main.c - main() for the regression replays: runs a harness's LLVMFuzzerTestOneInput
 * over every file named on the command line (folders: every file inside, sorted), so that the
 * normal gcc build (meson suite `fuzz`) replays tests/fuzz/regressions/<harness>/ without clang.
 * A crash, sanitizer report or abort fails the test; an empty or missing folder is an error too
 * (a replay that reads nothing cannot fail). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_util.h"

static int replay_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "%s: cannot open\n", path);
        return -1;
    }
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) buf = realloc(buf, cap *= 2);
    }
    fclose(f);
    if (!buf) return -1;
    /* libFuzzer hands the harness an exactly sized heap copy: do the same so ASan sees overreads */
    uint8_t *exact = malloc(n ? n : 1);
    memcpy(exact, buf, n);
    free(buf);
    LLVMFuzzerTestOneInput(exact, n);
    free(exact);
    printf("replayed %s (%zu bytes)\n", path, n);
    return 0;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int replay_dir(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return -1;
    char **names = NULL;
    size_t n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.' || !strcmp(e->d_name, "README.md")) continue;
        names = realloc(names, (n + 1) * sizeof *names);
        names[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof *names, cmp_str);
    int rc = n ? 0 : -1;
    if (!n) fprintf(stderr, "%s: no regression inputs\n", dir);
    for (size_t i = 0; i < n; i++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (replay_file(path) < 0) rc = -1;
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
        return 2;
    }
    int rc = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "%s: missing\n", argv[i]);
            rc = 1;
        } else if (S_ISDIR(st.st_mode) ? replay_dir(argv[i]) < 0 : replay_file(argv[i]) < 0) {
            rc = 1;
        }
    }
    return rc;
}
