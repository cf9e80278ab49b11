/*
 * web.c - the local table: libwebsockets serves the page and a websocket on
 * the host's libuv loop; browsers hold seats by a random token.
 *
 * Shape of the adapter:
 *   - seats: sha256(token) -> user id and display name, kept in the store
 *     under "seat:<hex>" so a restart keeps them; a user id is derived from the
 *     token alone, so a socket can only ever act for its own seat;
 *   - scopes: every table and every user has a bounded cache of the frames
 *     the bot sent there (keyed frames replaced in place), replayed to a socket
 *     that opens the table or says hello, so a reload shows the game again;
 *   - connections: one per websocket, with a queue of outgoing frames written
 *     one fragment per WRITEABLE callback;
 *   - limits, so that one client cannot lock the others out: connections
 *     (HTTP and websocket) at once and per client address, counted from
 *     accept() to close; a deadline for hello, then pings and a hang-up for a
 *     silent socket; output queued per socket and in all; tables one seat may
 *     open before a game starts there; and only the Host names configured.
 */
#include "adapters/common/activity.h"
#include "internal.h"

/* ---- platform ops ---- */

static void lws_log(int level, const char *line)
{
    size_t n = strlen(line);
    while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
        n--;
    enum log_level l = level == LLL_ERR ? LOG_ERROR : level == LLL_WARN ? LOG_WARN : LOG_DEBUG;
    log_write(l, MOD, NULL, "lws: %.*s", (int)n, line);
}

/*
 * Keeps max_connections under the process's descriptor limit, so that
 * accept() never fails with EMFILE (which libwebsockets retries at once,
 * forever). Returns the connections allowed.
 */
static unsigned conns_within_fd_limit(unsigned want)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return want;
    rlim_t room = rl.rlim_cur > 2 * WEB_FD_SPARE ? rl.rlim_cur - WEB_FD_SPARE : rl.rlim_cur / 2;
    if (want <= room)
        return want;
    log_warn(MOD, NULL,
             "max_connections %u is over what %llu descriptors allow: %llu connections at once",
             want, (unsigned long long)rl.rlim_cur, (unsigned long long)room);
    return (unsigned)room;
}

/*
 * Whether something already listens on host:port (host NULL: every
 * interface). Asked before libwebsockets starts, because a context that fails
 * to listen on a loop that never ran cannot be taken down cleanly: it unloads
 * its event library while its loop handles are still open.
 */
static bool port_in_use(const char *host, int port)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC,
                             .ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_PASSIVE | AI_NUMERICHOST | AI_NUMERICSERV};
    struct addrinfo *res = NULL;
    char service[16];
    bool in_use = false;
    if (port <= 0)
        return false; /* any free port will do */
    snprintf(service, sizeof service, "%d", port);
    if (getaddrinfo(host, service, &hints, &res) != 0)
        return false; /* a name lws resolves itself: let it say what is wrong */
    int fd = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    if (fd >= 0 && setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) == 0 &&
        bind(fd, res->ai_addr, res->ai_addrlen) != 0)
        in_use = errno == EADDRINUSE;
    if (fd >= 0)
        close(fd);
    freeaddrinfo(res);
    return in_use;
}

struct friends {
    int port;
    bool v6;
};

static void log_friend_address(void *arg, const char *ip, const char *network)
{
    const struct friends *f = arg;
    log_info(MOD, NULL, "friends on the %s network open http://%s%s%s:%d/", network,
             f->v6 ? "[" : "", ip, f->v6 ? "]" : "", f->port);
}

/* Bound to every interface: logs the address each network can reach the
 * table at, so friends in the room know what to open (the page's invite
 * shows the same). */
static void log_friend_addresses(int port, bool v6)
{
    struct friends f = {port, v6};
    if (!web_network_addresses(v6, log_friend_address, &f))
        log_info(MOD, NULL,
                 "listening on every interface, but this machine has no network "
                 "address besides loopback");
}

/* How often unused seats are looked for: a quarter of their time, from a
 * second to ten minutes. */
static lws_usec_t sweep_interval(const struct web *w)
{
    int s = w->unused_seat_secs / 4;
    s = s < 1 ? 1 : s > 600 ? 600 : s;
    return (lws_usec_t)s * LWS_US_PER_SEC;
}

static void sweep_run(lws_sorted_usec_list_t *sul)
{
    struct web *w = lws_container_of(sul, struct web, sweep_sul);
    web_seats_sweep(w);
    web_activity_sweep(w);
    lws_sul_schedule(w->ctx, 0, &w->sweep_sul, sweep_run, sweep_interval(w));
}

static const char *scheme(const struct web *w)
{
    return w->tls_cert ? "https" : "http";
}

/* What the listener serves, for its log line. */
static const char *listener_name(const struct web *w)
{
    return w->local_table ? "local table" : "the Discord Activity's pages";
}

/* The connection and host tables made anew for this start; -1 logged. */
static int start_tables(struct web *w, bool any_address)
{
    w->max_conns = conns_within_fd_limit(w->max_conns);
    free(w->peers);
    w->npeers = 0;
    w->pending = false;
    web_hosts_free(w);
    if (!(w->peers = calloc(w->max_conns, sizeof *w->peers)) ||
        web_hosts_init(w, any_address) != 0) {
        log_error(MOD, NULL, "out of memory, or bad [web] hosts");
        return -1;
    }
    return 0;
}

/* Fills info for lws: the port and interface, our loop, the shim, TLS when configured. */
static void context_info(struct web *w, void **loops, struct shim *shim, bool any,
                         struct lws_context_creation_info *info)
{
    memset(info, 0, sizeof *info);
    info->port = w->cfg_port;
    info->iface = any ? NULL : w->bind;
    info->protocols = web_protocols;
    info->options = LWS_SERVER_OPTION_LIBUV | LWS_SERVER_OPTION_UV_NO_SIGSEGV_SIGFPE_SPIN;
    /* the Activity writes its own, which let Discord frame the page (http.c) */
    if (!w->act)
        info->options |= LWS_SERVER_OPTION_HTTP_HEADERS_SECURITY_BEST_PRACTICES_ENFORCE;
    if (!strchr(w->bind, ':'))
        info->options |= LWS_SERVER_OPTION_DISABLE_IPV6;
    info->foreign_loops = loops;
    info->user = shim;
    info->external_baggage_free_on_destroy = shim;
    info->gid = -1;
    info->uid = -1;
    info->server_string = "illegald";
    /* lws sizes its descriptor tables by this, else by the process's limit */
    info->fd_limit_per_thread = w->max_conns + WEB_LWS_FDS;
    info->pcontext = &w->lctx;
    if (w->tls_cert) {
        /* HTTPS with the operator's certificate (the Activity needs it, or a proxy in front) */
        info->options |= LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT;
        info->ssl_cert_filepath = w->tls_cert;
        info->ssl_private_key_filepath = w->tls_key;
    }
    info->timeout_secs = 30;
}

/* Creates the lws context on the host's loop and learns its port; -1 logged, nothing left. */
static int start_listening(struct web *w, void *loop, bool any)
{
    struct shim *shim = calloc(1, sizeof *shim);
    if (!shim) {
        log_error(MOD, NULL, "out of memory");
        return -1;
    }
    shim->w = w;
    void *loops[1] = {loop};
    struct lws_context_creation_info info;
    context_info(w, loops, shim, any, &info);
    w->shim = shim;
    w->ctx = w->lctx = lws_create_context(&info);
    if (!w->ctx) {
        free(shim);
        w->shim = NULL;
        log_error(MOD, NULL, "cannot listen on %s port %d (address in use or not local?)",
                  w->bind[0] ? w->bind : "*", w->cfg_port);
        return -1;
    }
    struct lws_vhost *vh = lws_get_vhost_by_name(w->ctx, "default");
    w->port = vh ? lws_get_vhost_listen_port(vh) : -1;
    if (w->port <= 0) {
        log_error(MOD, NULL, "the listening socket has no port");
        shim->w = NULL;
        lws_context_destroy(w->ctx);
        w->ctx = NULL;
        w->shim = NULL;
        return -1;
    }
    return 0;
}

/* Logs where the listener is, with addresses to type when it is bound to every interface. */
static void log_listening(const struct web *w, bool any, bool any_v6)
{
    if (any || any_v6) {
        /* 0.0.0.0 is no address to type into a browser: name the real ones */
        log_info(MOD, NULL, "%s at %s://%s:%d/ (%s)", listener_name(w), scheme(w),
                 any ? "127.0.0.1" : "[::1]", w->port, w->tls_cert ? "TLS" : "plain HTTP");
        log_friend_addresses(w->port, any_v6);
    } else {
        bool v6 = strchr(w->bind, ':') != NULL;
        log_info(MOD, NULL, "%s at %s://%s%s%s:%d/ (%s)", listener_name(w), scheme(w),
                 v6 ? "[" : "", w->bind, v6 ? "]" : "", w->port,
                 w->tls_cert ? "TLS" : "plain HTTP");
    }
}

static int web_start(struct platform *p)
{
    struct web *w = (struct web *)p;
    if (w->ctx)
        return 0;
    lws_set_log_level(LLL_ERR | LLL_WARN, lws_log);
    bool any = !w->bind[0] || strcmp(w->bind, "0.0.0.0") == 0 || strcmp(w->bind, "*") == 0;
    bool any_v6 = strcmp(w->bind, "::") == 0;
    if (start_tables(w, any || any_v6) != 0)
        return -1;
    if (port_in_use(any ? NULL : w->bind, w->cfg_port)) {
        log_error(MOD, NULL,
                  "port %d on %s is in use by another program: stop it, or set [web] port",
                  w->cfg_port, any ? "every interface" : w->bind);
        return -1;
    }
    if (start_listening(w, p->host->loop, any) != 0)
        return -1;
    w->started = true;
    lws_sul_schedule(w->ctx, 0, &w->ping_sul, web_ping_run, web_ping_interval(w));
    lws_sul_schedule(w->ctx, 0, &w->sweep_sul, sweep_run, sweep_interval(w));
    log_listening(w, any, any_v6);
    return 0;
}

static void send_to_scope(struct web *w, const struct outbound *m, const char *json, size_t len)
{
    for (struct conn *c = LIST_FIRST(&w->conns); c; c = LIST_NEXT(c, link)) {
        if (!c->user)
            continue;
        if (m->user ? strcmp(c->user, m->user) == 0 : web_conn_follows(c, m->channel))
            web_conn_queue(c, json, len);
    }
}

/*
 * Updates what the table list shows from a message's data; a message with a
 * phase means a game is open there, which lists the table. Returns true when
 * the list changed.
 */
/* The bot's news of a game: the table list shows each table's phase and
 * seats, and a table is listed once its first game opens. */
static void web_game_changed(struct platform *p, const struct game_news *n)
{
    struct web *w = (struct web *)p;
    char id[WEB_TABLE_MAX + 1];
    if (!web_table_id(n->table, strlen(n->table), id) || strcmp(id, n->table) != 0)
        return; /* not a table of this platform */
    struct scope *t = web_table_get(w, id);
    if (!t)
        return;
    bool changed = t->players != (int)n->seats;
    t->players = (int)n->seats;
    if (!t->phase || strcmp(n->phase, t->phase) != 0) {
        char *copy = strdup(n->phase);
        if (copy) {
            free(t->phase);
            t->phase = copy;
            changed = true;
        }
    }
    if (!t->listed) {
        t->listed = true;
        free(t->creator);
        t->creator = NULL;
        web_tables_save(w);
        web_tables_broadcast(w);
    } else if (changed) {
        web_tables_broadcast(w);
    }
    if (changed)
        web_scope_save(w, t);
    web_wake_all(w); /* called at the end of the bot's turn, not from a socket's handler */
}

/* Sends m to the sockets of its scope and keeps it in the scope's cache. */
static int send_one(struct web *w, const struct outbound *m)
{
    if ((!m->channel) == (!m->user) || (unsigned)m->kind > OUT_GAME_OVER || !m->text)
        return -1;
    struct json_object *data = (struct json_object *)m->data;

    /* the table this message is about: its channel, or a DM's data.table */
    const char *table = m->channel ? m->channel : jget_str(data, "table");
    char id[WEB_TABLE_MAX + 1];
    if (m->channel && (!web_table_id(m->channel, strlen(m->channel), id) ||
                       strcmp(id, m->channel) != 0 || !web_table_get(w, id)))
        return -1; /* not a table of this platform */

    struct json_object *o = json_object_new_object();
    json_object_object_add(o, "type", json_object_new_string("message"));
    char topic[MSG_TOPIC_MAX]; /* the module's name for it ("hand"), and what it is */
    json_object_object_add(o, "kind",
                           json_object_new_string(msg_label(m->kind, m->key, topic, sizeof topic)));
    json_object_object_add(o, "form", json_object_new_string(msg_kind_name(m->kind)));
    json_object_object_add(o, "channel", m->channel ? json_object_new_string(m->channel) : NULL);
    json_object_object_add(o, "table", table ? json_object_new_string(table) : NULL);
    json_object_object_add(o, "dm", json_object_new_boolean(m->user != NULL));
    json_object_object_add(o, "key", m->key ? json_object_new_string(m->key) : NULL);
    json_object_object_add(o, "replace", json_object_new_boolean(m->replace));
    json_object_object_add(o, "text", json_object_new_string(m->text));
    json_object_object_add(o, "data", data ? json_object_get(data) : NULL);
    size_t len;
    const char *json = json_object_to_json_string_length(
        o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &len);
    int rc = -1;
    if (json) {
        struct scope *s =
            m->user ? web_scope_find(w, m->user, true) : web_scope_find(w, m->channel, false);
        if (!s && m->user && (s = web_scope_new(w, m->user, true)))
            web_users_save(w);
        if (s) {
            web_scope_cache(s, m->key, m->replace, json);
            web_scope_save(w, s);
        }
        send_to_scope(w, m, json, len);
        if (m->channel && s)
            web_table_drop_if_empty(w, s); /* no game there, and nobody to tell */
        rc = 0;
    }
    json_object_put(o);
    web_wake_all(w);
    return rc;
}

static int web_send(struct platform *p, const struct outbound *m)
{
    struct web *w = (struct web *)p;
    int rc = send_one(w, m);
    /* Sent and cached, or never sendable: either way the bot's outbox lets it
     * go. The cache is stored lazily, and so is that, so both land together. */
    const struct platform_host *h = w->base.host;
    if (m->outbox_id && h->sent)
        h->sent(h->ctx, p, m->outbox_id);
    return rc;
}

static void probe_free(struct probe *pr)
{
    free(pr->user);
    free(pr);
}

static void probe_run(lws_sorted_usec_list_t *sul)
{
    struct web *w = lws_container_of(sul, struct web, probe_sul);
    w->probe_armed = false;
    /* the probes asked until now: those asked from dm_result wait for the next run */
    STAILQ_HEAD(, probe) list = STAILQ_HEAD_INITIALIZER(list);
    STAILQ_CONCAT(&list, &w->probes);
    struct probe *pr;
    while ((pr = STAILQ_FIRST(&list))) {
        STAILQ_REMOVE_HEAD(&list, link);
        /* every seat can receive DMs: they wait in its trading room until it connects */
        if (w->base.host->dm_result)
            w->base.host->dm_result(w->base.host->ctx, &w->base, pr->user, true);
        probe_free(pr);
    }
}

static void web_probe_dm(struct platform *p, const char *user)
{
    struct web *w = (struct web *)p;
    struct probe *pr = calloc(1, sizeof *pr);
    if (!pr || !(pr->user = strdup(user))) {
        free(pr);
        if (w->base.host->dm_result)
            w->base.host->dm_result(w->base.host->ctx, p, user, false);
        return;
    }
    /* answered from the loop, never from inside the caller */
    STAILQ_INSERT_TAIL(&w->probes, pr, link);
    if (w->ctx && !w->probe_armed) {
        w->probe_armed = true;
        lws_sul_schedule(w->ctx, 0, &w->probe_sul, probe_run, 1);
    }
}

static void web_stop(struct platform *p)
{
    struct web *w = (struct web *)p;
    if (w->act)
        w->act->web = NULL; /* the Discord side sends the pages nothing more */
    if (!w->ctx)
        return;
    lws_sul_cancel(&w->probe_sul);
    lws_sul_cancel(&w->ping_sul);
    lws_sul_cancel(&w->sweep_sul);
    lws_sul_cancel(&w->presence_sul);
    w->presence_armed = false;
    w->probe_armed = false;
    for (struct conn *c = LIST_FIRST(&w->conns); c; c = LIST_NEXT(c, link)) {
        web_conn_free(c);
        c->w = NULL;
    }
    LIST_INIT(&w->conns);
    w->nconns = 0;
    w->npeers = 0; /* lws destroys their wsi with the context */
    w->shim->w = NULL;
    lws_context_destroy(w->ctx);
    w->ctx = NULL;
    w->shim = NULL;
    log_info(MOD, NULL, "local table closed");
}

static void web_destroy(struct platform *p)
{
    struct web *w = (struct web *)p;
    if (!w)
        return;
    web_stop(p);
    /* with a foreign loop, a second destroy once the loop ran finishes the job */
    if (w->lctx)
        lws_context_destroy(w->lctx);
    struct scope *s;
    while ((s = LIST_FIRST(&w->scopes))) {
        LIST_REMOVE(s, link);
        web_scope_free(s);
    }
    struct seat *seat;
    while ((seat = LIST_FIRST(&w->seats))) {
        LIST_REMOVE(seat, link);
        web_seat_free(seat);
    }
    web_activity_free(w);
    struct probe *pr;
    while ((pr = STAILQ_FIRST(&w->probes))) {
        STAILQ_REMOVE_HEAD(&w->probes, link);
        probe_free(pr);
    }
    free(w->peers);
    web_hosts_free(w);
    free(w->hosts_cfg);
    free(w->bind);
    free(w->tls_cert);
    free(w->tls_key);
    free(w);
}

static const struct platform_ops web_ops = {
    .name = "web",
    .confirms_sends = true,
    .rewords = true,    /* the page words lines for buttons (data "say") */
    .table_chat = true, /* a web table has no chat but the bot's */
    .caps = PLATFORM_CAP_DM | PLATFORM_CAP_REACTIONS | PLATFORM_CAP_BUTTONS | PLATFORM_CAP_EDITS,
    .start = web_start,
    .send = web_send,
    .probe_dm = web_probe_dm,
    .game_changed = web_game_changed,
    .stop = web_stop,
    .destroy = web_destroy,
};

struct platform *web_platform_new(const struct config *cfg, const struct platform_host *host,
                                  char *err, size_t errlen)
{
    if (!cfg || !host || !host->loop || !host->deliver) {
        snprintf(err, errlen, "web: the host gives no loop or no web_deliver()");
        return NULL;
    }
    if (cfg->web_port < 0 || cfg->web_port > 65535) {
        snprintf(err, errlen, "web: port %d is not 0..65535", cfg->web_port);
        return NULL;
    }
    if (cfg->web_max_connections < 1 || cfg->web_max_per_address < 1 ||
        cfg->web_hello_seconds < 1 || cfg->web_idle_seconds < 1 || cfg->web_tables_per_seat < 1 ||
        cfg->web_queue_bytes < 1 || cfg->web_seats_per_address < 1 ||
        cfg->web_unused_seat_seconds < 1) {
        snprintf(err, errlen, "web: the limits in [web] must be positive");
        return NULL;
    }
    struct web *w = calloc(1, sizeof *w);
    if (!w || !(w->bind = strdup(cfg->web_bind ? cfg->web_bind : "127.0.0.1")) ||
        (cfg->web_hosts && !(w->hosts_cfg = strdup(cfg->web_hosts)))) {
        if (w)
            free(w->bind);
        free(w);
        snprintf(err, errlen, "web: out of memory");
        return NULL;
    }
    w->base.ops = &web_ops;
    w->base.host = host;
    w->cfg_port = cfg->web_port;
    w->max_conns = (unsigned)cfg->web_max_connections;
    w->max_per_addr = (unsigned)cfg->web_max_per_address;
    w->hello_secs = cfg->web_hello_seconds;
    w->idle_secs = cfg->web_idle_seconds;
    w->tables_per_seat = (unsigned)cfg->web_tables_per_seat;
    w->queue_max = (size_t)cfg->web_queue_bytes;
    w->seats_per_addr = (unsigned)cfg->web_seats_per_address;
    w->unused_seat_secs = cfg->web_unused_seat_seconds;
    w->port = -1;
    w->local_table = cfg->web_enabled;
    if ((cfg->web_tls_cert && !(w->tls_cert = strdup(cfg->web_tls_cert))) ||
        (cfg->web_tls_key && !(w->tls_key = strdup(cfg->web_tls_key)))) {
        web_destroy(&w->base);
        snprintf(err, errlen, "web: out of memory");
        return NULL;
    }
    LIST_INIT(&w->tickets);
    LIST_INIT(&w->conns);
    LIST_INIT(&w->scopes);
    LIST_INIT(&w->seats);
    STAILQ_INIT(&w->probes);
    web_tables_load(w);
    web_seats_load(w);
    return &w->base;
}

int web_platform_port(struct platform *p)
{
    struct web *w = (struct web *)p;
    return w && w->ctx ? w->port : -1;
}
