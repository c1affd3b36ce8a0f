/* outdir.c - atomic output folders and output files (see outdir.h).  Folders are flat: removal
 * unlinks the files of one level and never recurses.  Nothing here opens an existing path for
 * writing: files are created O_EXCL | O_NOFOLLOW under fresh names and renamed into place. */
#include "outdir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core.h"

/* outdir without trailing slashes, plus `suffix`; malloc'ed. */
static char *sibling(const char *outdir, const char *suffix) {
    size_t len = strlen(outdir);
    while (len > 1 && outdir[len - 1] == '/') len--;
    char *s = malloc(len + strlen(suffix) + 1);
    if (!s) abort();
    memcpy(s, outdir, len);
    strcpy(s + len, suffix);
    return s;
}

/* Replaces the last 6 characters of `tmpl` with random ones. */
static void fill_random(char *tmpl, size_t n) {
    static const char chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    static uint64_t counter;
    uint64_t r;
    if (getrandom(&r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        r = (uint64_t)ts.tv_nsec ^ (uint64_t)ts.tv_sec << 30 ^ (uint64_t)getpid() << 40;
    }
    r += ++counter * 0x9E3779B97F4A7C15ull;
    for (size_t i = n - 6; i < n; i++, r /= sizeof chars - 1) tmpl[i] = chars[r % (sizeof chars - 1)];
}

/* mkdtemp() without its 0700 mode: mkdir(0777) lets the umask decide, as for any new folder, so
 * the renamed output is as readable as `mkdir OUTDIR` would have made it. */
static bool make_temp_dir(char *tmpl) {
    size_t n = strlen(tmpl);
    if (n < 6) return false;
    for (int attempt = 0; attempt < 1000; attempt++) {
        fill_random(tmpl, n);
        if (mkdir(tmpl, 0777) == 0) return true;
        if (errno != EEXIST) return false;
    }
    return false;
}

char *wn_outdir_begin(const char *outdir) {
    if (!outdir || !*outdir) {
        diag_error("no output folder given");
        return NULL;
    }
    char *tmp = sibling(outdir, ".tmp-XXXXXX");
    if (!make_temp_dir(tmp)) {
        diag_error("%s: cannot create a temporary folder beside it: %s", outdir, strerror(errno));
        free(tmp);
        return NULL;
    }
    return tmp;
}

void wn_outdir_remove(const char *tmp) {
    DIR *d = opendir(tmp);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
            unlinkat(dirfd(d), e->d_name, 0);
        }
        closedir(d);
    }
    rmdir(tmp);
}

/* 1: outdir is a folder holding only files from `ours`; 0: holds something else; -1: error. */
static int is_ours(const char *outdir, const char *const *ours) {
    DIR *d = opendir(outdir);
    if (!d) {
        diag_error("%s: exists and is not a readable folder: %s", outdir, strerror(errno));
        return -1;
    }
    int ok = 1;
    struct dirent *e;
    while (ok && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        ok = 0;
        for (int i = 0; ours[i]; i++)
            if (!strcmp(e->d_name, ours[i])) ok = 1;
        struct stat st;
        if (ok && (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))) ok = 0;
    }
    closedir(d);
    if (!ok) diag_error("%s: exists and holds files webnnc did not write; not replacing it", outdir);
    return ok;
}

int wn_outdir_commit(const char *tmp, const char *outdir, const char *const *ours) {
    struct stat st;
    if (lstat(outdir, &st) != 0) {
        if (rename(tmp, outdir) == 0) return 0;
        diag_error("%s: cannot move the output into place: %s", outdir, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        diag_error("%s: exists and is not a folder", outdir);
        return -1;
    }
    if (is_ours(outdir, ours) != 1) return -1;
    /* Atomic swap where the kernel has it; tmp then holds the old output. */
    if (renameat2(AT_FDCWD, tmp, AT_FDCWD, outdir, RENAME_EXCHANGE) == 0) {
        wn_outdir_remove(tmp);
        return 0;
    }
    char *old = sibling(outdir, ".old-XXXXXX");
    int rc = -1;
    if (!mkdtemp(old) || rmdir(old) != 0 || rename(outdir, old) != 0) {
        diag_error("%s: cannot move the previous output away: %s", outdir, strerror(errno));
    } else if (rename(tmp, outdir) != 0) {
        diag_error("%s: cannot move the output into place: %s", outdir, strerror(errno));
        rename(old, outdir); /* put the previous output back */
    } else {
        wn_outdir_remove(old);
        rc = 0;
    }
    free(old);
    return rc;
}

int wn_outdir_create_file(const char *dir, const char *name, char *path, size_t path_len) {
    snprintf(path, path_len, "%s/%s", dir, name);
    /* dir is a folder this process made: nothing else should be there, and a link never is followed */
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) diag_error("%s: cannot create: %s", path, strerror(errno));
    return fd;
}

/* Writes all of data to fd; `path` names the file in the diagnostic. */
static int write_all(int fd, const char *path, const void *data, size_t len) {
    const char *p = data;
    while (len) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            diag_error("%s: write failed: %s", path, w < 0 ? strerror(errno) : "no progress");
            return -1;
        }
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

int wn_outdir_write_file(const char *dir, const char *name, const char *data, size_t len) {
    char path[4096];
    int fd = wn_outdir_create_file(dir, name, path, sizeof path);
    if (fd < 0) return -1;
    if (write_all(fd, path, data, len) < 0) {
        close(fd);
        return -1;
    }
    if (close(fd) != 0) {
        diag_error("%s: write failed: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

int wn_outdir_copy_file(const char *dir, const char *name, const char *src) {
    int in = open(src, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (in < 0 || fstat(in, &st) != 0 || !S_ISREG(st.st_mode)) {
        diag_error("%s: cannot copy: %s", src, in < 0 ? strerror(errno) : "not a regular file");
        if (in >= 0) close(in);
        return -1;
    }
    char path[4096], buf[1 << 16];
    int fd = wn_outdir_create_file(dir, name, path, sizeof path), rc = fd < 0 ? -1 : 0;
    ssize_t n = 0;
    while (rc == 0 && (n = read(in, buf, sizeof buf)) != 0) {
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            diag_error("%s: read failed: %s", src, strerror(errno));
            rc = -1;
        } else
            rc = write_all(fd, path, buf, (size_t)n);
    }
    close(in);
    if (fd >= 0 && close(fd) != 0 && rc == 0) {
        diag_error("%s: write failed: %s", path, strerror(errno));
        rc = -1;
    }
    return rc;
}

int wn_outfile_open(OutFile *f, const char *path) {
    *f = (OutFile){.fd = -1};
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    if (!*base || !strcmp(base, ".") || !strcmp(base, "..")) {
        diag_error("%s: not a file name", path);
        return -1;
    }
    size_t dlen = slash ? (size_t)(slash - path) + 1 : 0;
    f->path = strdup(path);
    f->tmp = malloc(dlen + strlen(base) + sizeof "..tmp-XXXXXX");
    if (!f->path || !f->tmp) abort();
    memcpy(f->tmp, path, dlen);
    sprintf(f->tmp + dlen, ".%s.tmp-XXXXXX", base);
    for (int attempt = 0; attempt < 1000 && f->fd < 0; attempt++) {
        fill_random(f->tmp, strlen(f->tmp));
        f->fd = open(f->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (f->fd < 0 && errno != EEXIST) break;
    }
    if (f->fd < 0) {
        diag_error("%s: cannot create: %s", path, strerror(errno));
        free(f->path);
        free(f->tmp);
        *f = (OutFile){.fd = -1};
        return -1;
    }
    return 0;
}

int wn_outfile_write(OutFile *f, const void *data, size_t len) { return write_all(f->fd, f->path, data, len); }

void wn_outfile_abort(OutFile *f) {
    if (f->fd >= 0) close(f->fd);
    if (f->tmp) unlink(f->tmp);
    free(f->path);
    free(f->tmp);
    *f = (OutFile){.fd = -1};
}

int wn_outfile_commit(OutFile *f) {
    struct stat st;
    const char *why = NULL;
    if (close(f->fd) != 0) why = strerror(errno);
    f->fd = -1;
    /* rename() would also refuse a folder, but name the problem plainly */
    if (!why && lstat(f->path, &st) == 0 && S_ISDIR(st.st_mode)) why = "is a folder";
    if (!why && rename(f->tmp, f->path) != 0) why = strerror(errno);
    if (why) {
        diag_error("%s: cannot write: %s", f->path, why);
        wn_outfile_abort(f);
        return -1;
    }
    free(f->path);
    free(f->tmp);
    *f = (OutFile){.fd = -1};
    return 0;
}

int wn_outfile_write_atomic(const char *path, const char *data, size_t len) {
    struct stat st;
    if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        diag_error("%s: exists and is not a regular file; not replacing it", path);
        return -1;
    }
    OutFile f;
    if (wn_outfile_open(&f, path) < 0) return -1;
    if (wn_outfile_write(&f, data, len) < 0) {
        wn_outfile_abort(&f);
        return -1;
    }
    return wn_outfile_commit(&f);
}
