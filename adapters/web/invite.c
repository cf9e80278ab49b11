/*
 * invite.c - where friends open the table, and its QR code.
 *
 * GET /invite.json answers {"local": true, "port"} when the table listens on
 * loopback only (nobody else can join), else {"local": false, "port",
 * "urls": [{"url", "network"}]}: the names in [web] hosts that are not
 * loopback names, then the bind address, or bound to every interface the
 * address of each network (as the log names them). GET /invite/<n>.svg is
 * the QR code of urls[n], drawn by libqrencode as an SVG of dark modules, so
 * a phone's camera opens the table; the page shows it beside the address.
 */
#include <qrencode.h>

#include "bot/util/buf.h"
#include "internal.h"

#define INVITE_URLS  8          /* addresses an invite lists */
#define INVITE_QUIET 4          /* modules of white around a QR code, as the standard asks */
#define INVITE_MAX   (64 << 10) /* bytes of an answer */

struct invite_url {
    char url[WEB_HOST_LEN + 16];
    char network[32]; /* the interface's name, or "" for a configured name */
};

static bool loopback_name(const char *s)
{
    return strcmp(s, "localhost") == 0 || strncmp(s, "127.", 4) == 0 || strcmp(s, "::1") == 0;
}

static void add_url(struct invite_url *u, unsigned *n, const char *host, const char *network,
                    int port)
{
    if (*n == INVITE_URLS)
        return;
    bool v6 = strchr(host, ':') != NULL;
    snprintf(u[*n].url, sizeof u[*n].url, "http://%s%s%s:%d/", v6 ? "[" : "", host, v6 ? "]" : "",
             port);
    snprintf(u[*n].network, sizeof u[*n].network, "%s", network);
    for (unsigned i = 0; i < *n; i++)
        if (strcmp(u[i].url, u[*n].url) == 0)
            return; /* named twice */
    (*n)++;
}

unsigned web_network_addresses(bool v6, void (*fn)(void *arg, const char *ip, const char *network),
                               void *arg)
{
    uv_interface_address_t *ifs = NULL;
    int count = 0;
    unsigned n = 0;
    if (uv_interface_addresses(&ifs, &count) != 0)
        count = 0;
    for (int i = 0; i < count; i++) {
        char ip[INET6_ADDRSTRLEN];
        int family = ifs[i].address.address4.sin_family;
        if (ifs[i].is_internal || family != (v6 ? AF_INET6 : AF_INET))
            continue;
        if (family == AF_INET6 && IN6_IS_ADDR_LINKLOCAL(&ifs[i].address.address6.sin6_addr))
            continue; /* needs a zone id no browser takes */
        if (family == AF_INET)
            uv_ip4_name(&ifs[i].address.address4, ip, sizeof ip);
        else
            uv_ip6_name(&ifs[i].address.address6, ip, sizeof ip);
        fn(arg, ip, ifs[i].name);
        n++;
    }
    uv_free_interface_addresses(ifs, count);
    return n;
}

struct network_urls {
    struct invite_url *u;
    unsigned *n;
    int port;
};

static void network_url(void *arg, const char *ip, const char *network)
{
    struct network_urls *all = arg;
    add_url(all->u, all->n, ip, network, all->port);
}

/* The addresses friends open, best first; none when only this computer can. */
static unsigned invite_urls(const struct web *w, struct invite_url *u, bool *local)
{
    unsigned n = 0;
    bool any = !w->bind[0] || strcmp(w->bind, "0.0.0.0") == 0 || strcmp(w->bind, "*") == 0;
    bool any_v6 = strcmp(w->bind, "::") == 0;
    *local = !any && !any_v6 && loopback_name(w->bind);
    if (*local)
        return 0;
    for (const char *p = w->hosts_cfg ? w->hosts_cfg : ""; *p;) {
        p += strspn(p, ", \t");
        size_t len = strcspn(p, ", \t");
        char name[WEB_HOST_LEN];
        if (len && len < sizeof name) {
            memcpy(name, p, len);
            name[len] = '\0';
            if (!loopback_name(name))
                add_url(u, &n, name, "", w->port);
        }
        p += len;
    }
    if (!any && !any_v6) {
        add_url(u, &n, w->bind, "", w->port);
        return n;
    }
    struct network_urls all = {u, &n, w->port};
    web_network_addresses(any_v6, network_url, &all);
    return n;
}

static char *invite_json(const struct web *w, size_t *len)
{
    struct invite_url urls[INVITE_URLS];
    bool local;
    unsigned n = invite_urls(w, urls, &local);
    struct json_object *o = json_object_new_object(), *a = json_object_new_array();
    json_object_object_add(o, "local", json_object_new_boolean(local));
    json_object_object_add(o, "port", json_object_new_int(w->port));
    for (unsigned i = 0; i < n; i++) {
        struct json_object *u = json_object_new_object();
        json_object_object_add(u, "url", json_object_new_string(urls[i].url));
        json_object_object_add(u, "network", json_object_new_string(urls[i].network));
        json_object_array_add(a, u);
    }
    json_object_object_add(o, "urls", a);
    const char *s = json_object_to_json_string_length(
        o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, len);
    char *copy = s ? strdup(s) : NULL;
    json_object_put(o);
    return copy;
}

/* The QR code of text as an SVG: one path of every dark module, a row's run
 * at a time, on white with its quiet zone. */
static char *qr_svg(const char *text, size_t *len)
{
    QRcode *qr = QRcode_encodeString(text, 0, QR_ECLEVEL_M, QR_MODE_8, 1);
    if (!qr)
        return NULL;
    struct buf b;
    buf_init(&b, INVITE_MAX);
    int size = qr->width + 2 * INVITE_QUIET, rc = 0;
    rc |= buf_printf(&b,
                     "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" "
                     "shape-rendering=\"crispEdges\"><rect width=\"%d\" height=\"%d\" "
                     "fill=\"#fff\"/><path fill=\"#000\" d=\"",
                     size, size, size, size);
    for (int y = 0; y < qr->width; y++) {
        for (int x = 0; x < qr->width;) {
            if (!(qr->data[y * qr->width + x] & 1)) {
                x++;
                continue;
            }
            int run = 0;
            while (x + run < qr->width && (qr->data[y * qr->width + x + run] & 1))
                run++;
            rc |= buf_printf(&b, "M%d %dh%dv1h-%dz", x + INVITE_QUIET, y + INVITE_QUIET, run, run);
            x += run;
        }
    }
    rc |= buf_puts(&b, "\"/></svg>");
    QRcode_free(qr);
    *len = b.len;
    char *svg = rc ? NULL : buf_take(&b);
    buf_free(&b);
    return svg;
}

char *web_invite(const struct web *w, const char *path, const char **type, size_t *len)
{
    if (strcmp(path, "/invite.json") == 0) {
        *type = "application/json; charset=utf-8";
        return invite_json(w, len);
    }
    unsigned index;
    char rest[8];
    if (sscanf(path, "/invite/%u.sv%7s", &index, rest) != 2 || strcmp(rest, "g") != 0 ||
        index >= INVITE_URLS)
        return NULL;
    struct invite_url urls[INVITE_URLS];
    bool local;
    if (index >= invite_urls(w, urls, &local))
        return NULL;
    *type = "image/svg+xml";
    return qr_svg(urls[index].url, len);
}
