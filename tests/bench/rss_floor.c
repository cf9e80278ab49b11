/*
 * rss_floor.c - the idle RSS any daemon built on illegald's libraries starts
 * from: it links the same Debian libraries (libcurl, libwebsockets, json-c,
 * SQLite, libuv, libinih, and libolm and libqrencode, which the Matrix and
 * web platforms bring into the one binary, libolm with the C++ runtime),
 * initialises libcurl, SQLite and a libuv loop, and waits to be killed.
 *
 * usage: bench_rss_floor [STORE REST_PORT GATEWAY_PORT]
 * With arguments it first uses each library once, as any Discord bot on them
 * must and no more: one transaction on a new SQLite store (STORE), one JSON
 * POST through libcurl's multi interface to the REST server on loopback, and
 * one websocket client connection to the gateway there, kept open once the
 * first message has come. Then it prints "ready" and waits. What that adds
 * to the libraries' pages is no part of illegald's code: it is the least a
 * bot doing the job on these libraries maps.
 * bench_vs_discordjs reads both RSS figures next to illegald's.
 */
#include <curl/curl.h>
#include <ini.h>
#include <json-c/json.h>
#include <libwebsockets.h>
#include <olm/olm.h>
#include <qrencode.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>

#define WAIT_SECONDS 10 /* for the REST answer and the gateway's first message */

/* One transaction and one read on a new store, the store left open. */
static int use_store(const char *path)
{
    static const char schema[] = "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;"
                                 "CREATE TABLE IF NOT EXISTS t(k INTEGER PRIMARY KEY, v TEXT);"
                                 "BEGIN; INSERT INTO t(v) VALUES('x'); COMMIT;";
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    int rc = -1;
    if (sqlite3_open(path, &db) != SQLITE_OK || sqlite3_exec(db, schema, NULL, NULL, NULL) ||
        sqlite3_prepare_v2(db, "SELECT v FROM t WHERE k = ?", -1, &st, NULL) != SQLITE_OK ||
        sqlite3_bind_int(st, 1, 1) != SQLITE_OK || sqlite3_step(st) != SQLITE_ROW)
        goto fail;
    rc = 0;
fail:
    if (rc)
        fprintf(stderr, "rss_floor: store: %s\n", db ? sqlite3_errmsg(db) : "no memory");
    sqlite3_finalize(st);
    return rc; /* the connection stays open, as a daemon's does */
}

static size_t drop_body(char *data, size_t size, size_t n, void *user)
{
    (void)data;
    (void)user;
    return size * n;
}

/* One JSON POST to the REST server through the multi interface. */
static int use_rest(int port)
{
    char url[128];
    snprintf(url, sizeof(url), "http://127.0.0.1:%d/api/v10/channels/1/messages", port);
    CURLM *multi = curl_multi_init();
    CURL *easy = curl_easy_init();
    struct curl_slist *auth = curl_slist_append(NULL, "Authorization: Bot bench-token");
    struct curl_slist *headers =
        auth ? curl_slist_append(auth, "Content-Type: application/json") : NULL;
    int rc = -1, running = 1;
    if (!multi || !easy || !headers)
        goto fail;
    curl_easy_setopt(easy, CURLOPT_URL, url);
    curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(easy, CURLOPT_POSTFIELDS, "{\"content\":\"x\"}");
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, drop_body);
    curl_easy_setopt(easy, CURLOPT_TIMEOUT, (long)WAIT_SECONDS);
    if (curl_multi_add_handle(multi, easy) != CURLM_OK)
        goto fail;
    while (running && curl_multi_perform(multi, &running) == CURLM_OK)
        if (running && curl_multi_poll(multi, NULL, 0, 100, NULL) != CURLM_OK)
            goto fail;
    int left;
    CURLMsg *msg = curl_multi_info_read(multi, &left);
    rc = msg && msg->msg == CURLMSG_DONE && msg->data.result == CURLE_OK ? 0 : -1;
fail:
    if (rc)
        fprintf(stderr, "rss_floor: the REST request failed\n");
    /* the handles stay, as a daemon keeps its connection for the next request */
    return rc;
}

static bool gateway_spoke, gateway_failed;

static int on_gateway(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                      size_t len)
{
    if (reason == LWS_CALLBACK_CLIENT_RECEIVE)
        gateway_spoke = true;
    else if (reason == LWS_CALLBACK_CLIENT_CONNECTION_ERROR)
        gateway_failed = true;
    return lws_callback_http_dummy(wsi, reason, user, in, len);
}

static const struct lws_protocols gateway_protocols[] = {
    {"gateway", on_gateway, 0, 4096, 0, NULL, 0},
    {NULL, NULL, 0, 0, 0, NULL, 0},
};

/* One websocket client connection to the gateway, kept once it has spoken. */
static int use_gateway(int port)
{
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof(info));
    info.port = CONTEXT_PORT_NO_LISTEN;
    info.protocols = gateway_protocols;
    info.gid = -1;
    info.uid = -1;
    info.fd_limit_per_thread = 64;
    lws_set_log_level(LLL_ERR, NULL);
    struct lws_context *ctx = lws_create_context(&info);
    if (!ctx)
        return -1;
    struct lws_client_connect_info cc;
    memset(&cc, 0, sizeof(cc));
    cc.context = ctx;
    cc.address = "127.0.0.1";
    cc.port = port;
    cc.path = "/?v=10&encoding=json";
    cc.host = cc.address;
    cc.origin = cc.address;
    cc.local_protocol_name = gateway_protocols[0].name;
    if (!lws_client_connect_via_info(&cc))
        return -1;
    time_t until = time(NULL) + WAIT_SECONDS;
    while (!gateway_spoke && !gateway_failed && time(NULL) < until)
        lws_service(ctx, 50);
    if (!gateway_spoke)
        fprintf(stderr, "rss_floor: the gateway did not answer\n");
    return gateway_spoke ? 0 : -1; /* the context stays, with its connection */
}

int main(int argc, char **argv)
{
    /* One call into each library, so that none is dropped at link time. */
    uint8_t major, minor, patch;
    olm_get_library_version(&major, &minor, &patch);
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK || sqlite3_initialize() != SQLITE_OK ||
        !uv_default_loop() || !lws_get_library_version() || !json_c_version() ||
        ini_parse_string("", NULL, NULL) != 0 || !QRcode_APIVersionString()) {
        fprintf(stderr, "rss_floor: a library failed to start\n");
        return 1;
    }
    if (argc == 4) {
        if (use_store(argv[1]) || use_rest(atoi(argv[2])) || use_gateway(atoi(argv[3])))
            return 1;
        printf("ready\n");
        fflush(stdout);
    }
    for (;;)
        pause();
}
