/*
 * limits.c - connections counted per client address, and the Host names allowed.
 */
#include "internal.h"

/* ---- connections: counted per client address, from accept() to close ---- */

static void addr_string(const struct sockaddr_storage *from, char out[WEB_ADDR_LEN])
{
    /* libwebsockets may hand the address at an odd offset, and callers pass
     * objects as small as the family's own struct: read an aligned copy of
     * just that much */
    sa_family_t family;
    memcpy(&family, (const char *)from + offsetof(struct sockaddr_storage, ss_family),
           sizeof family);
    struct sockaddr_in in4;
    struct sockaddr_in6 in6;
    const void *a = NULL;
    if (family == AF_INET) {
        memcpy(&in4, from, sizeof in4);
        a = &in4.sin_addr;
    } else if (family == AF_INET6) {
        memcpy(&in6, from, sizeof in6);
        a = &in6.sin6_addr;
    }
    if (!a || !inet_ntop(family, a, out, WEB_ADDR_LEN))
        snprintf(out, WEB_ADDR_LEN, "?");
}

/* At accept(): whether the client at a may open one more connection (0) or is refused (1). */
int web_peer_admit(struct web *w, const struct lws_filter_network_conn_args *a)
{
    char addr[WEB_ADDR_LEN];
    addr_string(&a->cli_addr, addr);
    if (w->npeers >= w->max_conns) {
        log_warn(MOD, NULL, "refused a connection from %s: %u open (max_connections)", addr,
                 w->npeers);
        return 1;
    }
    unsigned same = 0;
    for (unsigned i = 0; i < w->npeers; i++)
        if (strcmp(w->peers[i].addr, addr) == 0)
            same++;
    if (same >= w->max_per_addr) {
        log_warn(MOD, NULL, "refused a connection from %s: %u open from there (max_per_address)",
                 addr, same);
        return 1;
    }
    /* lws makes the connection's wsi next, in this same call (LWS_CALLBACK_WSI_CREATE) */
    memcpy(w->pending_addr, addr, sizeof addr);
    w->pending = true;
    return 0;
}

void web_peer_created(struct web *w, struct lws *wsi)
{
    if (!w->pending)
        return; /* the listening socket */
    w->pending = false;
    if (w->npeers < w->max_conns) {
        w->peers[w->npeers].wsi = wsi;
        memcpy(w->peers[w->npeers].addr, w->pending_addr, WEB_ADDR_LEN);
        w->npeers++;
    }
}

void web_peer_destroyed(struct web *w, struct lws *wsi)
{
    for (unsigned i = 0; i < w->npeers; i++) {
        if (w->peers[i].wsi == wsi) {
            w->peers[i] = w->peers[--w->npeers];
            return;
        }
    }
}

const char *web_peer_addr(const struct web *w, struct lws *wsi)
{
    for (unsigned i = 0; i < w->npeers; i++)
        if (w->peers[i].wsi == wsi)
            return w->peers[i].addr;
    return "";
}

/* ---- Host names: only those configured, so a rebound DNS name cannot reach us ---- */

static int host_add(struct web *w, const char *name, size_t len)
{
    if (len >= 2 && name[0] == '[' && name[len - 1] == ']') {
        name++;
        len -= 2;
    }
    if (len == 0)
        return 0;
    if (w->nhosts == WEB_HOSTS_MAX || len >= WEB_HOST_LEN) {
        log_error(MOD, NULL, "[web] hosts: at most %d names of %d bytes", WEB_HOSTS_MAX,
                  WEB_HOST_LEN - 1);
        return -1;
    }
    char *copy = strndup(name, len);
    if (!copy) {
        log_error(MOD, NULL, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < len; i++)
        copy[i] = (char)tolower((unsigned char)copy[i]);
    w->hosts[w->nhosts++] = copy;
    return 0;
}

void web_hosts_free(struct web *w)
{
    for (unsigned i = 0; i < w->nhosts; i++)
        free(w->hosts[i]);
    w->nhosts = 0;
}

/*
 * The allowed Host names: [web] hosts (comma-separated), or by default the
 * bind address, localhost, 127.0.0.1 and ::1, and when bound to every
 * interface, the addresses of this machine's interfaces.
 */
int web_hosts_init(struct web *w, bool any)
{
    if (w->hosts_cfg) {
        for (const char *p = w->hosts_cfg; *p;) {
            p += strspn(p, ", \t");
            size_t n = strcspn(p, ", \t");
            if (host_add(w, p, n) != 0)
                return -1;
            p += n;
        }
        return 0;
    }
    static const char *const local[] = {"localhost", "127.0.0.1", "::1"};
    for (size_t i = 0; i < sizeof local / sizeof local[0]; i++)
        if (host_add(w, local[i], strlen(local[i])) != 0)
            return -1;
    if (!any)
        return host_add(w, w->bind, strlen(w->bind));
    uv_interface_address_t *ifs;
    int nifs;
    if (uv_interface_addresses(&ifs, &nifs) != 0) {
        log_warn(MOD, NULL, "cannot list this machine's addresses: only local names are allowed");
        return 0;
    }
    int rc = 0;
    for (int i = 0; i < nifs && rc == 0; i++) {
        char addr[WEB_ADDR_LEN];
        addr_string((const struct sockaddr_storage *)&ifs[i].address, addr);
        rc = host_add(w, addr, strlen(addr));
    }
    uv_free_interface_addresses(ifs, nifs);
    return rc;
}

/* Whether the request's Host header names an allowed host and this server's port. */
bool web_host_allowed(const struct web *w, struct lws *wsi)
{
    char host[WEB_HOST_LEN];
    if (lws_hdr_total_length(wsi, WSI_TOKEN_HOST) <= 0 ||
        lws_hdr_copy(wsi, host, sizeof host, WSI_TOKEN_HOST) < 0)
        return false;
    const char *name = host, *port = NULL;
    size_t len;
    if (host[0] == '[') {
        const char *end = strchr(host, ']');
        if (!end)
            return false;
        name = host + 1;
        len = (size_t)(end - name);
        if (end[1] == ':')
            port = end + 2;
        else if (end[1])
            return false;
    } else {
        const char *colon = strchr(host, ':');
        len = colon ? (size_t)(colon - host) : strlen(host);
        if (colon)
            port = colon + 1;
    }
    char want[8];
    snprintf(want, sizeof want, "%d", w->port);
    if (port ? strcmp(port, want) != 0 : w->port != 80)
        return false;
    for (unsigned i = 0; i < w->nhosts; i++)
        if (strlen(w->hosts[i]) == len && strncasecmp(w->hosts[i], name, len) == 0)
            return true;
    return false;
}

void web_host_refused(struct lws *wsi)
{
    char host[WEB_HOST_LEN] = "";
    if (lws_hdr_copy(wsi, host, sizeof host, WSI_TOKEN_HOST) < 0)
        host[0] = '\0';
    log_warn(MOD, NULL, "refused a request for host \"%.64s\" (not in [web] hosts)", host);
}
