/* serve_http.h - a small HTTP/1.0 server on 127.0.0.1 for `webnnc serve` (serve_http.c): the
 * browser runner built into webnnc (web/, embedded.h) at /web/, the files of one webnn-graph output
 * folder at /model/, and test-set folders at /sets/K/ (GET of the folder lists its .pb/.npy files
 * as a JSON array).  GET and HEAD only; names are plain file names ([A-Za-z0-9._-], no leading dot)
 * looked up in those folders, so nothing outside them can be reached. */
#ifndef WEBNNC_SERVE_HTTP_H
#define WEBNNC_SERVE_HTTP_H

typedef struct {
    const char *model_dir;  /* OUTDIR */
    const char **set_dirs;  /* test sets, served as /sets/0/ .. */
    int n_sets;
    int port;               /* 0: any free port */
    long max_requests;      /* stop after this many (0: never) */
} ServeOptions;

/* Binds 127.0.0.1:port; *bound_port receives the port.  Returns the listening socket, or -1 +
 * diagnostic. */
int wn_serve_http_listen(int port, int *bound_port);
/* Answers requests on `fd` until max_requests (never returns when 0).  0, or -1 + diagnostic. */
int wn_serve_http_loop(int fd, const ServeOptions *opt);

#endif
