/* view_svg.c - `webnnc view FILE.svg`: Graphviz's `dot -Tsvg` run on the DOT text of view_dot.c,
 * fed through a pipe while its SVG (and its error text) is read back (view_dot.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core.h"
#include "view_dot.h"

bool view_dot_available(void) {
    const char *path = getenv("PATH");
    if (!path || !*path) return false;
    for (const char *p = path; *p;) {
        const char *end = strchr(p, ':');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        char file[4096];
        if (n && snprintf(file, sizeof file, "%.*s/%s", (int)n, p, VIEW_DOT_PROGRAM) < (int)sizeof file &&
            access(file, X_OK) == 0)
            return true;
        p += n + (end != NULL);
    }
    return false;
}

/* Feeds `dot` to fds[0] while reading fds[1] (SVG) into svg and fds[2] (errors) into err; closes all
 * three.  0, or -1 when poll() fails. */
static int exchange(int fds[3], const char *dot, size_t len, TextBuf *svg, TextBuf *err) {
    size_t sent = 0;
    int rc = 0;
    struct pollfd p[3] = {{fds[0], POLLOUT, 0}, {fds[1], POLLIN, 0}, {fds[2], POLLIN, 0}};
    if (len == 0) close(fds[0]), p[0].fd = -1;
    while (p[0].fd >= 0 || p[1].fd >= 0 || p[2].fd >= 0) {
        if (poll(p, 3, -1) < 0) {
            if (errno == EINTR) continue;
            rc = -1;
            break;
        }
        if (p[0].fd >= 0 && p[0].revents) {
            ssize_t w = (p[0].revents & POLLOUT) ? write(p[0].fd, dot + sent, len - sent) : -1;
            if (w > 0) sent += (size_t)w;
            if ((w < 0 && errno != EINTR && errno != EAGAIN) || sent == len) close(p[0].fd), p[0].fd = -1; /* dot quit early: its status says why */
        }
        for (int k = 1; k < 3; k++) {
            if (p[k].fd < 0 || !p[k].revents) continue;
            char buf[65536];
            ssize_t r = read(p[k].fd, buf, sizeof buf);
            if (r > 0) wn_tb_putn(k == 1 ? svg : err, buf, (size_t)r);
            else if (r == 0 || errno != EINTR) close(p[k].fd), p[k].fd = -1;
        }
    }
    for (int k = 0; k < 3; k++)
        if (p[k].fd >= 0) close(p[k].fd);
    return rc;
}

int view_svg(const char *dot, size_t len, TextBuf *svg) {
    int in[2], out[2], errp[2];
    if (pipe(in) < 0 || pipe(out) < 0 || pipe(errp) < 0) {
        diag_error("cannot run %s: %s", VIEW_DOT_PROGRAM, strerror(errno));
        return -1;
    }
    void (*old)(int) = signal(SIGPIPE, SIG_IGN);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(in[0], 0), dup2(out[1], 1), dup2(errp[1], 2);
        for (int k = 0; k < 2; k++) close(in[k]), close(out[k]), close(errp[k]);
        execlp(VIEW_DOT_PROGRAM, VIEW_DOT_PROGRAM, "-Tsvg", (char *)NULL);
        _exit(127);
    }
    close(in[0]), close(out[1]), close(errp[1]);
    fcntl(in[1], F_SETFL, fcntl(in[1], F_GETFL) | O_NONBLOCK); /* poll() says when to write more */
    int fds[3] = {in[1], out[0], errp[0]}, status = 0;
    TextBuf err;
    wn_tb_init(&err);
    int rc = -1;
    if (pid > 0) rc = exchange(fds, dot, len, svg, &err);
    else close(in[1]), close(out[0]), close(errp[0]);
    while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    signal(SIGPIPE, old);
    if (rc < 0 || pid < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0 || svg->len == 0) {
        const char *msg = err.data ? err.data : "";
        size_t n = strcspn(msg, "\n");
        diag_error("%s -Tsvg failed (%s %d)%s%.*s", VIEW_DOT_PROGRAM, WIFSIGNALED(status) ? "signal" : "exit",
                   WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status), n ? ": " : "", (int)n, msg);
        wn_tb_free(&err);
        return -1;
    }
    wn_tb_free(&err);
    return 0;
}
