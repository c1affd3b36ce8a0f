/* outdir.h - atomic output folders: write into OUTDIR.tmp-XXXXXX beside OUTDIR, then swap it
 * into place (replacing a previous webnnc output folder) or remove it on failure; and atomic
 * single output files (OutFile): a temporary file created O_EXCL | O_NOFOLLOW beside the target,
 * renamed over it when complete.  rename() replaces a symlink planted at the target's name
 * instead of writing through it, and a failed write leaves an existing file untouched. */
#ifndef WEBNNC_OUTDIR_H
#define WEBNNC_OUTDIR_H

#include <stddef.h>

/* Creates the temporary folder; returns its malloc'ed path, or NULL + diagnostic. */
char *wn_outdir_begin(const char *outdir);
/* Moves `tmp` to `outdir`.  An existing outdir is replaced only when it holds nothing but files
 * named in `ours` (NULL-terminated); otherwise -1 + diagnostic and outdir is untouched. */
int wn_outdir_commit(const char *tmp, const char *outdir, const char *const *ours);
/* Removes the (flat) temporary folder and its files. */
void wn_outdir_remove(const char *tmp);
/* Creates (truncates) dir/name for writing; its path goes to `path`.  fd, or -1 + diagnostic. */
int wn_outdir_create_file(const char *dir, const char *name, char *path, size_t path_len);
/* Creates dir/name holding `len` bytes.  0, or -1 + diagnostic naming the file. */
int wn_outdir_write_file(const char *dir, const char *name, const char *data, size_t len);
/* Copies the regular file src to dir/name (created as wn_outdir_create_file does).  0, or -1 +
 * diagnostic naming the file. */
int wn_outdir_copy_file(const char *dir, const char *name, const char *src);
/* One file written atomically: `len` bytes into PATH.tmp-XXXXXX beside it (created exclusively,
 * never through a symbolic link), then renamed onto path.  An existing path that is not a regular
 * file is refused.  0, or -1 + diagnostic and path untouched. */
int wn_outfile_write_atomic(const char *path, const char *data, size_t len);

/* A single output file being written. */
typedef struct {
    int fd;     /* open on `tmp` */
    char *path; /* target (malloc'ed) */
    char *tmp;  /* .NAME.tmp-XXXXXX in the target's folder (malloc'ed) */
} OutFile;

/* Creates the temporary file for `path`.  0, or -1 + diagnostic naming path. */
int wn_outfile_open(OutFile *f, const char *path);
/* Writes all `len` bytes to f->fd.  0, or -1 + diagnostic naming the target. */
int wn_outfile_write(OutFile *f, const void *data, size_t len);
/* Closes the file and renames it over the target (a folder there is an error).  On failure the
 * temporary file is removed and the target is untouched.  0, or -1 + diagnostic. */
int wn_outfile_commit(OutFile *f);
/* Closes and removes the temporary file; the target is untouched. */
void wn_outfile_abort(OutFile *f);

#endif
