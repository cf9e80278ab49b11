/*
 * test_gateway.c - the adapter's gateway against the fake server: connect,
 * identify, heartbeats (and those the gateway asks for), zombies, op 7, op 9,
 * close codes, drops, bad payloads, stored sessions.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "adapters/discord/discord.h"
#include "adapters/discord/gateway.h"
#include "fdclient.h"
#include "harness.h"

static int want_inputs;
static bool enough_inputs(struct harness *h)
{
    return h_count_inputs(h) >= want_inputs;
}

static int want_resumes;
static bool resumed(struct harness *h)
{
    return h_gw(h, "resumes") >= want_resumes && h_gw(h, "ready") && h_ready(h);
}

static int want_identifies;
static bool identified(struct harness *h)
{
    return h_gw(h, "identifies") >= want_identifies && h_ready(h);
}

/* The stored session's sequence has reached want_seq. */
static long long want_seq;
static bool seq_stored(struct harness *h)
{
    const char *text =
        json_object_get_string(json_object_object_get(h->state, "discord.gateway.0"));
    struct json_object *session = text ? json_tokener_parse(text) : NULL;
    bool reached = json_object_get_int64(json_object_object_get(session, "seq")) >= want_seq;
    json_object_put(session);
    return reached;
}

/* The first message is posted and the adapter has its id from the answer
 * ("mid/<id>" stored): a reply to it is known for a reply to the bot. The
 * server records it before answering, so its record alone says too early. */
static bool lobby_posted(struct harness *h)
{
    struct json_object *s = h_snapshot(h);
    struct json_object *first = json_object_array_get_idx(json_object_object_get(s, "messages"), 0);
    const char *id = json_object_get_string(json_object_object_get(first, "id"));
    char key[96];
    snprintf(key, sizeof key, "mid/%s", id ? id : "");
    bool known = id && json_object_object_get_ex(h->state, key, NULL);
    json_object_put(s);
    return known;
}

static void inject(struct harness *h, int from, int n)
{
    char id[32], text[64];
    for (int i = from; i < from + n; i++) {
        snprintf(id, sizeof(id), "%d", 1000 + i);
        snprintf(text, sizeof(text), "!illegal status %d", i);
        h_message(h, id, "500", FD_GUILD_ID, "42", text);
    }
}

/* Every injected message arrived exactly once and in order. */
static void assert_inputs_exact(struct harness *h, int n)
{
    assert_int_equal(h_count_inputs(h), n);
    for (int i = 0; i < n; i++) {
        struct json_object *o = json_object_array_get_idx(h->inputs, (size_t)i);
        char text[64];
        snprintf(text, sizeof(text), "!illegal status %d", i);
        assert_string_equal(json_object_get_string(json_object_object_get(o, "text")), text);
    }
}

static bool beat_twice(struct harness *h)
{
    return h_gw(h, "heartbeats") >= 2;
}

static void test_connect_identify(void **state)
{
    (void)state;
    struct harness h;
    h_init(&h, 300, false); /* ask GET /gateway/bot */
    want_identifies = 1;
    assert_true(h_run_until(&h, identified, 5000));
    unsigned want = GW_INTENT_GUILDS | GW_INTENT_GUILD_MESSAGES |
                    GW_INTENT_GUILD_MESSAGE_REACTIONS | GW_INTENT_DIRECT_MESSAGES |
                    GW_INTENT_DIRECT_MESSAGE_REACTIONS | GW_INTENT_MESSAGE_CONTENT;
    assert_int_equal(want, 46593);
    assert_int_equal(h_gw(&h, "intents"), (int)want);
    assert_true(h_run_until(&h, beat_twice, 5000));
    struct json_object *s = h_snapshot(&h);
    const char *ua = json_object_get_string(
        json_object_object_get(json_object_object_get(s, "gateway"), "user_agent"));
    assert_non_null(strstr(ua, "DiscordBot ("));
    /* the URL from GET /gateway/bot has no path: the documented "/?v=10&encoding=json",
     * with "&compress=zlib-stream" when [discord] compression is on,
     * with the same User-Agent on the upgrade */
    struct json_object *g = json_object_object_get(s, "gateway");
    char path[128];
    gw_request_path("/", false, path, sizeof(path)); /* lws_parse_uri()'s path of "ws://host" */
    assert_string_equal(path, "/?v=10&encoding=json");
    gw_request_path("/", true, path, sizeof(path));
    assert_string_equal(path, "/?v=10&encoding=json&compress=zlib-stream");
    gw_request_path("gw/", true, path, sizeof(path));
    assert_string_equal(path, "/gw/?v=10&encoding=json&compress=zlib-stream");
    gw_request_path("?v=10&encoding=json", true, path, sizeof(path));
    assert_string_equal(path, "/?v=10&encoding=json");
    /* TLS is set up only for a gateway that needs it */
    assert_true(gw_url_tls("wss://gateway.discord.gg"));
    assert_true(gw_url_tls("WSS://gateway.discord.gg/?v=10"));
    assert_false(gw_url_tls("ws://127.0.0.1:3001"));
    assert_false(gw_url_tls("wss:/missing-slash"));
    assert_string_equal(json_object_get_string(json_object_object_get(g, "ws_path")), "/");
    /* the gateway compresses what it sends when asked: the seed chose (harness.c) */
    assert_int_equal(json_object_get_boolean(json_object_object_get(g, "compressed")),
                     h.cfg.discord_compression);
    assert_string_equal(json_object_get_string(json_object_object_get(g, "ws_user_agent")), ua);
    /* the slash commands, registered once (test_limits checks what) */
    assert_int_equal(json_object_array_length(json_object_object_get(s, "commands")), 1);
    json_object_put(s);
    /* a table command, a chat line (ignored) and a DM */
    h_message(&h, "2001", "500", FD_GUILD_ID, "42", "!illegal join");
    h_message(&h, "2002", "500", FD_GUILD_ID, "42", "hello all");
    h_message(&h, "2003", "600", NULL, "42", "hand");
    /* a second author in the same guild-less channel (a group DM): the
     * channel's user is replaced, the first one freed (LeakSanitizer checks) */
    h_message(&h, "2004", "600", NULL, "43", "hand");
    want_inputs = 3;
    assert_true(h_run_until(&h, enough_inputs, 3000));
    /* chat, skimmed and never parsed, still moves the stored sequence, here
     * past one digit (save_session writes it by hand) */
    long long chat = 0;
    for (int i = 0; i < 12; i++) {
        char id[16];
        snprintf(id, sizeof(id), "%d", 2005 + i);
        chat = h_message(&h, id, "500", FD_GUILD_ID, "42", "more chat");
    }
    assert_true(chat >= 12);
    want_seq = chat;
    assert_true(h_run_until(&h, seq_stored, 5000));
    struct json_object *session = json_tokener_parse(
        json_object_get_string(json_object_object_get(h.state, "discord.gateway.0")));
    assert_int_equal(json_object_get_int64(json_object_object_get(session, "seq")), chat);
    json_object_put(session);
    struct discord_stats st;
    discord_get_stats(h.p, &st);
    assert_int_equal(st.gw_skimmed, 1 + 12);
    assert_int_equal(h_count_inputs(&h), 3);
    struct json_object *a = json_object_array_get_idx(h.inputs, 0);
    struct json_object *b = json_object_array_get_idx(h.inputs, 1);
    assert_string_equal(json_object_get_string(json_object_object_get(a, "channel")), "500");
    assert_int_equal(json_object_get_int64(json_object_object_get(a, "order")), 2001);
    assert_null(json_object_object_get(b, "channel"));
    assert_string_equal(json_object_get_string(json_object_object_get(b, "text")), "hand");
    h_fini(&h);
}

/* [discord] compression both ways on one test server, whatever the seed
 * chose: off asks for no compression and reads text messages, on asks for
 * zlib-stream and inflates the stream; either way commands arrive whole. */
static void test_compression_settings(void **state)
{
    (void)state;
    struct harness h;
    h_init(&h, 300, true);
    for (int on = 0; on < 2; on++) {
        h_stop_adapter(&h);
        h.cfg.discord_compression = on;
        h_start_adapter(&h);
        assert_true(h_run_until(&h, h_ready, 5000));
        struct json_object *s = h_snapshot(&h);
        struct json_object *g = json_object_object_get(s, "gateway");
        const char *args = json_object_get_string(json_object_object_get(g, "ws_args"));
        assert_int_equal(strstr(args, "compress=zlib-stream") != NULL, on);
        assert_int_equal(json_object_get_boolean(json_object_object_get(g, "compressed")), on);
        json_object_put(s);
        inject(&h, 10 * on, 10);
        want_inputs = 10 * (on + 1);
        assert_true(h_run_until(&h, enough_inputs, 5000));
    }
    assert_inputs_exact(&h, 20);
    h_fini(&h);
}

static void test_zombie_resume(void **state)
{
    (void)state;
    struct harness h;
    h_init(&h, 200, true);
    want_identifies = 1;
    assert_true(h_run_until(&h, identified, 5000));
    inject(&h, 0, 3);
    want_inputs = 3;
    assert_true(h_run_until(&h, enough_inputs, 3000));
    fd_withhold_acks(h.srv, true);
    inject(&h, 3, 3);
    h_run_for(&h, 700); /* at least two beats without an ACK */
    fd_withhold_acks(h.srv, false);
    inject(&h, 6, 3);
    want_resumes = 1;
    assert_true(h_run_until(&h, resumed, 8000));
    want_inputs = 9;
    assert_true(h_run_until(&h, enough_inputs, 3000));
    h_run_for(&h, 200);
    assert_inputs_exact(&h, 9);
    struct discord_stats st;
    discord_get_stats(h.p, &st);
    assert_true(st.gw_zombies >= 1);
    assert_int_equal(h_gw(&h, "identifies"), 1);
    /* the server saw a close code that keeps the session resumable */
    int code = h_gw(&h, "client_close");
    assert_true(code >= 4000 && code != 1000 && code != 1001);
    h_fini(&h);
}

static int want_answered;
static bool ask_answered(struct harness *h)
{
    return h_gw(h, "asks_answered") >= want_answered;
}

/* Op 1 from the gateway asks for a heartbeat at once: with an interval of an
 * hour (the bot's first beat at a random part of it all but never falls in
 * the test), only the answer to the ask makes one come. */
static void test_heartbeat_asked(void **state)
{
    (void)state;
    struct harness h;
    h_init(&h, 3600000, true);
    want_identifies = 1;
    assert_true(h_run_until(&h, identified, 5000));
    for (int i = 0; i < 3; i++) {
        want_answered = h_gw(&h, "asks_answered") + 1;
        fd_ask_heartbeat(h.srv);
        assert_true(h_run_until(&h, ask_answered, 10000));
    }
    /* the session goes on, the same */
    inject(&h, 0, 3);
    want_inputs = 3;
    assert_true(h_run_until(&h, enough_inputs, 5000));
    assert_inputs_exact(&h, 3);
    assert_int_equal(h_gw(&h, "identifies"), 1);
    assert_int_equal(h_gw(&h, "connects"), 1);
    h_fini(&h);
}

static void test_drops_during_game(void **state)
{
    (void)state;
    struct harness h;
    h_init(&h, 1000, true);
    want_identifies = 1;
    assert_true(h_run_until(&h, identified, 5000));
    int n = 0;
    srand(7);
    for (int round = 0; round < 20; round++) {
        int k = 1 + rand() % 3;
        inject(&h, n, k);
        n += k;
        h_run_for(&h, (unsigned)(rand() % 30));
        fd_drop(h.srv);
        int k2 = rand() % 3;
        inject(&h, n, k2); /* while the connection is down: replayed on resume */
        n += k2;
        want_resumes = round + 1;
        assert_true(h_run_until(&h, resumed, 8000));
    }
    want_inputs = n;
    assert_true(h_run_until(&h, enough_inputs, 5000));
    h_run_for(&h, 200);
    assert_inputs_exact(&h, n);
    assert_int_equal(h_gw(&h, "identifies"), 1);
    h_fini(&h);
}

static void test_op7_reconnect(void **state)
{
    (void)state;
    struct harness h;
    h_init(&h, 1000, true);
    want_identifies = 1;
    assert_true(h_run_until(&h, identified, 5000));
    inject(&h, 0, 2);
    fd_reconnect(h.srv);
    inject(&h, 2, 2);
    want_resumes = 1;
    assert_true(h_run_until(&h, resumed, 5000));
    want_inputs = 4;
    assert_true(h_run_until(&h, enough_inputs, 3000));
    h_run_for(&h, 100);
    assert_inputs_exact(&h, 4);
    assert_int_equal(h_gw(&h, "identifies"), 1);
    h_fini(&h);
}

static void test_op9_resumable(void **state)
{
    (void)state;
    struct harness h;
    h_init(&h, 1000, true);
    want_identifies = 1;
    assert_true(h_run_until(&h, identified, 5000));
    fd_invalid_session(h.srv, true);
    want_resumes = 1;
    assert_true(h_run_until(&h, resumed, 5000));
    assert_int_equal(h_gw(&h, "identifies"), 1);
    h_fini(&h);
}

static void test_op9_not_resumable(void **state)
{
    (void)state;
    struct harness h;
    h_init(&h, 1000, true);
    want_identifies = 1;
    assert_true(h_run_until(&h, identified, 5000));
    fd_invalid_session(h.srv, false);
    h_run_for(&h, 500);
    assert_int_equal(h_gw(&h, "identifies"), 1); /* waits 1-5 s first */
    want_identifies = 2;
    assert_true(h_run_until(&h, identified, 12000));
    assert_int_equal(h_gw(&h, "resumes"), 0);
    h_fini(&h);
}

static bool closed_for_good(struct harness *h)
{
    struct discord_stats st;
    discord_get_stats(h->p, &st);
    return st.gw_fatal_code != 0;
}

static void test_fatal_close_codes(void **state)
{
    (void)state;
    /* 4014 too when the bot insists on the Message Content intent */
    static const int codes[] = {4004, 4010, 4011, 4012, 4013, 4014};
    for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
        struct harness h;
        h_init_intents(&h, 1000, true, FD_INTENT_MESSAGE_CONTENT, "on");
        want_identifies = 1;
        assert_true(h_run_until(&h, identified, 5000));
        assert_true(h.p->ops->connected(h.p)); /* what /readyz reports */
        fd_close(h.srv, codes[i]);
        assert_true(h_run_until(&h, closed_for_good, 5000));
        assert_false(h.p->ops->connected(h.p));
        h_run_for(&h, 200); /* and no new connection follows */
        struct discord_stats st;
        discord_get_stats(h.p, &st);
        assert_int_equal(st.gw_fatal_code, codes[i]);
        assert_int_equal(h_gw(&h, "connects"), 1);
        h_fini(&h);
    }
    /* a non-fatal code reconnects and resumes */
    struct harness h;
    h_init(&h, 1000, true);
    want_identifies = 1;
    assert_true(h_run_until(&h, identified, 5000));
    fd_close(h.srv, 4000);
    want_resumes = 1;
    assert_true(h_run_until(&h, resumed, 5000));
    h_fini(&h);
}

static void test_bad_payloads(void **state)
{
    (void)state;
    struct harness h;
    h_init(&h, 1000, true);
    want_identifies = 1;
    assert_true(h_run_until(&h, identified, 5000));
    fd_send_raw(h.srv, "{{{ not json");
    fd_send_raw(h.srv, "[1,2,3]");
    fd_send_raw(h.srv, "{\"op\":\"zero\"}");
    fd_send_raw(h.srv, "{\"op\":0,\"t\":\"MESSAGE_CREATE\",\"s\":null,\"d\":{\"content\":5}}");
    inject(&h, 0, 2);
    want_inputs = 2;
    assert_true(h_run_until(&h, enough_inputs, 3000));
    assert_int_equal(h_gw(&h, "connects"), 1);
    /* larger than the client takes: it closes (not 1000/1001) and resumes */
    fd_send_oversized(h.srv, GW_MAX_RECV + 1024);
    inject(&h, 2, 2);
    want_resumes = 1;
    assert_true(h_run_until(&h, resumed, 8000));
    want_inputs = 4;
    assert_true(h_run_until(&h, enough_inputs, 3000));
    h_run_for(&h, 100);
    assert_inputs_exact(&h, 4);
    h_fini(&h);
}

static void test_stored_session(void **state)
{
    (void)state;
    struct harness h;
    h_init(&h, 1000, true);
    want_identifies = 1;
    assert_true(h_run_until(&h, identified, 5000));
    inject(&h, 0, 2);
    want_inputs = 2;
    assert_true(h_run_until(&h, enough_inputs, 3000));
    h_stop_adapter(&h);
    inject(&h, 2, 2); /* while the daemon is down */
    h_start_adapter(&h);
    want_resumes = 1;
    assert_true(h_run_until(&h, resumed, 5000));
    want_inputs = 4;
    assert_true(h_run_until(&h, enough_inputs, 3000));
    h_run_for(&h, 100);
    assert_inputs_exact(&h, 4);
    assert_int_equal(h_gw(&h, "identifies"), 1);
    h_fini(&h);
}

static bool refused_then_ready(struct harness *h)
{
    return h_gw(h, "refused_intents") >= 1 && h_gw(h, "identifies") >= 2 && h_ready(h);
}

/* The last input's text, or "" when none. */
static const char *last_text(struct harness *h)
{
    size_t n = json_object_array_length(h->inputs);
    struct json_object *o = n ? json_object_array_get_idx(h->inputs, n - 1) : NULL;
    const char *t = json_object_get_string(json_object_object_get(o, "text"));
    return t ? t : "";
}

/*
 * [discord] message_content = auto on an application whose Message Content
 * intent is off in the Developer Portal: Discord closes the first session
 * with 4014, and the adapter identifies again without the intent, says so
 * once, and reads what Discord still gives: DMs, lines that start with its
 * mention, replies that ping it. Typed "!illegal" lines come empty and are
 * chat. The prefix the bot words its texts with is the mention.
 */
static void test_content_intent_refused(void **state)
{
    (void)state;
    struct harness h;
    h_init_intents(&h, 1000, true, 0, NULL);
    assert_true(h_run_until(&h, refused_then_ready, 8000));
    unsigned without = GW_INTENT_GUILDS | GW_INTENT_GUILD_MESSAGES |
                       GW_INTENT_GUILD_MESSAGE_REACTIONS | GW_INTENT_DIRECT_MESSAGES |
                       GW_INTENT_DIRECT_MESSAGE_REACTIONS;
    assert_int_equal(h_gw(&h, "intents"), (int)without);
    char prefix[PLATFORM_PREFIX_MAX];
    h.p->ops->command_prefix(h.p, prefix, sizeof prefix);
    assert_string_equal(prefix, "<@" FD_BOT_ID ">");
    fdc_message(h.srv, "3101", FD_GUILD_ID, "500", "42", "!illegal join");
    fdc_message(h.srv, "3102", FD_GUILD_ID, "500", "42", "<@" FD_BOT_ID "> join");
    want_inputs = 1;
    assert_true(h_run_until(&h, enough_inputs, 3000));
    assert_string_equal(last_text(&h), "!illegal join");
    fdc_message(h.srv, "3103", FD_GUILD_ID, "500", "42", "<@!" FD_BOT_ID ">   offer bob 1 guns");
    fdc_message(h.srv, "3104", FD_GUILD_ID, "500", "42", "<@" FD_BOT_ID ">");
    fdc_message(h.srv, "3105", NULL, "600", "42", "hand");
    want_inputs = 4;
    assert_true(h_run_until(&h, enough_inputs, 3000));
    assert_string_equal(json_object_get_string(
                            json_object_object_get(json_object_array_get_idx(h.inputs, 1), "text")),
                        "!illegal offer bob 1 guns");
    assert_string_equal(json_object_get_string(
                            json_object_object_get(json_object_array_get_idx(h.inputs, 2), "text")),
                        "!illegal help");
    assert_string_equal(last_text(&h), "hand");
    /* a reply to one of the bot's messages: read when it pings the bot and
     * starts with a command word; chat in reply, or a reply that does not
     * ping (Discord gives no text for it), is nothing */
    struct outbound lobby = {
        .kind = OUT_NOTICE, .channel = "500", .key = "g1/lobby", .replace = true, .text = "Lobby"};
    assert_int_equal(h.p->ops->send(h.p, &lobby), 0);
    assert_true(h_run_until(&h, lobby_posted, 5000));
    struct json_object *snap = h_snapshot(&h);
    const char *lobby_id = json_object_get_string(json_object_object_get(
        json_object_array_get_idx(json_object_object_get(snap, "messages"), 0), "id"));
    char id[32];
    snprintf(id, sizeof id, "%s", lobby_id);
    json_object_put(snap);
    fdc_reply(h.srv, "3106", FD_GUILD_ID, "500", "43", "nice lobby", id, true);
    fdc_reply(h.srv, "3107", FD_GUILD_ID, "500", "43", "join", id, false);
    fdc_reply(h.srv, "3108", FD_GUILD_ID, "500", "43", "join", id, true);
    want_inputs = 5;
    assert_true(h_run_until(&h, enough_inputs, 3000));
    h_run_for(&h, 200);
    assert_int_equal(h_count_inputs(&h), 5);
    assert_string_equal(last_text(&h), "!illegal join");
    snap = h_snapshot(&h);
    assert_true(json_object_get_int(json_object_object_get(snap, "stripped")) >= 2);
    json_object_put(snap);
    assert_int_equal(h_gw(&h, "refused_intents"), 1);
    h_fini(&h);

    /* off: never asked, never refused */
    h_init_intents(&h, 1000, true, 0, "off");
    want_identifies = 1;
    assert_true(h_run_until(&h, identified, 5000));
    assert_int_equal(h_gw(&h, "intents"), (int)without);
    assert_int_equal(h_gw(&h, "refused_intents"), 0);
    h_fini(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_connect_identify),  cmocka_unit_test(test_compression_settings),
        cmocka_unit_test(test_zombie_resume),     cmocka_unit_test(test_heartbeat_asked),
        cmocka_unit_test(test_drops_during_game), cmocka_unit_test(test_op7_reconnect),
        cmocka_unit_test(test_op9_resumable),     cmocka_unit_test(test_op9_not_resumable),
        cmocka_unit_test(test_fatal_close_codes), cmocka_unit_test(test_bad_payloads),
        cmocka_unit_test(test_stored_session),    cmocka_unit_test(test_content_intent_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
