/*
 * test_rest.c - the adapter's REST side and native play against the test
 * server: route keys and bucket logic, 429 storms per bucket and global
 * (nothing lost, order kept), the global 50/s, DMs refused with 50007, the
 * DM probe, interactions (answers, deferrals, follow-ups, buttons, the trade
 * builder, autocomplete), the lobby edited in place, drop reactions, votes.
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "adapters/discord/discord.h"
#include "adapters/discord/ratelimit.h"
#include "adapters/discord/rest.h"
#include "discord_limits.h"
#include "fdclient.h"
#include "harness.h"
#include "rate_check.h"

#define CHANNEL_A "510000000000000001"

static struct json_object *jget(struct json_object *o, const char *k)
{
    struct json_object *v = NULL;
    return o && json_object_object_get_ex(o, k, &v) ? v : NULL;
}

static const char *jstr(struct json_object *o, const char *k)
{
    struct json_object *v = jget(o, k);
    return v ? json_object_get_string(v) : NULL;
}

static void start(struct harness *h)
{
    h_init(h, 1000, true);
    assert_true(h_run_until(h, h_registered, 5000));
}

/* What the bot tells the adapter once a game's last message has gone out. */
static void game_ended(struct harness *h, const char *game, const char *table)
{
    struct game_news n = {
        .stage = GAME_ENDED, .game = game, .table = table, .phase = "over", .seats = 2};
    h->p->ops->game_changed(h->p, &n);
}

static void send_text(struct harness *h, const char *channel, const char *user, const char *key,
                      bool replace, enum outbound_kind kind, const char *text,
                      struct json_object *data)
{
    struct outbound m = {.kind = kind,
                         .channel = channel,
                         .user = user,
                         .key = key,
                         .replace = replace,
                         .text = text,
                         .data = data};
    assert_int_equal(h->p->ops->send(h->p, &m), 0);
}

/* Illegal's offer as its hand's compose gives it (core/illegal/render.c). */
#define OFFER "offer {to} {give|nothing} for {ask|nothing}"
/* ---- pure logic ---- */

static void check_route(const char *method, const char *path, const char *want_route,
                        const char *want_major)
{
    char route[256], major[160];
    rl_route(method, path, route, sizeof(route), major, sizeof(major));
    assert_string_equal(route, want_route);
    assert_string_equal(major, want_major);
}

static void test_route_keys(void **state)
{
    (void)state;
    check_route("POST", "/channels/123/messages", "POST /channels/:id/messages", "channels/123");
    check_route("PATCH", "/channels/123/messages/456", "PATCH /channels/:id/messages/:id",
                "channels/123");
    check_route("PUT", "/channels/1/messages/2/reactions/%F0%9F%94%AB/@me",
                "PUT /channels/:id/messages/:id/reactions/:emoji/@me", "channels/1");
    check_route("GET", "/guilds/77/members?limit=5", "GET /guilds/:id/members", "guilds/77");
    check_route("POST", "/webhooks/9/abc-token", "POST /webhooks/:id/:token",
                "webhooks/9/abc-token");
    check_route("PATCH", "/webhooks/9/tok/messages/@original",
                "PATCH /webhooks/:id/:token/messages/@original", "webhooks/9/tok");
    check_route("POST", "/interactions/55/tok/callback", "POST /interactions/:id/:token/callback",
                "interactions/55");
    check_route("POST", "/users/@me/channels", "POST /users/@me/channels", "");
    check_route("PUT", "/applications/5/guilds/6/commands",
                "PUT /applications/:id/guilds/:id/commands", "");
    check_route("GET", "/gateway/bot", "GET /gateway/bot", "");
}

/* An answer's header lines read into h, one line at a time as libcurl hands them. */
static void read_lines(struct rl_headers *h, const char *text)
{
    rl_headers_init(h);
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) + 1 : strlen(p);
        rl_headers_parse(h, p, len);
        p += len;
    }
    assert_true(rate_check(text, strlen(text)));
}

static void test_header_lines(void **state)
{
    (void)state;
    struct rl_headers h;
    read_lines(&h, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                   "x-ratelimit-bucket: 80c17d2f\r\nx-ratelimit-limit: 5\r\n"
                   "x-ratelimit-remaining: 4\r\nx-ratelimit-reset: 1795820400.1\r\n"
                   "x-ratelimit-reset-after: 1.250\r\nvia: 1.1 google\r\n\r\n");
    assert_string_equal(h.bucket, "80c17d2f");
    assert_int_equal(h.limit, 5);
    assert_int_equal(h.remaining, 4);
    assert_true(h.reset_after == 1.25);
    assert_true(h.retry_after < 0);
    assert_string_equal(h.scope, "");
    assert_false(h.global);
    /* names without regard to case, blanks around the value, a 429's lines */
    read_lines(&h, "HTTP/1.1 429 Too Many Requests\r\nRETRY-AFTER:\t 2.5 \r\n"
                   "X-RateLimit-Global: True\r\nX-RATELIMIT-SCOPE: global\r\n\r\n");
    assert_true(h.retry_after == 2.5);
    assert_true(h.global);
    assert_string_equal(h.scope, "global");
    /* near names are not the names; a count past int or below 0 is clamped */
    read_lines(&h, "x-ratelimit-scope : user\r\nxratelimit-limit: 4\r\nx-ratelimit-: 1\r\n"
                   "retry-afte: 1\r\nx-ratelimit-limit: 99999999999\r\n"
                   "x-ratelimit-remaining: -3\r\nx-ratelimit-bucket:\r\nr\r\nx");
    assert_string_equal(h.scope, "");
    assert_int_equal(h.limit, INT_MAX);
    assert_int_equal(h.remaining, 0);
    assert_string_equal(h.bucket, "");
    assert_true(h.retry_after < 0);
}

static void headers(struct rl_headers *h, const char *bucket, int limit, int remaining,
                    double reset_after)
{
    rl_headers_init(h);
    snprintf(h->bucket, sizeof(h->bucket), "%s", bucket);
    h->limit = limit;
    h->remaining = remaining;
    h->reset_after = reset_after;
}

static void test_bucket_logic(void **state)
{
    (void)state;
    struct rl rl;
    struct rl_headers h;
    assert_int_equal(rl_init(&rl, 50, 1000), 0);
    const char *r = "POST /channels/:id/messages";
    uint64_t now = 1000000;
    /* unknown bucket: one request at a time */
    assert_int_equal(rl_acquire(&rl, r, "channels/1", false, now), 0);
    assert_true(rl_acquire(&rl, r, "channels/1", false, now) == RL_WAIT_RELEASE);
    /* another top-level resource is another bucket */
    assert_int_equal(rl_acquire(&rl, r, "channels/2", false, now), 0);
    headers(&h, "abc", 5, 0, 2.0);
    assert_int_equal(rl_release(&rl, r, "channels/1", false, 200, &h, -1, false, now), 0);
    uint64_t w = rl_acquire(&rl, r, "channels/1", false, now + 10);
    assert_true(w > 1900 && w <= 2000);
    assert_int_equal(rl_acquire(&rl, r, "channels/1", false, now + 2001), 0);
    /* a shared bucket hash joins routes: the PATCH route shares "abc" */
    const char *r2 = "PATCH /channels/:id/messages/:id";
    assert_int_equal(rl_acquire(&rl, r2, "channels/3", false, now), 0);
    headers(&h, "abc", 5, 0, 1.0);
    rl_release(&rl, r2, "channels/3", false, 200, &h, -1, false, now);
    assert_true(rl_acquire(&rl, r, "channels/3", false, now + 1) > 900);
    /* a 429 honours retry_after from the body; global blocks every route */
    assert_int_equal(rl_acquire(&rl, "GET /gateway/bot", "", false, now + 3000), 0);
    rl_headers_init(&h);
    h.global = true;
    snprintf(h.scope, sizeof(h.scope), "global");
    uint64_t wait = rl_release(&rl, "GET /gateway/bot", "", false, 429, &h, 0.25, true, now + 3000);
    assert_int_equal(wait, 250);
    assert_true(rl_acquire(&rl, "POST /users/@me/channels", "", false, now + 3100) > 0);
    /* interaction callbacks are not bound to the global limit */
    assert_int_equal(
        rl_acquire(&rl, "POST /interactions/:id/:token/callback", "", true, now + 3100), 0);
    assert_int_equal(rl.n429_global, 1);
    /* invalid requests: 401/403 count, a shared-scope 429 does not */
    unsigned before = rl_invalid_recent(&rl, now + 4000);
    assert_int_equal(rl_acquire(&rl, "GET /x", "", false, now + 4000), 0);
    rl_headers_init(&h);
    rl_release(&rl, "GET /x", "", false, 403, &h, -1, false, now + 4000);
    assert_int_equal(rl_acquire(&rl, "GET /y", "", false, now + 4001), 0);
    snprintf(h.scope, sizeof(h.scope), "shared");
    rl_release(&rl, "GET /y", "", false, 429, &h, 0.01, false, now + 4001);
    assert_int_equal(rl_invalid_recent(&rl, now + 4002), before + 1);
    /* a route a 429 limited, whose next answer (a 5xx) says no limits, is not blocked for good */
    const char *r3 = "POST /oauth2/token";
    assert_int_equal(rl_acquire(&rl, r3, "", true, now + 5000), 0);
    rl_headers_init(&h);
    assert_int_equal(rl_release(&rl, r3, "", true, 429, &h, 0.2, false, now + 5000), 200);
    assert_int_equal(rl_acquire(&rl, r3, "", true, now + 5201), 0);
    rl_release(&rl, r3, "", true, 500, &h, -1, false, now + 5202);
    assert_int_equal(rl_acquire(&rl, r3, "", true, now + 5800), 0);
    rl_free(&rl);
    /* at the invalid-request cap everything waits */
    assert_int_equal(rl_init(&rl, 50, 3), 0);
    rl_headers_init(&h);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(rl_acquire(&rl, "GET /z", "", false, now + (uint64_t)i), 0);
        rl_release(&rl, "GET /z", "", false, 401, &h, -1, false, now + (uint64_t)i);
    }
    assert_true(rl_acquire(&rl, "GET /other", "", false, now + 10) > 500000);
    rl_free(&rl);
}

/* A large limit (10,000 a second): the ring is read by halving, and finds
 * what a walk would, whether it is filling, full and in the window, or full
 * with its older part expired. */
static void global_window_large(void)
{
    struct rl rl;
    struct rl_headers h;
    rl_headers_init(&h);
    assert_int_equal(rl_init(&rl, 10000, 1000000), 0);
    uint64_t now = 1000000;
    /* filling: 7,000 answered over 700 ms */
    for (int i = 0; i < 7000; i++) {
        assert_int_equal(rl_acquire(&rl, "GET /x", "", false, now + (uint64_t)i / 10), 0);
        rl_release(&rl, "GET /x", "", false, 200, &h, -1, false, now + (uint64_t)i / 10);
    }
    /* 3,000 more fit in the second, then the oldest answer must leave it */
    for (int i = 0; i < 3000; i++) {
        assert_int_equal(rl_acquire(&rl, "GET /x", "", false, now + 700), 0);
        rl_release(&rl, "GET /x", "", false, 200, &h, -1, false, now + 700);
    }
    uint64_t w = rl_acquire(&rl, "GET /x", "", false, now + 700);
    assert_int_equal(w, 310); /* the answer of +0 ms leaves at +1,010 (a second and the margin) */
    /* at +1,350 the answers of +0 to +340 ms have left: 3,410 go (each in a
     * bucket of its own, held in flight), not one more */
    char major[32];
    for (int i = 0; i < 3410; i++) {
        snprintf(major, sizeof major, "channels/%d", i);
        assert_int_equal(rl_acquire(&rl, "POST /channels/:id/messages", major, false, now + 1350),
                         0);
    }
    w = rl_acquire(&rl, "GET /y", "", false, now + 1350);
    assert_int_equal(w, 1); /* the next answer, of +341 ms, leaves at +1,351 */
    rl_free(&rl);
}

/* The global limit counts a request from when it goes until a second after
 * its answer: however late requests arrive, no second of arrivals holds more
 * than the limit. */
static void test_global_window(void **state)
{
    (void)state;
    struct rl rl;
    struct rl_headers h;
    rl_headers_init(&h);
    assert_int_equal(rl_init(&rl, 5, 1000), 0);
    uint64_t now = 1000000;
    char major[32];
    for (int i = 0; i < 5; i++) {
        snprintf(major, sizeof major, "channels/%d", i);
        assert_int_equal(rl_acquire(&rl, "POST /channels/:id/messages", major, false, now), 0);
    }
    /* five in flight: the sixth waits for answers, however long they take */
    assert_true(rl_acquire(&rl, "GET /gateway/bot", "", false, now + 5000) == RL_WAIT_RELEASE);
    /* interaction callbacks are not bound to it */
    assert_int_equal(
        rl_acquire(&rl, "POST /interactions/:id/:token/callback", "interactions/1", true, now), 0);
    rl_release(&rl, "POST /interactions/:id/:token/callback", "interactions/1", true, 204, &h, -1,
               false, now);
    assert_true(rl_acquire(&rl, "GET /gateway/bot", "", false, now + 5000) == RL_WAIT_RELEASE);
    /* two answered at +6 s, the others at +6.5 s: the first two leave the
     * window a second after their answers, not after they were sent */
    for (int i = 0; i < 5; i++) {
        snprintf(major, sizeof major, "channels/%d", i);
        rl_release(&rl, "POST /channels/:id/messages", major, false, 200, &h, -1, false,
                   now + (i < 2 ? 6000 : 6500));
    }
    uint64_t w = rl_acquire(&rl, "GET /gateway/bot", "", false, now + 6500);
    assert_true(w > 400 && w <= 510);
    assert_int_equal(rl_acquire(&rl, "GET /gateway/bot", "", false, now + 7010), 0);
    /* one went, one slot is free: the next goes, then the one after waits
     * for the answers of +6.5 s */
    assert_int_equal(rl_acquire(&rl, "GET /users", "", false, now + 7010), 0);
    w = rl_acquire(&rl, "GET /x", "", false, now + 7010);
    assert_true(w > 400 && w <= 510);
    rl_free(&rl);
    global_window_large();
}

/* ---- 429 storms ---- */

/* Every channel got exactly its messages, in the order they were sent. */
static void assert_channels_in_order(struct harness *h, int nchan, int per)
{
    struct json_object *s = h_snapshot(h);
    struct json_object *msgs = jget(s, "messages");
    int next[32] = {0};
    for (size_t i = 0; i < json_object_array_length(msgs); i++) {
        struct json_object *m = json_object_array_get_idx(msgs, i);
        const char *text = jstr(jget(m, "body"), "content");
        int c, k;
        assert_int_equal(sscanf(text, "c%d m%d", &c, &k), 2);
        assert_true(c >= 0 && c < nchan);
        assert_int_equal(k, next[c]);
        next[c]++;
    }
    for (int c = 0; c < nchan; c++)
        assert_int_equal(next[c], per);
    json_object_put(s);
}

static int want_messages;
static bool enough_messages(struct harness *h)
{
    struct json_object *s = h_snapshot(h);
    int n = (int)json_object_array_length(jget(s, "messages"));
    json_object_put(s);
    return n >= want_messages;
}

static void send_many(struct harness *h, int nchan, int per)
{
    char channel[32], text[32];
    for (int k = 0; k < per; k++)
        for (int c = 0; c < nchan; c++) {
            snprintf(channel, sizeof(channel), "5200000000000000%02d", c);
            snprintf(text, sizeof(text), "c%d m%d", c, k);
            send_text(h, channel, NULL, NULL, false, OUT_ERROR, text, NULL);
        }
}

static void test_bucket_storm(void **state)
{
    (void)state;
    struct harness h;
    start(&h);
    fd_set_bucket_limit(h.srv, 3);
    fd_force_429(h.srv, "/channels/", 12, false, 0.05);
    send_many(&h, 4, 12);
    want_messages = 48;
    assert_true(h_run_until(&h, enough_messages, 30000));
    h_run_for(&h, 100);
    assert_channels_in_order(&h, 4, 12);
    struct discord_stats st;
    discord_get_stats(h.p, &st);
    assert_true(st.rest_429 >= 12);
    assert_int_equal(st.lost, 0);
    assert_int_equal(st.rest_pending, 0);
    h_fini(&h);
}

static void test_global_storm(void **state)
{
    (void)state;
    struct harness h;
    start(&h);
    fd_set_bucket_limit(h.srv, 100);
    fd_force_429(h.srv, "/channels/", 6, true, 0.2);
    /* 140 messages over 14 channels: more than the global 50/s allows */
    send_many(&h, 14, 10);
    want_messages = 140;
    assert_true(h_run_until(&h, enough_messages, 30000));
    h_run_for(&h, 100);
    assert_channels_in_order(&h, 14, 10);
    struct discord_stats st;
    discord_get_stats(h.p, &st);
    assert_int_equal(st.lost, 0);
    assert_true(st.rest_429_global >= 6);
    /* every global 429 was a forced one: the adapter kept under 50/s itself */
    struct json_object *s = h_snapshot(&h);
    assert_int_equal(json_object_get_int(jget(s, "r429_global")), 6);
    json_object_put(s);
    h_fini(&h);
}

/* ---- kept easy handles ---- */

static long kept_status;
static char kept_body[512];

static void kept_done(struct rest_req *q, long status, const char *body, void *ud)
{
    (void)q;
    (void)ud;
    kept_status = status;
    snprintf(kept_body, sizeof(kept_body), "%s", body);
}

static bool kept_answered(struct harness *h)
{
    (void)h;
    return kept_status != 0;
}

/* Sends one request through r and waits for its answer's status. */
static long kept_request(struct harness *h, struct rest *r, const char *method, const char *path,
                         const char *body)
{
    kept_status = 0;
    assert_int_equal(rest_enqueue(r, "kept", method, path, body, 0, NULL, kept_done, NULL), 0);
    assert_true(h_run_until(h, kept_answered, 5000));
    return kept_status;
}

/* A kept easy handle still holds the last request's options: a GET sent on
 * the handle a PATCH and a POST used must go out as a GET. Its URL too: a
 * path with a query is parsed whole into it, and the plain paths after it
 * (set into the parsed URL as they are) still reach their routes. */
static void test_kept_handle_method(void **state)
{
    (void)state;
    struct harness h;
    start(&h);
    struct rest *r =
        rest_new(&h.loop, h.cfg.discord_api_url, h.cfg.discord_token, "illegald-test", 50);
    assert_non_null(r);
    assert_int_equal(kept_request(&h, r, "POST", "/channels/520000000000000001/messages",
                                  "{\"content\":\"one\"}"),
                     200);
    char path[96];
    struct json_object *posted = json_tokener_parse(kept_body);
    snprintf(path, sizeof(path), "/channels/520000000000000001/messages/%s", jstr(posted, "id"));
    json_object_put(posted);
    assert_int_equal(kept_request(&h, r, "PATCH", path, "{\"content\":\"two\"}"), 200);
    assert_int_equal(kept_request(&h, r, "GET", "/gateway/bot", NULL), 200);
    assert_non_null(strstr(kept_body, "\"url\""));
    assert_int_equal(kept_request(&h, r, "GET", "/gateway/bot?v=10", NULL), 200);
    assert_non_null(strstr(kept_body, "\"url\""));
    assert_int_equal(kept_request(&h, r, "PATCH", path, "{\"content\":\"again\"}"), 200);
    assert_int_equal(kept_request(&h, r, "POST", "/channels/520000000000000001/messages",
                                  "{\"content\":\"three\"}"),
                     200);
    rest_close(r);
    h_run_for(&h, 50);
    h_fini(&h);
}

/* The headers of the last request the test server took, by name. */
static void want_headers(struct harness *h, const char *ua, const char *type)
{
    struct json_object *s = h_snapshot(h);
    struct json_object *g = jget(s, "gateway");
    assert_string_equal(jstr(g, "user_agent"), ua);
    assert_string_equal(jstr(g, "rest_content_type"), type);
    assert_string_equal(jstr(g, "rest_accept"), "");
    assert_string_equal(jstr(g, "rest_expect"), "");
    json_object_put(s);
}

/* A request carries what Discord asks for (the token, which the test server
 * checks, the User-Agent, and a JSON body's type) and none of libcurl's own
 * headers the API does not need: no "Accept", and no "Expect: 100-continue"
 * even for a body past the size (1 MB) at which libcurl would ask for one. */
static void test_request_headers(void **state)
{
    (void)state;
    struct harness h;
    start(&h);
    const char *ua = "DiscordBot (https://example.invalid, 1.0)";
    struct rest *r = rest_new(&h.loop, h.cfg.discord_api_url, h.cfg.discord_token, ua, 50);
    assert_non_null(r);
    assert_int_equal(kept_request(&h, r, "POST", "/channels/520000000000000001/messages",
                                  "{\"content\":\"one\"}"),
                     200);
    want_headers(&h, ua, "application/json");
    assert_int_equal(kept_request(&h, r, "GET", "/gateway/bot", NULL), 200);
    want_headers(&h, ua, "");
    size_t n = (1u << 20) + 64;
    char *big = malloc(n + 16);
    assert_non_null(big);
    strcpy(big, "{\"content\":\"");
    memset(big + strlen(big), 'a', n);
    strcpy(big + 12 + n, "\"}");
    assert_int_equal(
        kept_request(&h, r, "POST", "/channels/520000000000000001/messages", big) / 100, 4);
    want_headers(&h, ua, "application/json");
    free(big);
    rest_close(r);
    h_run_for(&h, 50);
    h_fini(&h);
}

/* ---- kept queues ---- */

#define QUEUED_NAMES 300 /* more than rest.c keeps (REST_QUEUES_KEPT) */

static int queued_answers, queued_ok;

static void queued_done(struct rest_req *q, long status, const char *body, void *ud)
{
    (void)q;
    (void)ud;
    queued_answers++;
    queued_ok += status == 200 && strstr(body, "\"url\"") != NULL;
}

/* Every other request is sent to another path than it was queued with, its
 * method and path replaced (rest_req_set) by one longer than they were. */
static int queued_prepare(struct rest_req *q, void *ud)
{
    return (uintptr_t)ud % 2 ? rest_req_set(q, "GET", "/gateway/bot?v=10&encoding=json", NULL) : 0;
}

static bool all_queued_answered(struct harness *h)
{
    (void)h;
    return queued_answers == 2 * QUEUED_NAMES;
}

/* More queues than the client keeps once emptied, each used twice: a kept
 * queue takes its next request, the longest unused ones go, and every
 * request is answered from the path it was last given. ASan checks that
 * nothing kept is lost at the close. */
static void test_kept_queues(void **state)
{
    (void)state;
    struct harness h;
    start(&h);
    struct rest *r =
        rest_new(&h.loop, h.cfg.discord_api_url, h.cfg.discord_token, "illegald-test", 100000);
    assert_non_null(r);
    assert_int_equal(
        rest_enqueue(r, "q", "TOOLONGMETHOD", "/gateway/bot", NULL, 0, NULL, queued_done, NULL),
        -1);
    queued_answers = queued_ok = 0;
    for (int round = 0; round < 2; round++)
        for (uintptr_t i = 0; i < QUEUED_NAMES; i++) {
            char name[32];
            snprintf(name, sizeof name, "q%u", (unsigned)i);
            assert_int_equal(rest_enqueue(r, name, "GET", i % 2 ? "/x" : "/gateway/bot", NULL, 0,
                                          queued_prepare, queued_done, (void *)i),
                             0);
        }
    assert_true(h_run_until(&h, all_queued_answered, 60000));
    assert_int_equal(queued_ok, 2 * QUEUED_NAMES);
    rest_close(r);
    h_run_for(&h, 50);
    h_fini(&h);
}

/* ---- DMs ---- */

static int probes_for(struct harness *h, const char *user)
{
    struct json_object *v = jget(h->probes, user);
    return v ? json_object_get_boolean(v) : -1;
}

static const char *probe_user;
static bool probed(struct harness *h)
{
    return probes_for(h, probe_user) >= 0;
}

static int count_dm_messages(struct harness *h, const char *user)
{
    struct json_object *s = h_snapshot(h);
    struct json_object *msgs = jget(s, "messages");
    int n = 0;
    for (size_t i = 0; i < json_object_array_length(msgs); i++) {
        const char *u = jstr(json_object_array_get_idx(msgs, i), "dm_user");
        if (u && strcmp(u, user) == 0)
            n++;
    }
    json_object_put(s);
    return n;
}

static void test_dm_probe_and_50007(void **state)
{
    (void)state;
    struct harness h;
    start(&h);
    /* an open DM: reachable, and the probe itself posts nothing */
    probe_user = "61";
    h.p->ops->probe_dm(h.p, "61");
    assert_true(h_run_until(&h, probed, 3000));
    assert_int_equal(probes_for(&h, "61"), 1);
    assert_int_equal(count_dm_messages(&h, "61"), 0);
    /* closed DMs: the channel opens, so the probe says yes ... */
    fd_dm_closed(h.srv, "62", true);
    probe_user = "62";
    h.p->ops->probe_dm(h.p, "62");
    assert_true(h_run_until(&h, probed, 3000));
    assert_int_equal(probes_for(&h, "62"), 1);
    assert_int_equal(count_dm_messages(&h, "62"), 0);
    /* ... and the first real DM, refused with 50007, reports the user unreachable */
    json_object_object_del(h.probes, "62");
    send_text(&h, NULL, "62", "g1/hand/62", false, OUT_PRIVATE_VIEW, "your hand", NULL);
    assert_true(h_run_until(&h, probed, 3000));
    assert_int_equal(probes_for(&h, "62"), 0);
    struct discord_stats st;
    discord_get_stats(h.p, &st);
    assert_int_equal(st.dm_unreachable, 1);
    /* a probe now answers at once, and further DMs are not even tried */
    json_object_object_del(h.probes, "62");
    h.p->ops->probe_dm(h.p, "62");
    assert_int_equal(probes_for(&h, "62"), 0);
    struct json_object *s = h_snapshot(&h);
    int requests = json_object_get_int(jget(s, "requests"));
    json_object_put(s);
    send_text(&h, NULL, "62", NULL, false, OUT_NOTICE, "again", NULL);
    h_run_for(&h, 200);
    s = h_snapshot(&h);
    assert_int_equal(json_object_get_int(jget(s, "requests")), requests);
    json_object_put(s);
    /* a DM to an open user goes through and keeps its order */
    send_text(&h, NULL, "61", NULL, false, OUT_NOTICE, "one", NULL);
    send_text(&h, NULL, "61", NULL, false, OUT_NOTICE, "two", NULL);
    want_messages = 2;
    assert_true(h_run_until(&h, enough_messages, 3000));
    assert_int_equal(count_dm_messages(&h, "61"), 2);
    h_fini(&h);
}

/* ---- interactions ---- */

/* The message whose body text (content or embed) contains text, or NULL. */
static struct json_object *message_with(struct json_object *snap, const char *text)
{
    struct json_object *msgs = jget(snap, "messages");
    for (size_t i = 0; i < json_object_array_length(msgs); i++) {
        struct json_object *m = json_object_array_get_idx(msgs, i), *body = jget(m, "body");
        const char *c = jstr(body, "content");
        const char *e = jstr(json_object_array_get_idx(jget(body, "embeds"), 0), "description");
        if ((c && strstr(c, text)) || (e && strstr(e, text)))
            return m;
    }
    return NULL;
}

static struct json_object *find_callback(struct json_object *snap, const char *ix_id)
{
    struct json_object *cbs = jget(snap, "callbacks");
    for (size_t i = 0; i < json_object_array_length(cbs); i++) {
        struct json_object *c = json_object_array_get_idx(cbs, i);
        if (strcmp(jstr(c, "id"), ix_id) == 0)
            return c;
    }
    return NULL;
}

static const char *want_cb;
static bool have_callback(struct harness *h)
{
    struct json_object *s = h_snapshot(h);
    bool ok = find_callback(s, want_cb) != NULL;
    json_object_put(s);
    return ok;
}

static int want_webhooks;
static bool enough_webhooks(struct harness *h)
{
    struct json_object *s = h_snapshot(h);
    int n = (int)json_object_array_length(jget(s, "webhooks"));
    json_object_put(s);
    return n >= want_webhooks;
}

static int want_inputs;
static bool enough_inputs(struct harness *h)
{
    return h_count_inputs(h) >= want_inputs;
}

static struct json_object *input(struct harness *h, int i)
{
    return json_object_array_get_idx(h->inputs, (size_t)i);
}

static const char *want_dm_user;
static int want_dm_edits;

/* The last message in user's DMs, or NULL. */
static struct json_object *last_dm(struct json_object *snap, const char *user)
{
    struct json_object *msgs = jget(snap, "messages"), *found = NULL;
    for (size_t i = 0; i < json_object_array_length(msgs); i++) {
        struct json_object *m = json_object_array_get_idx(msgs, i);
        if (jstr(m, "dm_user") && strcmp(jstr(m, "dm_user"), user) == 0)
            found = m;
    }
    return found;
}

static bool have_dm(struct harness *h)
{
    struct json_object *s = h_snapshot(h);
    bool ok = last_dm(s, want_dm_user) != NULL;
    json_object_put(s);
    return ok;
}

static bool dm_edited(struct harness *h)
{
    struct json_object *s = h_snapshot(h);
    bool ok = json_object_get_int(jget(last_dm(s, want_dm_user), "edits")) >= want_dm_edits;
    json_object_put(s);
    return ok;
}

/* The select menu custom_id of message m, or NULL. */
static struct json_object *select_of(struct json_object *m, const char *custom_id)
{
    struct json_object *rows = jget(jget(m, "body"), "components");
    for (size_t i = 0; i < json_object_array_length(rows); i++) {
        struct json_object *items = jget(json_object_array_get_idx(rows, i), "components");
        for (size_t k = 0; k < json_object_array_length(items); k++) {
            struct json_object *c = json_object_array_get_idx(items, k);
            if (jstr(c, "custom_id") && strcmp(jstr(c, "custom_id"), custom_id) == 0)
                return c;
        }
    }
    return NULL;
}

/* "label=value;" for each option of a select menu (a static buffer). */
static const char *options_of(struct json_object *m, const char *custom_id)
{
    static char out[2048];
    struct json_object *opts = jget(select_of(m, custom_id), "options");
    size_t o = 0;
    out[0] = '\0';
    for (size_t i = 0; i < json_object_array_length(opts); i++) {
        struct json_object *op = json_object_array_get_idx(opts, i);
        int w = snprintf(out + o, sizeof(out) - o, "%s=%s;", jstr(op, "label"), jstr(op, "value"));
        if (w > 0 && (size_t)w < sizeof(out) - o)
            o += (size_t)w;
    }
    return out;
}

/* "value;" for each option shown as chosen. */
static const char *defaults_of(struct json_object *m, const char *custom_id)
{
    static char out[512];
    struct json_object *opts = jget(select_of(m, custom_id), "options");
    size_t o = 0;
    out[0] = '\0';
    for (size_t i = 0; i < json_object_array_length(opts); i++) {
        struct json_object *op = json_object_array_get_idx(opts, i);
        if (!json_object_get_boolean(jget(op, "default")))
            continue;
        int w = snprintf(out + o, sizeof(out) - o, "%s;", jstr(op, "value"));
        if (w > 0 && (size_t)w < sizeof(out) - o)
            o += (size_t)w;
    }
    return out;
}

/* A slash command answered during deliver(): an ephemeral type 4. */
static void ix_answered_at_once(struct harness *h)
{
    h->auto_reply = "You joined.";
    fdc_slash(h->srv, "3001", FD_GUILD_ID, CHANNEL_A, "71", "join", NULL, FD_PERM_MANAGE_GUILD);
    want_cb = "3001";
    assert_true(h_run_until(h, have_callback, 3000));
    struct json_object *s = h_snapshot(h);
    struct json_object *cb = find_callback(s, "3001");
    assert_int_equal(json_object_get_int(jget(cb, "type")), 4);
    assert_int_equal(json_object_get_int(jget(jget(cb, "data"), "flags")), 64);
    assert_string_equal(jstr(jget(cb, "data"), "content"), "You joined.");
    json_object_put(s);
    assert_string_equal(jstr(input(h, 0), "text"), "!illegal join");
    assert_string_equal(jstr(input(h, 0), "channel"), CHANNEL_A);
    assert_true(json_object_get_boolean(jget(input(h, 0), "moderator")));
    assert_string_equal(jstr(input(h, 0), "reply_to"), "ix:3001");
}

/* Nothing said during deliver(): deferred (5); a later answer edits
 * @original, and one after it is a follow-up. */
static void ix_deferred(struct harness *h)
{
    h->auto_reply = NULL;
    const char *opts = "[{\"name\":\"variant\",\"type\":3,\"value\":\"casual\"}]";
    fdc_slash(h->srv, "3002", FD_GUILD_ID, CHANNEL_A, "72", "new", opts, FD_PERM_NONE);
    want_cb = "3002";
    assert_true(h_run_until(h, have_callback, 3000));
    struct json_object *s = h_snapshot(h);
    assert_int_equal(json_object_get_int(jget(find_callback(s, "3002"), "type")), 5);
    json_object_put(s);
    assert_string_equal(jstr(input(h, 1), "text"), "!illegal new casual");
    /* the interaction's locale, when the server sent one (the fake leaves it
     * out now and then, as the field is optional) */
    const char *locale = jstr(input(h, 1), "locale");
    assert_true(!locale || strcmp(locale, "pt-BR") == 0);
    locale = jstr(input(h, 0), "locale");
    assert_true(!locale || strcmp(locale, "en-US") == 0);
    assert_false(json_object_get_boolean(jget(input(h, 1), "moderator")));
    struct outbound late = {
        .kind = OUT_NOTICE, .channel = CHANNEL_A, .text = "Game g1 opened.", .reply_to = "ix:3002"};
    assert_int_equal(h->p->ops->send(h->p, &late), 0);
    want_webhooks = 1;
    assert_true(h_run_until(h, enough_webhooks, 3000));
    s = h_snapshot(h);
    struct json_object *wh = json_object_array_get_idx(jget(s, "webhooks"), 0);
    assert_string_equal(jstr(wh, "method"), "PATCH");
    char path[128];
    snprintf(path, sizeof(path), "/webhooks/%s/tok-3002/messages/@original", FD_APP_ID);
    assert_string_equal(jstr(wh, "path"), path);
    assert_string_equal(jstr(jget(wh, "body"), "content"), "Game g1 opened.");
    json_object_put(s);
    /* a second late reply is a follow-up */
    late.text = "And another.";
    h->p->ops->send(h->p, &late);
    want_webhooks = 2;
    assert_true(h_run_until(h, enough_webhooks, 3000));
    s = h_snapshot(h);
    wh = json_object_array_get_idx(jget(s, "webhooks"), 1);
    assert_string_equal(jstr(wh, "method"), "POST");
    json_object_put(s);
}

/* A deferred command nobody answers is closed after 3 s. */
static void ix_unanswered(struct harness *h)
{
    fdc_slash(h->srv, "3003", FD_GUILD_ID, CHANNEL_A, "72", "status", NULL, FD_PERM_NONE);
    want_webhooks = 3;
    assert_true(h_run_until(h, enough_webhooks, 6000));
    struct json_object *s = h_snapshot(h);
    struct json_object *wh = json_object_array_get_idx(jget(s, "webhooks"), 2);
    assert_non_null(strstr(jstr(wh, "path"), "tok-3003/messages/@original"));
    json_object_put(s);
}

/* A private notice to the clicker during deliver() (a vote's confirmation)
 * answers the click ephemerally instead of a DM. */
static void ix_vote_confirmed(struct harness *h, const char *vote_id)
{
    h->auto_dm = "Your vote on case 1: bob.";
    fdc_component(h->srv, "3010", FD_GUILD_ID, CHANNEL_A, "73", vote_id, "g1/vote/1#vote 75", NULL);
    want_cb = "3010";
    assert_true(h_run_until(h, have_callback, 3000));
    h->auto_dm = NULL;
    struct json_object *s = h_snapshot(h);
    struct json_object *cb = find_callback(s, "3010");
    assert_int_equal(json_object_get_int(jget(cb, "type")), 4);
    assert_int_equal(json_object_get_int(jget(jget(cb, "data"), "flags")), 64);
    assert_string_equal(jstr(jget(cb, "data"), "content"), "Your vote on case 1: bob.");
    assert_int_equal(count_dm_messages(h, "73"), 0);
    json_object_put(s);
}

/* A press that names no live message of the bot's, an older button of the
 * form before game ids, and one on a message under another key are refused
 * with a word to the presser alone; none reaches the bot. */
static void ix_stale_presses(struct harness *h, const char *lobby_id, const char *vote_id)
{
    fdc_component(h->srv, "3013", FD_GUILD_ID, CHANNEL_A, "73", "999", "g1/lobby#!illegal join",
                  NULL);
    fdc_component(h->srv, "3014", FD_GUILD_ID, CHANNEL_A, "73", lobby_id, "il:!illegal join", NULL);
    fdc_component(h->srv, "3015", FD_GUILD_ID, CHANNEL_A, "73", vote_id, "g1/lobby#!illegal join",
                  NULL);
    /* each interaction's answer goes on its own queue: wait for all three */
    want_cb = "3013";
    assert_true(h_run_until(h, have_callback, 3000));
    want_cb = "3014";
    assert_true(h_run_until(h, have_callback, 3000));
    want_cb = "3015";
    assert_true(h_run_until(h, have_callback, 3000));
    struct json_object *s = h_snapshot(h);
    for (unsigned i = 0; i < 3; i++) {
        const char *ids[] = {"3013", "3014", "3015"};
        struct json_object *cb = find_callback(s, ids[i]);
        assert_int_equal(json_object_get_int(jget(cb, "type")), 4);
        assert_int_equal(json_object_get_int(jget(jget(cb, "data"), "flags")), 64);
        assert_non_null(strstr(jstr(jget(cb, "data"), "content"), "newest message"));
    }
    json_object_put(s);
    assert_int_equal(h_count_inputs(h), 5);
}

/* A button: canonical text, and a silent type 6 when unanswered. Buttons
 * are the bot's own messages'. */
static void ix_buttons(struct harness *h)
{
    struct json_object *lobby = json_tokener_parse(
        "{\"game\":\"g1\",\"players\":[],\"actions\":[\"join\",\"leave\",\"start\"]}");
    send_text(h, CHANNEL_A, NULL, "g1/lobby", true, OUT_LOBBY, "Lobby: nobody", lobby);
    json_object_put(lobby);
    struct json_object *vote = json_tokener_parse(
        "{\"game\":\"g1\",\"case\":1,\"choices\":[{\"command\":\"vote 75\",\"label\":\"Bob\"},"
        "{\"command\":\"abstain\",\"label_key\":\"ui.abstain\"}]}");
    send_text(h, CHANNEL_A, NULL, "g1/vote/1", false, OUT_BALLOT, "Vote on case 1", vote);
    json_object_put(vote);
    want_messages = 2;
    assert_true(h_run_until(h, enough_messages, 3000));
    struct json_object *s = h_snapshot(h);
    char lobby_id[32], vote_id[32];
    snprintf(lobby_id, sizeof lobby_id, "%s", jstr(message_with(s, "Lobby: nobody"), "id"));
    snprintf(vote_id, sizeof vote_id, "%s", jstr(message_with(s, "Vote on case 1"), "id"));
    json_object_put(s);
    fdc_component(h->srv, "3004", FD_GUILD_ID, CHANNEL_A, "73", lobby_id, "g1/lobby#!illegal leave",
                  NULL);
    want_cb = "3004";
    assert_true(h_run_until(h, have_callback, 3000));
    s = h_snapshot(h);
    assert_int_equal(json_object_get_int(jget(find_callback(s, "3004"), "type")), 6);
    json_object_put(s);
    assert_string_equal(jstr(input(h, 3), "text"), "!illegal leave");
    assert_null(jget(input(h, 3), "locale")); /* none sent: none passed on */
    ix_vote_confirmed(h, vote_id);
    ix_stale_presses(h, lobby_id, vote_id);
}

/* The trade builder in a DM: three selects, then Send; values of the
 * wrong type ignored; an edit of the hand shows what was chosen; the ask
 * menu emptied sends a gift. */
static void ix_trade_builder(struct harness *h)
{
    /* the trade builder in a DM, drawn from the hand's compose: three
     * selects, then Send, whose custom_id carries the template. The player
     * may ask for any resource in play, held or not. */
    struct json_object *hand = json_tokener_parse(
        "{\"game\":\"g1\",\"table\":\"" CHANNEL_A "\",\"compose\":{\"command\":\"" OFFER "\","
        "\"label_key\":\"ui.send-offer\",\"parts\":["
        "{\"name\":\"to\",\"label_key\":\"ui.offer-to\",\"players\":["
        "{\"id\":\"75\",\"name\":\"Bob Smith\"},{\"id\":\"76\",\"name\":\"Bob Smith\"}]},"
        "{\"name\":\"give\",\"items\":["
        "{\"id\":\"guns\",\"label_key\":\"illegal.card.guns\",\"max\":3},"
        "{\"id\":\"alcohol\",\"label_key\":\"illegal.card.alcohol\",\"max\":1}]},"
        "{\"name\":\"ask\",\"items\":["
        "{\"id\":\"guns\",\"label_key\":\"illegal.card.guns\",\"max\":3},"
        "{\"id\":\"alcohol\",\"label_key\":\"illegal.card.alcohol\",\"max\":3},"
        "{\"id\":\"powder\",\"label_key\":\"illegal.card.powder\",\"max\":3},"
        "{\"id\":\"call-girls\",\"label_key\":\"illegal.card.call-girls\",\"max\":3}]}]}}");
    send_text(h, NULL, "74", "g1/hand/74", false, OUT_PRIVATE_VIEW, "hand", hand);
    json_object_put(hand);
    want_dm_user = "74";
    assert_true(h_run_until(h, have_dm, 3000));
    struct json_object *s = h_snapshot(h);
    struct json_object *hm = last_dm(s, "74");
    char hand_id[32], dm[32];
    const char *id = jstr(hm, "id"), *channel = jstr(hm, "channel");
    snprintf(hand_id, sizeof hand_id, "%s", id ? id : "");
    snprintf(dm, sizeof dm, "%s", channel ? channel : "");
    /* in a DM, the hand names its table */
    const char *shown =
        jstr(json_object_array_get_idx(jget(jget(hm, "body"), "embeds"), 0), "description");
    assert_int_equal(strncmp(shown, "<#" CHANNEL_A ">\n", strlen("<#" CHANNEL_A ">\n")), 0);
    /* players by id, shown by name; cards by the catalog's names, in quantities */
    assert_string_equal(options_of(hm, "g1/hand/74#tb:to"), "Bob Smith=75;Bob Smith=76;");
    assert_string_equal(options_of(hm, "g1/hand/74#tb:give"),
                        "1 \xC3\x97 Guns=1 guns;2 \xC3\x97 Guns=2 guns;3 \xC3\x97 Guns=3 guns;"
                        "1 \xC3\x97 Alcohol=1 alcohol;");
    const char *ask = options_of(hm, "g1/hand/74#tb:ask");
    assert_non_null(strstr(ask, "1 \xC3\x97 Call Girls=1 call-girls;"));
    assert_non_null(strstr(ask, "3 \xC3\x97 Powder=3 powder;"));
    json_object_put(s);
    fdc_component(h->srv, "3005", NULL, dm, "74", hand_id, "g1/hand/74#tb:to", "[\"76\"]");
    fdc_component(h->srv, "3006", NULL, dm, "74", hand_id, "g1/hand/74#tb:give",
                  "[\"1 guns\",\"2 guns\",\"1 alcohol\",\"x\",\"9999 for\"]");
    fdc_component(h->srv, "3007", NULL, dm, "74", hand_id, "g1/hand/74#tb:ask",
                  "[\"2 call-girls\"]");
    fdc_component(h->srv, "3008", NULL, dm, "74", hand_id, "g1/hand/74#tb:send " OFFER, NULL);
    want_inputs = 6;
    assert_true(h_run_until(h, enough_inputs, 3000));
    /* in a DM a press names its game: a player may sit at two tables */
    assert_string_equal(jstr(input(h, 5), "text"),
                        "g1 offer <@76> 2 guns 1 alcohol for 2 call-girls");
    assert_null(jget(input(h, 5), "channel"));
    /* values of the wrong type are ignored, never fatal */
    fdc_component(h->srv, "3011", NULL, dm, "74", hand_id, "g1/hand/74#tb:give", "{\"a\":1}");
    fdc_component(h->srv, "3012", NULL, dm, "74", hand_id, "g1/hand/74#tb:to", "[7, null, {}]");
    want_cb = "3012";
    assert_true(h_run_until(h, have_callback, 3000));
    /* an edit of the hand shows what was chosen */
    hand = json_tokener_parse(
        "{\"game\":\"g1\",\"compose\":{\"command\":\"" OFFER "\",\"parts\":["
        "{\"name\":\"to\",\"players\":[{\"id\":\"76\",\"name\":\"Bob Smith\"}]},"
        "{\"name\":\"give\",\"items\":["
        "{\"id\":\"guns\",\"label_key\":\"illegal.card.guns\",\"max\":2}]},"
        "{\"name\":\"ask\",\"items\":["
        "{\"id\":\"guns\",\"label_key\":\"illegal.card.guns\",\"max\":3},"
        "{\"id\":\"alcohol\",\"label_key\":\"illegal.card.alcohol\",\"max\":3},"
        "{\"id\":\"powder\",\"label_key\":\"illegal.card.powder\",\"max\":3},"
        "{\"id\":\"call-girls\",\"label_key\":\"illegal.card.call-girls\",\"max\":3}]}]}}");
    send_text(h, NULL, "74", "g1/hand/74", true, OUT_PRIVATE_VIEW, "hand", hand);
    json_object_put(hand);
    want_dm_edits = 1;
    assert_true(h_run_until(h, dm_edited, 3000));
    s = h_snapshot(h);
    assert_string_equal(defaults_of(last_dm(s, "74"), "g1/hand/74#tb:ask"), "2 call-girls;");
    assert_int_equal(json_object_get_int(jget(s, "invalid")), 0);
    json_object_put(s);
    /* the ask menu emptied (a menu of items may be): Send gives a gift */
    fdc_component(h->srv, "3013", NULL, dm, "74", hand_id, "g1/hand/74#tb:to", "[\"76\"]");
    fdc_component(h->srv, "3014", NULL, dm, "74", hand_id, "g1/hand/74#tb:give", "[\"2 guns\"]");
    fdc_component(h->srv, "3015", NULL, dm, "74", hand_id, "g1/hand/74#tb:ask", "[]");
    fdc_component(h->srv, "3016", NULL, dm, "74", hand_id, "g1/hand/74#tb:send " OFFER, NULL);
    want_inputs = 7;
    assert_true(h_run_until(h, enough_inputs, 3000));
    assert_string_equal(jstr(input(h, 6), "text"), "g1 offer <@76> 2 guns for nothing");
}

/* Autocomplete asks the bot, which completes from the game (bot/complete.c). */
static void ix_autocomplete(struct harness *h)
{
    h->completions = json_tokener_parse("[[\"Bob Smith\", \"76\"]]");
    fdc_autocomplete(h->srv, "3009", NULL, "dm74", "74", "offer",
                     "[{\"name\":\"player\",\"type\":3,\"value\":\"b\",\"focused\":true}]");
    /* ids, not names, are what a choice carries */
    want_cb = "3009";
    assert_true(h_run_until(h, have_callback, 3000));
    struct json_object *s = h_snapshot(h);
    struct json_object *cb = find_callback(s, "3009");
    assert_int_equal(json_object_get_int(jget(cb, "type")), 8);
    struct json_object *choices = jget(jget(cb, "data"), "choices");
    assert_int_equal(json_object_array_length(choices), 1);
    assert_string_equal(jstr(json_object_array_get_idx(choices, 0), "name"), "Bob Smith");
    assert_string_equal(jstr(json_object_array_get_idx(choices, 0), "value"), "76");
    json_object_put(s);
    /* asked as typed: in a DM (no table), by whom, for which option of which command */
    assert_null(jget(h->completed, "channel"));
    assert_string_equal(jstr(h->completed, "user"), "74");
    assert_string_equal(jstr(h->completed, "word"), "offer");
    assert_string_equal(jstr(h->completed, "option"), "player");
    assert_string_equal(jstr(h->completed, "typed"), "b");
    assert_int_equal(h_count_inputs(h), 7); /* autocomplete is not an input */
    assert_int_equal(h_gw(h, "connects"), 1);
}

static void test_interactions(void **state)
{
    (void)state;
    struct harness h;
    start(&h);
    ix_answered_at_once(&h);
    ix_deferred(&h);
    ix_unanswered(&h);
    ix_buttons(&h);
    ix_trade_builder(&h);
    ix_autocomplete(&h);
    h_fini(&h);
}

/* ---- native messages ---- */

static struct json_object *only_message(struct json_object *snap)
{
    struct json_object *msgs = jget(snap, "messages");
    assert_int_equal(json_object_array_length(msgs), 1);
    return json_object_array_get_idx(msgs, 0);
}

static int want_edits;
static bool enough_edits(struct harness *h)
{
    struct json_object *s = h_snapshot(h);
    struct json_object *m = json_object_array_get_idx(jget(s, "messages"), 0);
    bool ok = m && json_object_get_int(jget(m, "edits")) >= want_edits;
    json_object_put(s);
    return ok;
}

static void collect_custom_ids(struct json_object *components, char *out, size_t len)
{
    size_t o = strlen(out);
    for (size_t i = 0; i < json_object_array_length(components); i++) {
        struct json_object *row = jget(json_object_array_get_idx(components, i), "components");
        for (size_t k = 0; row && k < json_object_array_length(row); k++) {
            struct json_object *c = json_object_array_get_idx(row, k);
            int w = snprintf(out + o, len - o, "%s=%s;", jstr(c, "custom_id"),
                             jstr(c, "label") ? jstr(c, "label") : "");
            if (w > 0 && (size_t)w < len - o)
                o += (size_t)w;
        }
    }
}

static void test_lobby_edited(void **state)
{
    (void)state;
    struct harness h;
    start(&h);
    struct json_object *d = json_tokener_parse(
        "{\"game\":\"g1\",\"players\":[],\"actions\":[\"join\",\"leave\",\"start\"]}");
    send_text(&h, CHANNEL_A, NULL, "g1/lobby", true, OUT_LOBBY, "Lobby: nobody", d);
    send_text(&h, CHANNEL_A, NULL, "g1/lobby", true, OUT_LOBBY, "Lobby: alice", d);
    json_object_put(d);
    want_edits = 1;
    assert_true(h_run_until(&h, enough_edits, 3000));
    h_run_for(&h, 100);
    struct json_object *s = h_snapshot(&h);
    struct json_object *m = only_message(s);
    struct json_object *e = json_object_array_get_idx(jget(jget(m, "body"), "embeds"), 0);
    assert_non_null(strstr(jstr(e, "description"), "Lobby: alice"));
    char ids[512] = "";
    collect_custom_ids(jget(jget(m, "body"), "components"), ids, sizeof(ids));
    /* each names its message and so its game: a press from an older game is refused */
    assert_string_equal(ids, "g1/lobby#!illegal join=Join;g1/lobby#!illegal leave=Leave;"
                             "g1/lobby#!illegal start=Start;");
    assert_int_equal(
        json_object_array_length(jget(jget(jget(m, "body"), "allowed_mentions"), "parse")), 0);
    json_object_put(s);
    h_fini(&h);
}

static int want_reactions;
static bool enough_reactions(struct harness *h)
{
    struct json_object *s = h_snapshot(h);
    struct json_object *m = json_object_array_get_idx(jget(s, "messages"), 0);
    bool ok = m && (int)json_object_array_length(jget(m, "reactions")) >= want_reactions;
    json_object_put(s);
    return ok;
}

static void test_drop_reactions(void **state)
{
    (void)state;
    struct harness h;
    start(&h);
    struct json_object *closed =
        json_tokener_parse("{\"drop\":1,\"shown\":[\"guns\"],\"open\":false}");
    send_text(&h, CHANNEL_A, NULL, "g1/drop/1", true, OUT_TABLE_VIEW, "Drop 1: guns", closed);
    json_object_put(closed);
    struct json_object *open = json_tokener_parse(
        "{\"drop\":1,\"shown\":[\"guns\",\"alcohol\"],\"open\":true,"
        "\"choices\":[{\"emoji\":\"\xF0\x9F\x94\xAB\",\"card\":\"guns\"},"
        "{\"emoji\":\"\xF0\x9F\x8D\xBA\",\"card\":\"alcohol\"}],\"pick\":\"first\","
        "\"deadline\":4102444800000}");
    send_text(&h, CHANNEL_A, NULL, "g1/drop/1", true, OUT_TABLE_VIEW, "Drop 1: guns alcohol", open);
    /* the same data again adds no reaction twice */
    send_text(&h, CHANNEL_A, NULL, "g1/drop/1", true, OUT_TABLE_VIEW, "Drop 1: guns alcohol", open);
    json_object_put(open);
    want_reactions = 2;
    assert_true(h_run_until(&h, enough_reactions, 3000));
    h_run_for(&h, 200);
    struct json_object *s = h_snapshot(&h);
    struct json_object *m = only_message(s);
    assert_int_equal(json_object_array_length(jget(m, "reactions")), 2);
    assert_string_equal(json_object_get_string(json_object_array_get_idx(jget(m, "reactions"), 0)),
                        "\xF0\x9F\x94\xAB");
    struct json_object *e = json_object_array_get_idx(jget(jget(m, "body"), "embeds"), 0);
    assert_non_null(strstr(jstr(e, "description"), "<t:4102444800:R>"));
    char mid[32];
    snprintf(mid, sizeof(mid), "%s", jstr(m, "id"));
    json_object_put(s);
    /* a player's reaction comes back as an input on the logical key */
    fdc_reaction(h.srv, FD_GUILD_ID, CHANNEL_A, mid, "81", "\xF0\x9F\x8D\xBA");
    fdc_reaction(h.srv, FD_GUILD_ID, CHANNEL_A, "12345", "81", "\xF0\x9F\x8D\xBA");  /* not ours */
    fdc_reaction(h.srv, FD_GUILD_ID, CHANNEL_A, mid, FD_BOT_ID, "\xF0\x9F\x94\xAB"); /* the bot */
    fdc_message(h.srv, "7001", FD_GUILD_ID, CHANNEL_A, "81", "!illegal status");
    want_inputs = 2;
    assert_true(h_run_until(&h, enough_inputs, 3000));
    assert_int_equal(h_count_inputs(&h), 2);
    assert_string_equal(jstr(input(&h, 0), "type"), "reaction");
    assert_string_equal(jstr(input(&h, 0), "key"), "g1/drop/1");
    assert_string_equal(jstr(input(&h, 0), "reaction"), "\xF0\x9F\x8D\xBA");
    h_fini(&h);
}

/* The ballot's message id is stored: once its post is answered, which comes
 * after the server has recorded the message. */
static bool vote_stored(struct harness *h)
{
    return jget(h->state, "msg/g1/vote/1") != NULL;
}

/* The ended game's stored message ids are gone (they go once its last
 * message is answered, so a loaded machine may take a while). */
static bool vote_ids_forgotten(struct harness *h)
{
    if (jget(h->state, "msg/g1/vote/1"))
        return false;
    json_object_object_foreach(h->state, k, v)
    {
        (void)v;
        if (strncmp(k, "mid/", 4) == 0)
            return false;
    }
    return true;
}

static void test_vote_and_game_over(void **state)
{
    (void)state;
    struct harness h;
    start(&h);
    struct json_object *d = json_tokener_parse(
        "{\"case\":1,\"title\":\"illegal.ui.title-tribunal\","
        "\"choices\":[{\"command\":\"vote 91\",\"label\":\"Alice\",\"tone\":\"main\"},"
        "{\"command\":\"vote 92\",\"label\":\"Bob\",\"tone\":\"main\"},"
        "{\"command\":\"abstain\",\"label_key\":\"ui.abstain\"}],"
        "\"deadline\":4102444800000}");
    send_text(&h, CHANNEL_A, NULL, "g1/vote/1", false, OUT_BALLOT, "Vote on case 1", d);
    json_object_put(d);
    want_messages = 1;
    assert_true(h_run_until(&h, enough_messages, 3000));
    /* which message carries the key is stored, for a restart */
    assert_true(h_run_until(&h, vote_stored, 5000));
    /* the machine-readable result is not posted; the game's stored ids go */
    struct json_object *over =
        json_tokener_parse("{\"game\":\"g1\",\"scores\":{\"91\":3},\"winners\":[\"91\"]}");
    send_text(&h, CHANNEL_A, NULL, NULL, false, OUT_GAME_OVER, "1. Alice 3", over);
    json_object_put(over);
    game_ended(&h, "g1", CHANNEL_A);
    assert_true(h_run_until(&h, vote_ids_forgotten, 5000));
    struct json_object *s = h_snapshot(&h);
    struct json_object *m = only_message(s);
    char ids[512] = "";
    collect_custom_ids(jget(jget(m, "body"), "components"), ids, sizeof(ids));
    assert_string_equal(ids,
                        "g1/vote/1#vote 91=Alice;g1/vote/1#vote 92=Bob;g1/vote/1#abstain=Abstain;");
    struct json_object *e = json_object_array_get_idx(jget(jget(m, "body"), "embeds"), 0);
    assert_non_null(strstr(jstr(e, "description"), "<t:4102444800:R>"));
    assert_string_equal(jstr(e, "title"), "Tribunal"); /* the title the module names */
    json_object_put(s);
    h_fini(&h);
}

static size_t components_of(struct json_object *m)
{
    return json_object_array_length(jget(jget(m, "body"), "components"));
}

static bool all_closed(struct harness *h)
{
    struct json_object *s = h_snapshot(h);
    const char *texts[] = {"Vote on case 1", "Offer #3 from you", "Offer #3 to you", "Your hand"};
    bool ok = true;
    for (unsigned i = 0; i < 4; i++) {
        struct json_object *m = message_with(s, texts[i]);
        ok = ok && m && components_of(m) == 0 && json_object_get_int(jget(m, "edits")) >= 1;
    }
    json_object_put(s);
    return ok;
}

/* An offer's choices as buttons: labelled in words and tag, styled by their tone. */
static void check_offer_buttons(struct harness *h)
{
    struct json_object *snap = h_snapshot(h), *offer = message_with(snap, "Offer #3 to you");
    char ids[256] = "";
    collect_custom_ids(jget(jget(offer, "body"), "components"), ids, sizeof ids);
    assert_string_equal(ids,
                        "g1/offer/3/92#accept 3=Accept #3;g1/offer/3/92#decline 3=Decline #3;");
    struct json_object *row =
        jget(json_object_array_get_idx(jget(jget(offer, "body"), "components"), 0), "components");
    assert_int_equal(json_object_get_int(jget(json_object_array_get_idx(row, 0), "style")), 3);
    assert_int_equal(json_object_get_int(jget(json_object_array_get_idx(row, 1), "style")), 4);
    json_object_put(snap);
}

/* Buttons and menus go once their moment has passed: the vote's at the
 * verdict, an offer's once it is resolved, the trade builder at the result. */
static void test_controls_close(void **state)
{
    (void)state;
    struct harness h;
    start(&h);
    struct json_object *d = json_tokener_parse(
        "{\"game\":\"g1\",\"case\":1,"
        "\"choices\":[{\"command\":\"vote 91\",\"label\":\"Alice\",\"tone\":\"main\"},"
        "{\"command\":\"vote 92\",\"label\":\"Bob\",\"tone\":\"main\"},"
        "{\"command\":\"abstain\",\"label_key\":\"ui.abstain\"}],"
        "\"deadline\":4102444800000}");
    send_text(&h, CHANNEL_A, NULL, "g1/vote/1", false, OUT_BALLOT, "Vote on case 1", d);
    json_object_put(d);
    d = json_tokener_parse("{\"game\":\"g1\",\"offer\":3,\"choices\":[{\"command\":\"cancel 3\","
                           "\"label_key\":\"ui.cancel\",\"tag\":\"#3\"}]}");
    send_text(&h, NULL, "91", "g1/offer/3/91", false, OUT_PROMPT, "Offer #3 from you", d);
    json_object_put(d);
    d = json_tokener_parse(
        "{\"game\":\"g1\",\"offer\":3,\"choices\":[{\"command\":\"accept 3\",\"label_key\":"
        "\"ui.accept\",\"tag\":\"#3\",\"tone\":\"yes\"},{\"command\":\"decline 3\","
        "\"label_key\":\"ui.decline\",\"tag\":\"#3\",\"tone\":\"no\"}]}");
    send_text(&h, NULL, "92", "g1/offer/3/92", false, OUT_PROMPT, "Offer #3 to you", d);
    json_object_put(d);
    d = json_tokener_parse("{\"game\":\"g1\",\"hand\":{\"guns\":1},"
                           "\"players\":[{\"id\":\"92\",\"name\":\"Bob\"}]}");
    send_text(&h, NULL, "91", "g1/hand/91", false, OUT_PRIVATE_VIEW, "Your hand", d);
    json_object_put(d);
    want_messages = 4;
    assert_true(h_run_until(&h, enough_messages, 3000));
    check_offer_buttons(&h);
    /* the game goes on: a notice that closes another offer closes nothing here */
    d = json_tokener_parse("{\"game\":\"g1\",\"offer\":4,\"event\":\"offer-declined\","
                           "\"closes\":[\"g1/offer/4/91\"]}");
    send_text(&h, NULL, "91", NULL, false, OUT_NOTICE, "Offer #4 declined.", d);
    json_object_put(d);
    h_run_for(&h, 300);
    struct json_object *s = h_snapshot(&h);
    assert_int_equal(components_of(message_with(s, "Offer #3 from you")), 1);
    assert_int_equal(components_of(message_with(s, "Vote on case 1")), 1);
    json_object_put(s);
    /* the offer is accepted: each player is told, and loses its buttons */
    d = json_tokener_parse("{\"game\":\"g1\",\"offer\":3,\"event\":\"offer-accepted\","
                           "\"closes\":[\"g1/offer/3/91\"]}");
    send_text(&h, NULL, "91", NULL, false, OUT_NOTICE, "Offer #3 accepted.", d);
    json_object_put(d);
    d = json_tokener_parse("{\"game\":\"g1\",\"offer\":3,\"event\":\"offer-accepted\","
                           "\"closes\":[\"g1/offer/3/92\"]}");
    send_text(&h, NULL, "92", NULL, false, OUT_NOTICE, "Offer #3 accepted.", d);
    json_object_put(d);
    /* a verdict, told with the next case's opening in one message */
    d = json_tokener_parse("{\"game\":\"g1\",\"event\":\"case-opened\",\"opens\":true,"
                           "\"events\":[\"verdict-discarded\",\"case-opened\"],"
                           "\"closes\":[\"g1/vote/1\"]}");
    send_text(&h, CHANNEL_A, NULL, NULL, false, OUT_NOTICE, "Case 1: set aside.", d);
    json_object_put(d);
    d = json_tokener_parse("{\"game\":\"g1\",\"scores\":{\"91\":3},\"winners\":[\"91\"],"
                           "\"closes\":[\"g1/hand/91\",\"g1/hand/92\"]}");
    send_text(&h, CHANNEL_A, NULL, "g1/result", false, OUT_RESULT, "Game over", d);
    send_text(&h, CHANNEL_A, NULL, NULL, false, OUT_GAME_OVER, "1. Alice 3", d);
    json_object_put(d);
    game_ended(&h, "g1", CHANNEL_A);
    assert_true(h_run_until(&h, all_closed, 3000));
    /* the closing edits kept the rest of each message */
    h_run_for(&h, 300);
    s = h_snapshot(&h);
    struct json_object *vote = message_with(s, "Vote on case 1");
    assert_non_null(jget(jget(vote, "body"), "embeds"));
    json_object_put(s);
    /* nothing of the game is left in the store */
    json_object_object_foreach(h.state, k, v)
    {
        (void)v;
        assert_true(strncmp(k, "ctl/", 4) != 0 && strncmp(k, "msg/", 4) != 0);
    }
    h_fini(&h);
}

static bool answered_twice(struct harness *h)
{
    struct json_object *s = h_snapshot(h);
    int n = 0;
    struct json_object *msgs = jget(s, "messages");
    for (size_t i = 0; i < json_object_array_length(msgs); i++)
        if (jget(jget(json_object_array_get_idx(msgs, i), "body"), "message_reference"))
            n++;
    json_object_put(s);
    return n >= 2;
}

static bool reported_twice(struct harness *h)
{
    return json_object_array_length(h->sent) >= 2;
}

static bool repeated_twice(struct harness *h)
{
    struct json_object *s = h_snapshot(h);
    bool twice = json_object_get_int(jget(s, "nonce_repeats")) >= 2;
    json_object_put(s);
    return twice;
}

/* A message from the bot's outbox carries its id as an enforced nonce: sent
 * again (after a crash that came before its delete reached the disk),
 * Discord returns the first message instead of posting a copy. Both sends
 * are reported done, so the outbox lets go of it. */
static void test_outbox_resend_posts_once(void **state)
{
    (void)state;
    struct harness h;
    start(&h);
    struct outbound m = {
        .kind = OUT_NOTICE, .channel = CHANNEL_A, .text = "Session 1 opens.", .outbox_id = 41};
    assert_int_equal(h.p->ops->send(h.p, &m), 0);
    assert_int_equal(h.p->ops->send(h.p, &m), 0);
    assert_true(h_run_until(&h, reported_twice, 3000));
    struct json_object *s = h_snapshot(&h);
    assert_int_equal(json_object_array_length(jget(s, "messages")), 1);
    assert_int_equal(json_object_get_int(jget(s, "nonce_repeats")), 1);
    struct json_object *body = jget(json_object_array_get_idx(jget(s, "messages"), 0), "body");
    /* the store's random prefix, then the id (41 = 0x29): ids repeat in a new store */
    const char *prefix = jstr(h.state, "nonce-prefix");
    char want[64], first[16];
    assert_non_null(prefix);
    assert_int_equal(strlen(prefix), 8);
    snprintf(want, sizeof want, "%s29", prefix);
    snprintf(first, sizeof first, "%s", prefix);
    assert_string_equal(jstr(body, "nonce"), want);
    assert_true(json_object_get_boolean(jget(body, "enforce_nonce")));
    json_object_put(s);
    assert_int_equal(json_object_get_int64(json_object_array_get_idx(h.sent, 0)), 41);
    assert_int_equal(json_object_get_int64(json_object_array_get_idx(h.sent, 1)), 41);

    /* the first post of a keyed message (queued as an edit: no id yet) carries it too */
    struct json_object *d = json_tokener_parse("{\"game\":\"g1\",\"table\":\"" CHANNEL_A "\"}");
    struct outbound lobby = {.kind = OUT_NOTICE,
                             .channel = CHANNEL_A,
                             .key = "g1/lobby",
                             .replace = true,
                             .text = "Players 0/8: nobody.",
                             .data = d,
                             .outbox_id = 42};
    assert_int_equal(h.p->ops->send(h.p, &lobby), 0);
    want_messages = 2;
    assert_true(h_run_until(&h, enough_messages, 5000));
    /* sent again as after a crash, before the id was stored: posted once */
    h_stop_adapter(&h);
    json_object_object_del(h.state, "msg/g1/lobby");
    h_start_adapter(&h);
    assert_true(h_run_until(&h, h_ready, 5000));
    assert_int_equal(h.p->ops->send(h.p, &lobby), 0);
    assert_true(h_run_until(&h, repeated_twice, 5000));
    h_run_for(&h, 100); /* nothing more is posted */
    json_object_put(d);
    s = h_snapshot(&h);
    assert_int_equal(json_object_array_length(jget(s, "messages")), 2);
    assert_int_equal(json_object_get_int(jget(s, "nonce_repeats")), 2);
    json_object_put(s);
    h_fini(&h);

    /* another store, another prefix */
    struct harness other;
    start(&other);
    assert_string_not_equal(jstr(other.state, "nonce-prefix"), first);
    h_fini(&other);
}

/* One-line notices are plain content; a countdown only where a timed step
 * opens; an answer to a text command replies to it. */
static void test_notices_and_replies(void **state)
{
    (void)state;
    struct harness h;
    start(&h);
    struct json_object *d = json_tokener_parse(
        "{\"game\":\"g1\",\"event\":\"session-opened\",\"opens\":true,\"deadline\":4102444800000}");
    send_text(&h, CHANNEL_A, NULL, NULL, false, OUT_NOTICE, "Session 1 opens.", d);
    json_object_put(d);
    d = json_tokener_parse("{\"game\":\"g1\",\"event\":\"drop-done\",\"deadline\":4102444800000}");
    send_text(&h, CHANNEL_A, NULL, NULL, false, OUT_NOTICE, "Drop 1 is over.", d);
    json_object_put(d);
    d = json_tokener_parse("{\"game\":\"g1\",\"deadline\":4102444800000}");
    send_text(&h, NULL, "91", NULL, false, OUT_NOTICE, "You are the Pimp.", d);
    json_object_put(d);
    /* a step that ends within the hour: the countdown alone */
    char soon[128];
    snprintf(soon, sizeof soon,
             "{\"game\":\"g1\",\"event\":\"session-opened\",\"opens\":true,\"deadline\":%lld}",
             ((long long)time(NULL) + 180) * 1000);
    d = json_tokener_parse(soon);
    send_text(&h, CHANNEL_A, NULL, NULL, false, OUT_NOTICE, "Session 2 opens.", d);
    json_object_put(d);
    want_messages = 4;
    assert_true(h_run_until(&h, enough_messages, 3000));
    struct json_object *s = h_snapshot(&h);
    struct json_object *opened = message_with(s, "Session 1 opens.");
    assert_string_equal(jstr(jget(opened, "body"), "content"),
                        "Session 1 opens.\n\xE2\x8F\xB3 <t:4102444800:R> (<t:4102444800:F>)");
    assert_int_equal(json_object_array_length(jget(jget(opened, "body"), "embeds")), 0);
    const char *short_step = jstr(jget(message_with(s, "Session 2 opens."), "body"), "content");
    assert_non_null(strstr(short_step, ":R>"));
    assert_null(strstr(short_step, ":F>"));
    assert_string_equal(jstr(jget(message_with(s, "Drop 1 is over."), "body"), "content"),
                        "Drop 1 is over.");
    assert_string_equal(jstr(jget(message_with(s, "You are the Pimp."), "body"), "content"),
                        "You are the Pimp.");
    json_object_put(s);
    /* text commands, in the table and in a DM, are answered as replies */
    h.auto_answer = "No game here.";
    fdc_message(h.srv, "7101", FD_GUILD_ID, CHANNEL_A, "81", "!illegal status");
    fdc_message(h.srv, "7102", NULL, "520000000000000009", "82", "hand");
    assert_true(h_run_until(&h, answered_twice, 3000));
    s = h_snapshot(&h);
    struct json_object *msgs = jget(s, "messages");
    int seen = 0;
    for (size_t i = 0; i < json_object_array_length(msgs); i++) {
        struct json_object *m = json_object_array_get_idx(msgs, i);
        struct json_object *ref = jget(jget(m, "body"), "message_reference");
        if (!ref)
            continue;
        const char *want = strcmp(jstr(m, "channel"), CHANNEL_A) == 0 ? "7101" : "7102";
        assert_string_equal(jstr(ref, "message_id"), want);
        assert_false(json_object_get_boolean(jget(ref, "fail_if_not_exists")));
        seen++;
    }
    assert_int_equal(seen, 2);
    /* every body the adapter sent passed Discord's checks */
    assert_int_equal(json_object_get_int(jget(s, "invalid")), 0);
    json_object_put(s);
    h_fini(&h);
}

static bool two_inputs(struct harness *h)
{
    return json_object_array_length(h->inputs) >= 2;
}

/* The guild's owner moderates, also when typing: a MESSAGE_CREATE's member
 * has no user, so the author says who it is. Others without a role that
 * moderates do not. */
static void test_owner_moderates(void **state)
{
    (void)state;
    struct harness h;
    start(&h);
    fdc_guild(h.srv, FD_GUILD_ID, "81");
    fdc_message(h.srv, "7201", FD_GUILD_ID, CHANNEL_A, "81", "!illegal event open Cup");
    fdc_message(h.srv, "7202", FD_GUILD_ID, CHANNEL_A, "82", "!illegal event open Cup");
    assert_true(h_run_until(&h, two_inputs, 3000));
    assert_string_equal(jstr(input(&h, 0), "user"), "81");
    assert_true(json_object_get_boolean(jget(input(&h, 0), "moderator")));
    assert_string_equal(jstr(input(&h, 1), "user"), "82");
    assert_false(json_object_get_boolean(jget(input(&h, 1), "moderator")));
    h_fini(&h);
}

/* Text names a channel by its mention, which Discord shows as a link. */
static void test_channel_name(void **state)
{
    (void)state;
    struct harness h;
    char name[64];
    start(&h);
    assert_non_null(h.p->ops->channel_name);
    h.p->ops->channel_name(h.p, CHANNEL_A, name, sizeof name);
    assert_string_equal(name, "<#" CHANNEL_A ">");
    h_fini(&h);
}

/* Whether the hand g1/hand/91 is stored, and so known after a restart. */
static bool hand_stored(struct harness *h)
{
    return jstr(h->state, "msg/g1/hand/91") != NULL;
}

/* Whether the hand was edited twice (its new cards, its controls closed) and
 * the result posted. */
static bool hand_edited_and_closed(struct harness *h)
{
    struct json_object *s = h_snapshot(h);
    bool ok = json_object_get_int(jget(last_dm(s, "91"), "edits")) >= 2 &&
              message_with(s, "Game over") != NULL;
    json_object_put(s);
    return ok;
}

/* After a restart the adapter knows a DM message's channel from the store
 * before it has opened the DM channel again. An edit of the hand waits for
 * that; the close of the hand that follows it in the bot's order must wait
 * too, or the edit lands last and brings the trade builder back (a kill -9
 * late in a game left a hand with its controls after the result). */
static void test_close_follows_edit_waiting_for_dm(void **state)
{
    (void)state;
    struct harness h;
    start(&h);
    struct json_object *d = json_tokener_parse(
        "{\"game\":\"g1\",\"hand\":{\"guns\":1},\"players\":[{\"id\":\"92\",\"name\":\"Bob\"}]}");
    send_text(&h, NULL, "91", "g1/hand/91", true, OUT_PRIVATE_VIEW, "Your hand", d);
    json_object_put(d);
    assert_true(h_run_until(&h, hand_stored, 3000));
    h_stop_adapter(&h);
    h_start_adapter(&h);
    assert_true(h_run_until(&h, h_ready, 5000));
    /* the DM channel is slow to open again */
    fd_force_429(h.srv, "/users/@me/channels", 1, false, 0.5);
    d = json_tokener_parse(
        "{\"game\":\"g1\",\"hand\":{\"guns\":2},\"players\":[{\"id\":\"92\",\"name\":\"Bob\"}]}");
    send_text(&h, NULL, "91", "g1/hand/91", true, OUT_PRIVATE_VIEW, "Your hand, later", d);
    json_object_put(d);
    d = json_tokener_parse("{\"game\":\"g1\",\"closes\":[\"g1/hand/91\"]}");
    send_text(&h, CHANNEL_A, NULL, "g1/result", false, OUT_RESULT, "Game over", d);
    json_object_put(d);
    assert_true(h_run_until(&h, hand_edited_and_closed, 5000));
    h_run_for(&h, 300);
    struct json_object *s = h_snapshot(&h);
    struct json_object *hand = last_dm(s, "91");
    assert_non_null(strstr(json_object_to_json_string(jget(hand, "body")), "later"));
    assert_int_equal(components_of(hand), 0);
    json_object_put(s);
    h_fini(&h);
}

/* A connection to the test server that closes before its request, or in
 * the middle of its first line (its client killed just after it connected, as
 * the kill tests do), leaves the server serving: it once took the test
 * process down (a session's data that does not exist yet was freed). */
static void test_server_outlives_bare_connections(void **state)
{
    (void)state;
    struct harness h;
    start(&h);
    static const char *const sent[] = {"", "GET /api/v10/gateway/bot HTTP/1.1\r\n", "PATCH"};
    for (size_t i = 0; i < sizeof sent / sizeof *sent; i++) {
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)fd_port(h.srv))};
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        assert_true(fd >= 0);
        assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
        assert_int_equal(write(fd, sent[i], strlen(sent[i])), (ssize_t)strlen(sent[i]));
        close(fd);
    }
    send_text(&h, CHANNEL_A, NULL, NULL, false, OUT_NOTICE, "still here", NULL);
    want_messages = 1;
    assert_true(h_run_until(&h, enough_messages, 3000));
    h_fini(&h);
}

/* A stop lets what is queued go out (the loop keeps running), then closes. */
static void test_stop_drains(void **state)
{
    (void)state;
    struct harness h;
    start(&h);
    fd_set_bucket_limit(h.srv, 4);
    send_many(&h, 1, 12); /* three seconds of one channel's bucket */
    h.p->ops->stop(h.p);
    struct outbound late = {.kind = OUT_NOTICE, .channel = CHANNEL_A, .text = "too late"};
    assert_int_equal(h.p->ops->send(h.p, &late), -1);
    uv_run(&h.loop, UV_RUN_DEFAULT);
    assert_channels_in_order(&h, 1, 12);
    struct discord_stats st;
    discord_get_stats(h.p, &st);
    assert_int_equal(st.lost, 0);
    h_fini(&h);
}

static int want_dms;
static bool enough_dms(struct harness *h)
{
    return count_dm_messages(h, want_dm_user) >= want_dms;
}

/* The content of user's n-th DM (a static copy), or "". */
static const char *dm_text(struct harness *h, const char *user, int n)
{
    static char out[256];
    struct json_object *s = h_snapshot(h), *msgs = jget(s, "messages");
    out[0] = '\0';
    for (size_t i = 0; i < json_object_array_length(msgs); i++) {
        struct json_object *m = json_object_array_get_idx(msgs, i);
        if (jstr(m, "dm_user") && strcmp(jstr(m, "dm_user"), user) == 0 && n-- == 0)
            snprintf(out, sizeof out, "%s", jstr(jget(m, "body"), "content"));
    }
    json_object_put(s);
    return out;
}

static uint64_t token_gone_at;

static uint64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static bool token_gone(struct harness *h)
{
    (void)h;
    return mono_ms() > token_gone_at;
}

static bool rest_drained(struct harness *h)
{
    struct discord_stats st;
    discord_get_stats(h->p, &st);
    return st.rest_pending == 0;
}

/*
 * Discord takes a first answer to an interaction only within 3 s. One it
 * keeps failing (503) is retried inside that window and no longer; what it
 * meant to say then goes to the user's DMs, and nothing is left queued. One
 * that arrives too late (10062) goes there too, and so do the interaction's
 * later answers; an autocomplete too late is dropped. Past the token's
 * life, an answer refused goes there too, and the next does not try.
 */
static void test_interaction_window(void **state)
{
    (void)state;
    struct harness h;
    start(&h);
    fd_set_interaction_window(h.srv, LIM_ANSWER_MS);
    fd_force_status(h.srv, "/interactions/", 1000, 503);
    h.auto_reply = "You joined.";
    fdc_slash(h.srv, "3201", FD_GUILD_ID, CHANNEL_A, "71", "join", NULL, FD_PERM_NONE);
    want_dm_user = "71";
    assert_true(h_run_until(&h, have_dm, 10000));
    assert_string_equal(dm_text(&h, "71", 0), "You joined.");
    assert_true(h_run_until(&h, rest_drained, 5000));
    struct discord_stats st;
    discord_get_stats(h.p, &st);
    assert_int_equal(st.rest_pending, 0);
    struct json_object *s = h_snapshot(&h);
    long tries = json_object_get_int64(jget(s, "forced"));
    assert_true(tries >= 2 && tries < 10); /* retried, within the window only */
    assert_int_equal(json_object_array_length(jget(s, "callbacks")), 0);
    json_object_put(s);

    /* too late for Discord: the first answer, a later one, and autocomplete */
    fd_clear_forces(h.srv);
    fd_set_interaction_window(h.srv, 1);
    h.auto_reply = "You left.";
    fdc_slash(h.srv, "3202", FD_GUILD_ID, CHANNEL_A, "72", "leave", NULL, FD_PERM_NONE);
    want_dm_user = "72";
    assert_true(h_run_until(&h, have_dm, 5000));
    h.auto_reply = NULL;
    struct outbound late = {
        .kind = OUT_NOTICE, .channel = CHANNEL_A, .text = "And later.", .reply_to = "ix:3202"};
    assert_int_equal(h.p->ops->send(h.p, &late), 0);
    want_dms = 2;
    assert_true(h_run_until(&h, enough_dms, 5000));
    assert_string_equal(dm_text(&h, "72", 0), "You left.");
    assert_string_equal(dm_text(&h, "72", 1), "And later.");
    fdc_autocomplete(h.srv, "3203", FD_GUILD_ID, CHANNEL_A, "72", "vote",
                     "[{\"name\":\"player\",\"type\":3,\"value\":\"b\",\"focused\":true}]");
    h_run_for(&h, 500);
    discord_get_stats(h.p, &st);
    assert_int_equal(st.rest_pending, 0);
    s = h_snapshot(&h);
    assert_int_equal(json_object_array_length(jget(s, "callbacks")), 0);
    assert_int_equal(json_object_array_length(jget(s, "webhooks")), 0);
    assert_true(json_object_get_int(jget(s, "ix_refused")) >= 2);
    json_object_put(s);
    assert_int_equal(count_dm_messages(&h, "72"), 2);

    /* past the token's life (Discord's 15 minutes, shortened): a later
     * answer, refused (50027), goes to the DMs, and so does the next, */
    fd_set_interaction_window(h.srv, 0);
    fd_set_token_life(h.srv, 300);
    s = h_snapshot(&h);
    int refused = json_object_get_int(jget(s, "ix_refused"));
    json_object_put(s);
    fdc_slash(h.srv, "3204", FD_GUILD_ID, CHANNEL_A, "73", "status", NULL, FD_PERM_NONE);
    want_cb = "3204";
    assert_true(h_run_until(&h, have_callback, 5000)); /* deferred: nothing said yet */
    /* the token's life runs from the fake's dispatch, which a loaded machine
     * may hold back: counted from the answer, it is surely over */
    token_gone_at = mono_ms() + 300;
    assert_true(h_run_until(&h, token_gone, 5000));
    struct outbound later = {
        .kind = OUT_NOTICE, .channel = CHANNEL_A, .text = "Late one.", .reply_to = "ix:3204"};
    assert_int_equal(h.p->ops->send(h.p, &later), 0);
    want_dm_user = "73";
    assert_true(h_run_until(&h, have_dm, 5000));
    later.text = "Late two.";
    assert_int_equal(h.p->ops->send(h.p, &later), 0);
    want_dms = 2;
    assert_true(h_run_until(&h, enough_dms, 5000));
    assert_string_equal(dm_text(&h, "73", 0), "Late one.");
    assert_string_equal(dm_text(&h, "73", 1), "Late two.");
    s = h_snapshot(&h);
    /* only the first tried the token: the interaction is known dead after */
    assert_int_equal(json_object_get_int(jget(s, "ix_refused")), refused + 1);
    json_object_put(s);
    h_fini(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_route_keys),
        cmocka_unit_test(test_header_lines),
        cmocka_unit_test(test_bucket_logic),
        cmocka_unit_test(test_global_window),
        cmocka_unit_test(test_bucket_storm),
        cmocka_unit_test(test_global_storm),
        cmocka_unit_test(test_kept_handle_method),
        cmocka_unit_test(test_request_headers),
        cmocka_unit_test(test_kept_queues),
        cmocka_unit_test(test_dm_probe_and_50007),
        cmocka_unit_test(test_interactions),
        cmocka_unit_test(test_lobby_edited),
        cmocka_unit_test(test_drop_reactions),
        cmocka_unit_test(test_vote_and_game_over),
        cmocka_unit_test(test_stop_drains),
        cmocka_unit_test(test_controls_close),
        cmocka_unit_test(test_notices_and_replies),
        cmocka_unit_test(test_owner_moderates),
        cmocka_unit_test(test_channel_name),
        cmocka_unit_test(test_outbox_resend_posts_once),
        cmocka_unit_test(test_interaction_window),
        cmocka_unit_test(test_server_outlives_bare_connections),
        cmocka_unit_test(test_close_follows_edit_waiting_for_dm),
    };
    if (getenv("REST_ONLY")) /* one test by name, e.g. REST_ONLY=test_global_storm */
        cmocka_set_test_filter(getenv("REST_ONLY"));
    return cmocka_run_group_tests(tests, NULL, NULL);
}
