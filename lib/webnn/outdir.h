/* outdir.h - atomic output folders: write into OUTDIR.tmp-XXXXXX beside OUTDIR, then swap it
 * into place (replacing a previous webnnc output folder) or remove it on failure; single output
 * files the same way (outfile_write_atomic). */
#ifndef WEBNNC_OUTDIR_H
#define WEBNNC_OUTDIR_H

#include <stddef.h>

/* Creates the temporary folder; returns its malloc'ed path, or NULL + diagnostic. */
char *outdir_begin(const char *outdir);
/* Moves `tmp` to `outdir`.  An existing outdir is replaced only when it holds nothing but files
 * named in `ours` (NULL-terminated); otherwise -1 + diagnostic and outdir is untouched. */
int outdir_commit(const char *tmp, const char *outdir, const char *const *ours);
/* Removes the (flat) temporary folder and its files. */
void outdir_remove(const char *tmp);
/* Creates (truncates) dir/name for writing; its path goes to `path`.  fd, or -1 + diagnostic. */
int outdir_create_file(const char *dir, const char *name, char *path, size_t path_len);
/* Creates dir/name holding `len` bytes.  0, or -1 + diagnostic naming the file. */
int outdir_write_file(const char *dir, const char *name, const char *data, size_t len);
/* One file written atomically: `len` bytes into PATH.tmp-XXXXXX beside it (created exclusively,
 * never through a symbolic link), then renamed onto path.  An existing path that is not a regular
 * file is refused.  0, or -1 + diagnostic and path untouched. */
int outfile_write_atomic(const char *path, const char *data, size_t len);

#endif
