/* serve_http.c - the HTTP server of `webnnc serve` (serve_http.h).  One request per connection,
 * answered in turn (a person's browser on the same machine); requests larger than 8 KiB, methods
 * other than GET/HEAD and names outside the served folders get 4xx answers. */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "core.h"
#include "embedded.h"
#include "serve_http.h"

int wn_serve_http_listen(int port, int *bound_port) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        diag_error("socket: %s", strerror(errno));
        return -1;
    }
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    if (bind(fd, (struct sockaddr *)&a, sizeof a) < 0 || listen(fd, 16) < 0 || getsockname(fd, (struct sockaddr *)&a, &len) < 0) {
        diag_error("127.0.0.1:%d: %s", port, strerror(errno));
        close(fd);
        return -1;
    }
    *bound_port = ntohs(a.sin_port);
    return fd;
}

static void send_all(int c, const void *data, size_t len) {
    const char *p = data;
    while (len) {
        ssize_t n = send(c, p, len, MSG_NOSIGNAL);
        if (n <= 0) return;
        p += n;
        len -= (size_t)n;
    }
}

static void respond(int c, int status, const char *type, const void *body, size_t len, bool head) {
    char h[512];
    const char *text = status == 200 ? "OK" : status == 302 ? "Found" : status == 400 ? "Bad Request" :
                       status == 404 ? "Not Found" : status == 405 ? "Method Not Allowed" : "Error";
    int n = snprintf(h, sizeof h, "HTTP/1.0 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\nCache-Control: no-store\r\n"
                     "Connection: close\r\n\r\n", status, text, type, len);
    send_all(c, h, (size_t)n);
    if (!head && body) send_all(c, body, len);
}

static void fail(int c, int status, bool head) {
    char body[64];
    int n = snprintf(body, sizeof body, "%d\n", status);
    respond(c, status, "text/plain", body, (size_t)n, head);
}

/* A plain file name: [A-Za-z0-9._-]+ without a leading dot. */
static bool safe_name(const char *s) {
    if (!*s || *s == '.' || strlen(s) > 255) return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '.' || *s == '_' || *s == '-'))
            return false;
    return true;
}

static const char *content_type(const char *name) {
    const char *dot = strrchr(name, '.');
    if (!dot) return "application/octet-stream";
    if (!strcmp(dot, ".html")) return "text/html; charset=utf-8";
    if (!strcmp(dot, ".js") || !strcmp(dot, ".mjs")) return "text/javascript";
    if (!strcmp(dot, ".json")) return "application/json";
    return "application/octet-stream";
}

static void send_file(int c, const char *dir, const char *name, bool head) {
    char path[4096];
    if (!safe_name(name) || snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path) return fail(c, 404, head);
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        if (fd >= 0) close(fd);
        return fail(c, 404, head);
    }
    respond(c, 200, content_type(name), NULL, (size_t)st.st_size, true);
    char buf[65536];
    ssize_t n;
    while (!head && (n = read(fd, buf, sizeof buf)) > 0) send_all(c, buf, (size_t)n);
    close(fd);
}

/* ["input_0.pb", ...]: the .pb/.npy files of dir with plain names, sorted. */
static void send_listing(int c, const char *dir, bool head) {
    struct dirent **list;
    int n = scandir(dir, &list, NULL, alphasort);
    if (n < 0) return fail(c, 404, head);
    size_t cap = 16, len = 0;
    char *json = malloc(cap);
    if (!json) abort();
    json[len++] = '[';
    for (int i = 0; i < n; i++) {
        const char *name = list[i]->d_name;
        size_t k = strlen(name);
        bool tensor = (k > 3 && !strcmp(name + k - 3, ".pb")) || (k > 4 && !strcmp(name + k - 4, ".npy"));
        if (tensor && safe_name(name)) {
            if (len + k + 8 > cap) {
                while (len + k + 8 > cap) cap *= 2;
                if (!(json = realloc(json, cap))) abort();
            }
            len += (size_t)sprintf(json + len, "%s\"%s\"", len > 1 ? "," : "", name);
        }
        free(list[i]);
    }
    free(list);
    json[len++] = ']';
    respond(c, 200, "application/json", json, len, head);
    free(json);
}

static void redirect_to_runner(int c, const ServeOptions *opt, bool head) {
    char loc[2048];
    int n = snprintf(loc, sizeof loc, "/web/run.html?model=/model/&sets=");
    for (int i = 0; i < opt->n_sets && n < (int)sizeof loc - 32; i++) n += snprintf(loc + n, sizeof loc - (size_t)n, "%s/sets/%d/", i ? "," : "", i);
    char h[2300];
    int hn = snprintf(h, sizeof h, "HTTP/1.0 302 Found\r\nLocation: %s\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", loc);
    (void)head;
    send_all(c, h, (size_t)hn);
}

static void route(int c, const ServeOptions *opt, const char *path, bool head) {
    if (!strcmp(path, "/")) return redirect_to_runner(c, opt, head);
    if (!strncmp(path, "/web/", 5)) {
        const EmbeddedFile *f = wn_embedded_find(wn_web_files, path + 5);
        if (!f) return fail(c, 404, head);
        return respond(c, 200, content_type(f->name), f->data, f->len, head);
    }
    if (!strncmp(path, "/model/", 7)) return send_file(c, opt->model_dir, path + 7, head);
    if (!strncmp(path, "/sets/", 6)) {
        char *end;
        long k = strtol(path + 6, &end, 10);
        if (end == path + 6 || *end != '/' || k < 0 || k >= opt->n_sets) return fail(c, 404, head);
        if (!end[1]) return send_listing(c, opt->set_dirs[k], head);
        return send_file(c, opt->set_dirs[k], end + 1, head);
    }
    fail(c, 404, head);
}

static void answer(int c, const ServeOptions *opt) {
    struct timeval tv = {10, 0};
    setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    char req[8193] = "";
    size_t len = 0;
    while (len < sizeof req - 1 && !strstr(req, "\r\n\r\n")) {
        ssize_t n = recv(c, req + len, sizeof req - 1 - len, 0);
        if (n <= 0) break;
        len += (size_t)n;
        req[len] = 0;
    }
    req[len] = 0;
    char method[8], target[2048];
    if (sscanf(req, "%7s %2047s HTTP/", method, target) != 2) return fail(c, 400, false);
    bool head = !strcmp(method, "HEAD");
    if (!head && strcmp(method, "GET")) return fail(c, 405, false);
    char *q = strchr(target, '?');
    if (q) *q = 0;
    if (target[0] != '/' || strchr(target, '%') || strstr(target, "/.") || strstr(target, "//")) return fail(c, 400, head);
    route(c, opt, target, head);
}

int wn_serve_http_loop(int fd, const ServeOptions *opt) {
    for (long served = 0; !opt->max_requests || served < opt->max_requests; served++) {
        int c = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
        if (c < 0) {
            if (errno == EINTR || errno == ECONNABORTED) continue;
            diag_error("accept: %s", strerror(errno));
            return -1;
        }
        answer(c, opt);
        shutdown(c, SHUT_WR);
        close(c);
    }
    return 0;
}
