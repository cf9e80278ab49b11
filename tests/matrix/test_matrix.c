/*
 * test_matrix.c - the Matrix adapter against the test homeserver, over
 * loopback sockets: session, sync, DM rooms, sending, reactions, polls and
 * every error path the issue lists.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "adapters/matrix/client.h"
#include "adapters/matrix/matrix.h"
#include "adapters/matrix/mx.h"
#include "bot/log.h"
#include "core/catalog.h"
#include "harness.h"

#define ALICE "@alice:test.local"
#define BOB   "@bob:test.local"
#define CAROL "@carol:friends.org"

struct fx {
    struct hs *hs;
    struct th t;
    char *room;
    struct hs_player *alice, *bob; /* their clients read what the bot sends them */
};

static int setup(void **state)
{
    struct fx *f = calloc(1, sizeof(*f));
    f->hs = hs_new();
    assert_true(hs_start(f->hs) > 0);
    /* Rooms are encrypted by the seed's default, as on real servers: the players read through
     * clients that decrypt. */
    f->alice = hs_player_new(f->hs, ALICE);
    f->bob = hs_player_new(f->hs, BOB);
    th_init(&f->t, f->hs);
    th_add_reader(&f->t, f->alice);
    th_add_reader(&f->t, f->bob);
    /* A table: alice created it (power 100), bob is a member, the bot was invited. */
    f->room = hs_create_room_as(f->hs, ALICE, "private_chat");
    hs_join(f->hs, f->room, BOB);
    hs_invite_bot(f->hs, f->room, ALICE);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fx *f = *state;
    /* Whatever a test did, the bot sent nothing in clear into a room it knew was encrypted. */
    int rc = th_check_no_clear_sends(&f->t);
    th_free(&f->t);
    hs_player_free(f->alice);
    hs_player_free(f->bob);
    hs_free(f->hs);
    free(f->room);
    free(f);
    return rc;
}

static const char *jstr(struct json_object *o, const char *k)
{
    struct json_object *v = jget(o, k);
    return v ? json_object_get_string(v) : NULL;
}

/* The bot's events of a type, index i (negative: from the end). Borrowed from *keep. */
static struct json_object *bot_event(struct fx *f, const char *type, int i,
                                     struct json_object **keep)
{
    *keep = th_bot_events(&f->t, type);
    int n = (int)json_object_array_length(*keep);
    if (i < 0)
        i += n;
    return i >= 0 && i < n ? json_object_array_get_idx(*keep, (size_t)i) : NULL;
}

static char *last_message_room(struct fx *f);

static void start_ready(struct fx *f)
{
    assert_int_equal(th_start(&f->t), 0);
    assert_true(th_wait_ready(&f->t, 5000));
    /* The invite was accepted. */
    assert_true(hs_count(f->hs, "/join") >= 1);
}

/* ---- session and sync ---- */

static void test_first_start_skips_history(void **state)
{
    struct fx *f = *state;
    free(hs_say(f->hs, f->room, ALICE, "!illegal new"));
    start_ready(f);
    assert_true(f->t.p->ops->connected(f->t.p)); /* what /readyz reports */
    /* The filter asks for the game's event types and lazy-loads members. */
    char *filter = hs_last_body(f->hs, "/filter");
    assert_non_null(filter);
    assert_non_null(strstr(filter, "\"lazy_load_members\":true"));
    assert_non_null(strstr(filter, "m.reaction"));
    assert_non_null(strstr(filter, "org.matrix.msc3381.poll.response"));
    free(filter);
    hs_set_displayname(f->hs, f->room, BOB, "Bob");
    free(hs_say(f->hs, f->room, BOB, "!illegal join"));
    free(hs_say(f->hs, f->room, ALICE, "!illegal start"));
    assert_true(th_wait_inbox(&f->t, 2, 5000));
    th_run_for(&f->t, 200);
    assert_int_equal(json_object_array_length(f->t.inbox), 2);
    assert_string_equal(th_in_str(&f->t, 0, "text"), "!illegal join");
    assert_string_equal(th_in_str(&f->t, 0, "channel"), f->room);
    assert_string_equal(th_in_str(&f->t, 0, "user"), BOB);
    assert_string_equal(th_in_str(&f->t, 0, "name"), "Bob");
    assert_string_equal(th_in_str(&f->t, 0, "moderator"), "false");
    assert_string_equal(th_in_str(&f->t, 1, "moderator"), "true");
    /* The server's order is kept. */
    assert_true(json_object_get_int64(jget(json_object_array_get_idx(f->t.inbox, 0), "order")) <
                json_object_get_int64(jget(json_object_array_get_idx(f->t.inbox, 1), "order")));
}

static void test_moderator_power_level(void **state)
{
    struct fx *f = *state;
    start_ready(f);
    hs_set_power(f->hs, f->room, BOB, 50);
    free(hs_say(f->hs, f->room, BOB, "!illegal kick alice"));
    assert_true(th_wait_inbox(&f->t, 1, 5000));
    assert_string_equal(th_in_str(&f->t, 0, "moderator"), "true");
    hs_set_power(f->hs, f->room, BOB, 49);
    free(hs_say(f->hs, f->room, BOB, "!illegal kick alice"));
    assert_true(th_wait_inbox(&f->t, 2, 5000));
    assert_string_equal(th_in_str(&f->t, 1, "moderator"), "false");
}

static void test_restart_resumes_without_replay(void **state)
{
    struct fx *f = *state;
    start_ready(f);
    free(hs_say(f->hs, f->room, ALICE, "one"));
    assert_true(th_wait_inbox(&f->t, 1, 5000));
    th_stop(&f->t);
    free(hs_say(f->hs, f->room, ALICE, "two"));
    assert_int_equal(th_start(&f->t), 0);
    assert_true(th_wait_inbox(&f->t, 2, 5000));
    th_run_for(&f->t, 300);
    assert_int_equal(json_object_array_length(f->t.inbox), 2);
    assert_string_equal(th_in_str(&f->t, 1, "text"), "two");
}

static void test_inflight_ids_skip_handled_events(void **state)
{
    struct fx *f = *state;
    start_ready(f);
    th_stop(&f->t);
    char *first = hs_say(f->hs, f->room, ALICE, "first");
    free(hs_say(f->hs, f->room, ALICE, "second"));
    /* The store as a crash right after delivering "first" leaves it. */
    char inflight[128];
    snprintf(inflight, sizeof(inflight), "[\"%s\"]", first);
    json_object_object_add(f->t.state, "inflight", json_object_new_string(inflight));
    free(first);
    assert_int_equal(th_start(&f->t), 0);
    assert_true(th_wait_inbox(&f->t, 1, 5000));
    th_run_for(&f->t, 300);
    assert_int_equal(json_object_array_length(f->t.inbox), 1);
    assert_string_equal(th_in_str(&f->t, 0, "text"), "second");
}

/* The bot read "m0" to "m<n-1>", in that order. */
static void expect_m_read(struct fx *f, int n)
{
    assert_true(th_wait_inbox(&f->t, (size_t)n, 5000));
    for (int i = 0; i < n; i++) {
        char text[16];
        snprintf(text, sizeof(text), "m%d", i);
        assert_string_equal(th_in_str(&f->t, (size_t)i, "text"), text);
    }
}

static void test_limited_timeline_gap_is_filled(void **state)
{
    struct fx *f = *state;
    start_ready(f);
    th_stop(&f->t);
    hs_set_max_timeline(f->hs, 3);
    for (int i = 0; i < 8; i++) {
        char text[16];
        snprintf(text, sizeof(text), "m%d", i);
        free(hs_say(f->hs, f->room, ALICE, text));
    }
    assert_int_equal(th_start(&f->t), 0);
    expect_m_read(f, 8);
    assert_true(hs_count(f->hs, "/messages") >= 1);
}

/* A /messages page may come back empty with an `end` (events the filter drops counted against
 * it, as Synapse does): the gap is read on until a page has no `end`. */
static void test_gap_filled_past_empty_pages(void **state)
{
    struct fx *f = *state;
    start_ready(f);
    th_stop(&f->t);
    hs_set_max_timeline(f->hs, 3);
    hs_set_messages_page(f->hs, 2);
    for (int i = 0; i < 8; i++) {
        char text[16];
        snprintf(text, sizeof(text), "m%d", i);
        free(hs_say(f->hs, f->room, ALICE, text));
        /* events of a type the bot does not ask for: two of them make a page of none */
        for (int j = 0; i == 1 && j < 4; j++)
            free(hs_send(f->hs, f->room, ALICE, "org.example.note", "{}"));
    }
    assert_int_equal(th_start(&f->t), 0);
    expect_m_read(f, 8);
}

static void test_dropped_and_malformed_sync(void **state)
{
    struct fx *f = *state;
    start_ready(f);
    hs_fault(f->hs, "GET /_matrix/client/v3/sync", 0, NULL, NULL, 1);
    hs_fault(f->hs, "GET /_matrix/client/v3/sync", 200, "{\"rooms\":", NULL, 1);
    hs_fault(f->hs, "GET /_matrix/client/v3/sync", 200, "{\"rooms\":{}}", NULL, 1);
    hs_fault(f->hs, "GET /_matrix/client/v3/sync", 502, "<html>bad gateway</html>", NULL, 1);
    /* The parked sync answers with the message, the next ones fail in four ways. */
    free(hs_say(f->hs, f->room, ALICE, "before"));
    assert_true(th_wait_inbox(&f->t, 1, 5000));
    free(hs_say(f->hs, f->room, ALICE, "after"));
    assert_true(th_wait_inbox(&f->t, 2, 15000));
    th_run_for(&f->t, 300);
    assert_int_equal(json_object_array_length(f->t.inbox), 2);
    assert_string_equal(th_in_str(&f->t, 0, "text"), "before");
    assert_string_equal(th_in_str(&f->t, 1, "text"), "after");
}

static void test_unknown_token(void **state)
{
    struct fx *f = *state;
    hs_revoke_tokens(f->hs, true);
    assert_int_equal(th_start(&f->t), -1);
}

static void test_password_login_with_device_id(void **state)
{
    struct fx *f = *state;
    hs_revoke_tokens(f->hs, false);
    f->t.cfg.matrix_access_token = NULL;
    f->t.cfg.matrix_password = HS_BOT_PASSWORD;
    f->t.cfg.matrix_device_id = "ILLEGALD1";
    start_ready(f);
    char *body = hs_last_body(f->hs, "POST /_matrix/client/v3/login");
    assert_non_null(body);
    assert_non_null(strstr(body, "\"device_id\":\"ILLEGALD1\""));
    assert_non_null(strstr(body, "m.login.password"));
    free(body);
    assert_true(hs_count(f->hs, "/account/whoami") >= 1);
    assert_int_equal(hs_count(f->hs, "POST /_matrix/client/v3/login"), 1);
    /* A restart reuses the stored session: no new login, so no new token (transaction ids are
     * scoped to a token) and no new device. */
    th_stop(&f->t);
    start_ready(f);
    assert_int_equal(hs_count(f->hs, "POST /_matrix/client/v3/login"), 1);
    /* A token the server rejects while syncing is replaced by one new login, same device. */
    hs_revoke_tokens(f->hs, false);
    free(hs_say(f->hs, f->room, ALICE, "after the revocation"));
    assert_true(th_wait_inbox(&f->t, 1, 8000));
    assert_string_equal(th_in_str(&f->t, 0, "text"), "after the revocation");
    assert_int_equal(hs_count(f->hs, "POST /_matrix/client/v3/login"), 2);
    body = hs_last_body(f->hs, "POST /_matrix/client/v3/login");
    assert_non_null(strstr(body, "\"device_id\":\"ILLEGALD1\""));
    free(body);
    /* A wrong password, once the stored session is rejected, is a clear start-up failure. */
    th_stop(&f->t);
    hs_revoke_tokens(f->hs, false);
    f->t.cfg.matrix_password = "wrong";
    assert_int_equal(th_start(&f->t), -1);
}

/* A homeserver that does not answer at start is waited for, with a token or a password. */
static void test_unreachable_at_start_is_retried(void **state)
{
    struct fx *f = *state;
    f->t.cfg.matrix_access_token = NULL;
    f->t.cfg.matrix_password = HS_BOT_PASSWORD;
    f->t.cfg.matrix_device_id = "ILLEGALD1";
    hs_fault(f->hs, "/login", 0, NULL, NULL, 3);
    assert_int_equal(th_start(&f->t), 0);
    assert_true(th_wait_ready(&f->t, 10000));
    assert_int_equal(hs_count(f->hs, "POST /_matrix/client/v3/login"), 4);
    th_stop(&f->t);
    /* With the stored session (or a token) it is whoami that waits. */
    hs_fault(f->hs, "/whoami", 0, NULL, NULL, 3);
    assert_int_equal(th_start(&f->t), 0);
    assert_true(th_wait_ready(&f->t, 10000));
    assert_int_equal(hs_count(f->hs, "POST /_matrix/client/v3/login"), 4);
}

/* ---- rooms ---- */

static void test_invite_allow(void **state)
{
    struct fx *f = *state;
    f->t.cfg.matrix_invite_allow = "@alice:test.local, friends.org";
    start_ready(f);
    char *evil = hs_create_room(f->hs, "@mallory:evil.example", false);
    char *friendly = hs_create_room(f->hs, CAROL, false);
    hs_invite_bot(f->hs, evil, "@mallory:evil.example");
    hs_invite_bot(f->hs, friendly, CAROL);
    th_run_for(&f->t, 600);
    assert_int_equal(hs_count(f->hs, "/leave"), 1);
    assert_int_equal(hs_count(f->hs, "/join"), 2);
    free(hs_say(f->hs, friendly, CAROL, "!illegal new"));
    assert_true(th_wait_inbox(&f->t, 1, 5000));
    assert_string_equal(th_in_str(&f->t, 0, "channel"), friendly);
    free(evil);
    free(friendly);
}

/* Fed one /sync body naming f->room with a member summary (and state events, if any); with
 * left, alice leaves in its timeline. */
static void feed_summary(struct fx *f, int joined, int invited, const char *state_json, bool left)
{
    static int batch;
    char body[1536];
    snprintf(body, sizeof body,
             "{\"next_batch\":\"x%d\",\"rooms\":{\"join\":{\"%s\":{\"summary\":{"
             "\"m.joined_member_count\":%d,\"m.invited_member_count\":%d},"
             "\"state\":{\"events\":%s},\"timeline\":{\"events\":[%s]}}}}}",
             ++batch, f->room, joined, invited, state_json ? state_json : "[]",
             left ? "{\"type\":\"m.room.member\",\"state_key\":\"" ALICE "\",\"sender\":\"" ALICE
                    "\",\"event_id\":\"$left\",\"content\":{\"membership\":\"leave\"}}"
                  : "");
    assert_int_equal(matrix_feed_sync(f->t.p, body, strlen(body)), 0);
    th_run_for(&f->t, 100);
}

/* A room everybody else left, where no game runs, is left; a table with a game is kept, also
 * across a restart, until its game ends; a room that only looks empty (the bot's new room,
 * before its invites) is kept. */
static void test_leaves_rooms_left_alone(void **state)
{
    struct fx *f = *state;
    char err[200];
    hs_join(f->hs, f->room, HS_BOT);
    f->t.p = matrix_platform_new(&f->t.cfg, &f->t.host, err, sizeof err);
    assert_non_null(f->t.p);
    feed_summary(f, 1, 0,
                 "[{\"type\":\"m.room.member\",\"state_key\":\"" HS_BOT "\",\"sender\":\"" HS_BOT
                 "\",\"content\":{\"membership\":\"join\"}}]",
                 false);
    assert_int_equal(hs_count(f->hs, "/leave"), 0); /* nobody left: it only looks empty */
    feed_summary(f, 2, 0, NULL, false);
    struct game_news news = {
        .stage = GAME_OPENED, .game = "g1", .table = f->room, .phase = "lobby"};
    f->t.p->ops->game_changed(f->t.p, &news);
    feed_summary(f, 1, 0, NULL, true);
    assert_int_equal(hs_count(f->hs, "/leave"), 0);
    th_stop(&f->t);
    f->t.p = matrix_platform_new(&f->t.cfg, &f->t.host, err, sizeof err);
    feed_summary(f, 1, 0, NULL, true);
    assert_int_equal(hs_count(f->hs, "/leave"), 0);
    news.stage = GAME_ENDED;
    f->t.p->ops->game_changed(f->t.p, &news);
    feed_summary(f, 1, 0, NULL, true);
    assert_int_equal(hs_count(f->hs, "/leave"), 1);
}

/* Tables are named by their alias, else their name and a link, else a link; never a bare id. */
static void test_channel_names(void **state)
{
    struct fx *f = *state;
    char err[200], out[512];
    f->t.p = matrix_platform_new(&f->t.cfg, &f->t.host, err, sizeof err);
    assert_non_null(f->t.p);
    feed_summary(f, 2, 0,
                 "[{\"type\":\"m.room.name\",\"state_key\":\"\",\"sender\":\"" ALICE
                 "\",\"content\":{\"name\":\"Friday table\"}}]",
                 false);
    f->t.p->ops->channel_name(f->t.p, f->room, out, sizeof out);
    char want[256];
    snprintf(want, sizeof want, "Friday table (https://matrix.to/#/%s)", f->room);
    assert_string_equal(out, want);
    feed_summary(f, 2, 0,
                 "[{\"type\":\"m.room.canonical_alias\",\"state_key\":\"\",\"sender\":\"" ALICE
                 "\",\"content\":{\"alias\":\"#friday:test.local\"}}]",
                 false);
    f->t.p->ops->channel_name(f->t.p, f->room, out, sizeof out);
    assert_string_equal(out, "#friday:test.local");
    f->t.p->ops->channel_name(f->t.p, "!unknown:test.local", out, sizeof out);
    assert_string_equal(out, "https://matrix.to/#/!unknown:test.local");
}

/* The token is gone: the next start logs in again (with the password), as another device (a new
 * scope for transaction ids). */
static void next_start_logs_in(struct fx *f)
{
    hs_revoke_tokens(f->hs, false);
    f->t.cfg.matrix_access_token = NULL;
    f->t.cfg.matrix_device_id = "NEWDEVICE";
    json_object_object_del(f->t.state, "auth");
}

/* A message sent, whose answer was lost, and then a new login (a new access token: transaction
 * ids are scoped to a token) before it is sent again: it is found in the room, not posted twice. */
static void test_no_double_post_after_new_login(void **state)
{
    struct fx *f = *state;
    f->t.cfg.matrix_password = HS_BOT_PASSWORD;
    start_ready(f);
    hs_fault(f->hs, "send/m.room.message", -2, NULL, NULL, 1); /* handled, never answered */
    th_send(&f->t, OUT_NOTICE, f->room, NULL, NULL, false, "only once", NULL);
    assert_true(th_wait_bot_events(&f->t, "m.room.message", 1, 5000));
    th_stop(&f->t);
    next_start_logs_in(f);
    assert_int_equal(th_start(&f->t), 0);
    assert_true(th_wait_ready(&f->t, 5000));
    for (int i = 0; i < 30 && hs_count(f->hs, "/messages") == 0; i++)
        th_run_for(&f->t, 100);
    th_run_for(&f->t, 500);
    struct json_object *all = th_bot_events(&f->t, "m.room.message");
    assert_int_equal(json_object_array_length(all), 1);
    json_object_put(all);
    /* and what follows goes out as usual */
    th_send(&f->t, OUT_NOTICE, f->room, NULL, NULL, false, "next", NULL);
    assert_true(th_wait_bot_events(&f->t, "m.room.message", 2, 5000));
}

/* By default the bot takes invites from users of its own server, its players (a direct room) and
 * moderators, at most 3 rooms a user; a stranger's flood of invites is declined (at most 50 a
 * batch) and never joined. */
static void test_invites_bounded(void **state)
{
    struct fx *f = *state;
    start_ready(f);
    const char *stranger = "@spam:elsewhere.example";
    for (int i = 0; i < 60; i++) {
        char *r = hs_create_room(f->hs, stranger, false);
        hs_invite_bot(f->hs, r, stranger);
        free(r);
    }
    char *rooms[5];
    for (int i = 0; i < 5; i++) {
        rooms[i] = hs_create_room(f->hs, ALICE, false);
        hs_invite_bot(f->hs, rooms[i], ALICE);
    }
    /* a player of another server: their direct chat is taken, and then their invites too */
    const char *guest = "@guest:elsewhere.example";
    char *dm = hs_create_room(f->hs, guest, false);
    hs_invite_bot_direct(f->hs, dm, guest);
    th_run_for(&f->t, 1500);
    char *table = hs_create_room(f->hs, guest, false);
    hs_invite_bot(f->hs, table, guest);
    th_run_for(&f->t, 1500);
    /* alice's: the setup's room and two more; the guest's direct chat and table */
    assert_int_equal(hs_count(f->hs, "/join"), 1 + 2 + 2);
    assert_true(hs_count(f->hs, "/leave") >= 50); /* all, or the first 50 of a batch */
    free(hs_say(f->hs, table, guest, "!illegal new"));
    assert_true(th_wait_inbox(&f->t, 1, 5000));
    assert_string_equal(th_in_str(&f->t, 0, "channel"), table);
    for (int i = 0; i < 5; i++)
        free(rooms[i]);
    free(dm);
    free(table);
}

/* An encrypted event whose key never came: the bot asks every device of its sender for the
 * key, and after a while tells the room it could not read a message (once). */
static void test_encrypted_room_notice(void **state)
{
    struct fx *f = *state;
    char *secret = hs_create_room(f->hs, ALICE, true);
    hs_invite_bot(f->hs, secret, ALICE);
    hs_fault(f->hs, "sendToDevice", 200, "{}", NULL, 100);
    start_ready(f);
    mx_e2e_set_wait((struct mx *)f->t.p, 200, 50);
    th_run_for(&f->t, 300);
    free(hs_send(f->hs, secret, ALICE, "m.room.encrypted",
                 "{\"algorithm\":\"m.megolm.v1.aes-sha2\",\"ciphertext\":\"AwgAEn\","
                 "\"sender_key\":\"x\",\"device_id\":\"D\",\"session_id\":\"s\"}"));
    /* the notice goes encrypted too, like everything the bot says in an encrypted room (the
     * crypto tests decrypt it) */
    assert_true(th_wait_bot_events(&f->t, "m.room.encrypted", 1, 5000));
    char *req = hs_last_body(f->hs, "sendToDevice/m.room_key_request");
    assert_non_null(req);
    struct json_object *rq = json_tokener_parse(req);
    struct json_object *c = jget(jget(jget(rq, "messages"), ALICE), "*");
    assert_string_equal(jstr(c, "action"), "request");
    assert_string_equal(jstr(jget(c, "body"), "session_id"), "s");
    assert_string_equal(jstr(jget(c, "body"), "room_id"), secret);
    json_object_put(rq);
    free(req);
    struct json_object *keep;
    struct json_object *ev = bot_event(f, "m.room.encrypted", 0, &keep);
    assert_string_equal(jstr(ev, "room_id"), secret);
    assert_string_equal(jstr(jget(ev, "content"), "algorithm"), "m.megolm.v1.aes-sha2");
    json_object_put(keep);
    th_run_for(&f->t, 500);
    keep = hs_bot_events(f->hs, "m.room.encrypted");
    assert_int_equal(json_object_array_length(keep), 1);
    json_object_put(keep);
    assert_int_equal(json_object_array_length(f->t.inbox), 0);
    free(secret);
}

/* An encrypted room is a table like any other: a plaintext command there reaches the
 * dispatcher, also after a restart. */
static void test_encrypted_room_is_a_table(void **state)
{
    struct fx *f = *state;
    char *secret = hs_create_room(f->hs, ALICE, true);
    hs_invite_bot(f->hs, secret, ALICE);
    start_ready(f);
    th_run_for(&f->t, 300);
    th_stop(&f->t);
    assert_int_equal(th_start(&f->t), 0);
    assert_true(th_wait_ready(&f->t, 5000));
    free(hs_say(f->hs, secret, ALICE, "!illegal new"));
    assert_true(th_wait_inbox(&f->t, 1, 5000));
    assert_string_equal(th_in_str(&f->t, 0, "channel"), secret);
    assert_string_equal(th_in_str(&f->t, 0, "text"), "!illegal new");
    free(secret);
}

/* A player opens an encrypted direct chat with the bot (as Element does): it is their direct
 * room, and the bot never creates a second, plain one. */
static void test_encrypted_dm_from_player_is_used(void **state)
{
    struct fx *f = *state;
    start_ready(f);
    const char *dave = "@dave:test.local";
    char *dm = hs_create_room(f->hs, dave, true);
    hs_invite_bot_direct(f->hs, dm, dave);
    for (int i = 0; i < 50 && hs_count(f->hs, "/join") < 2; i++)
        th_run_for(&f->t, 100);
    th_run_for(&f->t, 300);
    th_send(&f->t, OUT_PRIVATE_VIEW, NULL, dave, "g1/hand/dave", true, "Your hand: 3 guns", NULL);
    assert_true(th_wait_bot_events(&f->t, "m.room.encrypted", 1, 5000));
    th_run_for(&f->t, 500);
    assert_int_equal(hs_count(f->hs, "createRoom"), 0);
    struct json_object *keep;
    assert_string_equal(jstr(bot_event(f, "m.room.encrypted", -1, &keep), "room_id"), dm);
    json_object_put(keep);
    free(dm);
}

/* The room the bot creates for a player comes out encrypted (a homeserver that encrypts every
 * new private room): it is used, never replaced by another, however many messages follow. */
static void test_encrypted_created_dm_no_loop(void **state)
{
    struct fx *f = *state;
    char *enc = hs_create_room(f->hs, BOB, true);
    hs_invite_bot(f->hs, enc, BOB);
    start_ready(f);
    th_run_for(&f->t, 300);
    char answer[160];
    snprintf(answer, sizeof answer, "{\"room_id\":\"%s\"}", enc);
    hs_fault(f->hs, "createRoom", 200, answer, NULL, 20);
    for (int i = 0; i < 5; i++)
        th_send(&f->t, OUT_NOTICE, NULL, BOB, NULL, false, "private", NULL);
    assert_true(th_wait_bot_sent(&f->t, "m.room.encrypted", 5, 5000));
    th_run_for(&f->t, 1500);
    assert_int_equal(hs_count(f->hs, "createRoom"), 1);
    struct json_object *all = hs_bot_events(f->hs, "m.room.encrypted");
    assert_int_equal(json_object_array_length(all), 5);
    for (size_t i = 0; i < 5; i++)
        assert_string_equal(jstr(json_object_array_get_idx(all, i), "room_id"), enc);
    json_object_put(all);
    /* and Bob's client reads them */
    all = th_bot_events(&f->t, "m.room.message");
    assert_int_equal(json_object_array_length(all), 5);
    for (size_t i = 0; i < 5; i++)
        assert_string_equal(jstr(jget(json_object_array_get_idx(all, i), "content"), "body"),
                            "private");
    json_object_put(all);
    free(enc);
}

/* A crash between an invite's batch and the join's answer does not lose the invite: the batch
 * is not shown again after a restart, so the pending join is stored and made again. */
static void test_invite_survives_restart(void **state)
{
    struct fx *f = *state;
    start_ready(f);
    char *other = hs_create_room(f->hs, ALICE, false);
    hs_fault(f->hs, "/join", 0, NULL, NULL, 1000); /* the join never gets through */
    int joins = hs_count(f->hs, "/join");
    hs_invite_bot(f->hs, other, ALICE);
    for (int i = 0; i < 100 && hs_count(f->hs, "/join") == joins; i++)
        th_run_for(&f->t, 20);
    assert_true(hs_count(f->hs, "/join") > joins);
    th_stop(&f->t);
    hs_faults_clear(f->hs);
    assert_int_equal(th_start(&f->t), 0);
    assert_true(th_wait_ready(&f->t, 5000));
    free(hs_say(f->hs, other, ALICE, "!illegal new"));
    assert_true(th_wait_inbox(&f->t, 1, 5000));
    assert_string_equal(th_in_str(&f->t, 0, "channel"), other);
    free(other);
}

/* Someone in no game opens a direct chat with the bot: the invite is accepted and what they
 * write there reaches the dispatcher as a private message. */
static void test_stranger_dm_is_delivered(void **state)
{
    struct fx *f = *state;
    start_ready(f);
    const char *dave = "@dave:test.local";
    char *dm = hs_create_room(f->hs, dave, false);
    hs_invite_bot_direct(f->hs, dm, dave);
    th_run_for(&f->t, 500);
    free(hs_say(f->hs, dm, dave, "help"));
    assert_true(th_wait_inbox(&f->t, 1, 5000));
    assert_string_equal(th_in_str(&f->t, 0, "user"), dave);
    assert_string_equal(th_in_str(&f->t, 0, "text"), "help");
    assert_null(th_in_str(&f->t, 0, "channel"));
    /* The room is the bot's DM room for dave now, also after a restart: no new room. */
    char *direct = hs_direct_room(f->hs, dave);
    assert_non_null(direct);
    assert_string_equal(direct, dm);
    th_stop(&f->t);
    assert_int_equal(th_start(&f->t), 0);
    assert_true(th_wait_ready(&f->t, 5000));
    free(hs_say(f->hs, dm, dave, "hand"));
    assert_true(th_wait_inbox(&f->t, 2, 5000));
    assert_null(th_in_str(&f->t, 1, "channel"));
    assert_int_equal(hs_count(f->hs, "/createRoom"), 0);
    free(direct);
    free(dm);
}

/* ---- sending ---- */

static void test_notice_html_and_dm_edits(void **state)
{
    struct fx *f = *state;
    start_ready(f);
    assert_int_equal(th_send(&f->t, OUT_NOTICE, f->room, NULL, NULL, false,
                             "Game g1 <opens>\nJoin & play", NULL),
                     0);
    assert_true(th_wait_bot_events(&f->t, "m.room.message", 1, 5000));
    struct json_object *keep;
    struct json_object *ev = bot_event(f, "m.room.message", 0, &keep);
    struct json_object *c = jget(ev, "content");
    assert_string_equal(jstr(c, "msgtype"), "m.notice");
    assert_string_equal(jstr(c, "body"), "Game g1 <opens>\nJoin & play");
    assert_string_equal(jstr(c, "format"), "org.matrix.custom.html");
    assert_string_equal(jstr(c, "formatted_body"), "Game g1 &lt;opens&gt;<br>Join &amp; play");
    json_object_put(keep);

    /* The hand goes to a DM room the bot creates, records in m.direct and then edits. */
    th_send(&f->t, OUT_PRIVATE_VIEW, NULL, ALICE, "g1/hand/alice", true, "Your hand: 3 guns", NULL);
    th_send(&f->t, OUT_PRIVATE_VIEW, NULL, ALICE, "g1/hand/alice", true, "Your hand: 2 guns", NULL);
    th_send(&f->t, OUT_NOTICE, NULL, ALICE, NULL, false, "Bob offers you a deal", NULL);
    assert_true(th_wait_bot_events(&f->t, "m.room.message", 4, 5000));
    assert_int_equal(hs_count(f->hs, "POST /_matrix/client/v3/createRoom"), 1);
    char *create = hs_last_body(f->hs, "createRoom");
    assert_non_null(strstr(create, "\"preset\":\"trusted_private_chat\""));
    assert_non_null(strstr(create, "\"is_direct\":true"));
    assert_non_null(strstr(create, ALICE));
    free(create);
    char *dm = hs_direct_room(f->hs, ALICE);
    assert_non_null(dm);
    struct json_object *hand = bot_event(f, "m.room.message", 1, &keep);
    assert_string_equal(jstr(hand, "room_id"), dm);
    char *hand_id = strdup(jstr(hand, "event_id"));
    json_object_put(keep);
    struct json_object *edit = bot_event(f, "m.room.message", 2, &keep);
    c = jget(edit, "content");
    assert_string_equal(jstr(c, "body"), "* Your hand: 2 guns");
    assert_string_equal(jstr(jget(c, "m.new_content"), "body"), "Your hand: 2 guns");
    assert_string_equal(jstr(jget(c, "m.relates_to"), "rel_type"), "m.replace");
    assert_string_equal(jstr(jget(c, "m.relates_to"), "event_id"), hand_id);
    json_object_put(keep);
    struct json_object *last = bot_event(f, "m.room.message", 3, &keep);
    assert_string_equal(jstr(last, "room_id"), dm);
    json_object_put(keep);

    /* The player answers in the DM: no channel. */
    free(hs_say(f->hs, dm, ALICE, "accept 3"));
    assert_true(th_wait_inbox(&f->t, 1, 5000));
    assert_null(th_in_str(&f->t, 0, "channel"));
    assert_string_equal(th_in_str(&f->t, 0, "text"), "accept 3");
    assert_string_equal(th_in_str(&f->t, 0, "moderator"), "false");

    /* After a restart, the same DM room and the same message are used. */
    th_stop(&f->t);
    assert_int_equal(th_start(&f->t), 0);
    th_send(&f->t, OUT_PRIVATE_VIEW, NULL, ALICE, "g1/hand/alice", true, "Your hand: 1 gun", NULL);
    assert_true(th_wait_bot_events(&f->t, "m.room.message", 5, 5000));
    assert_int_equal(hs_count(f->hs, "createRoom"), 1);
    struct json_object *edit2 = bot_event(f, "m.room.message", 4, &keep);
    assert_string_equal(jstr(jget(jget(edit2, "content"), "m.relates_to"), "event_id"), hand_id);
    assert_string_equal(jstr(edit2, "room_id"), dm);
    json_object_put(keep);
    free(hand_id);
    free(dm);
}

static void test_probe_dm(void **state)
{
    struct fx *f = *state;
    start_ready(f);
    f->t.p->ops->probe_dm(f->t.p, BOB);
    th_run_for(&f->t, 500);
    assert_string_equal(jstr(f->t.dm, BOB), "true");
    assert_int_equal(hs_count(f->hs, "createRoom"), 1);
    json_object_object_del(f->t.dm, BOB);
    f->t.p->ops->probe_dm(f->t.p, BOB);
    th_run_for(&f->t, 200);
    assert_string_equal(jstr(f->t.dm, BOB), "true");
    assert_int_equal(hs_count(f->hs, "createRoom"), 1);
    hs_fault(f->hs, "createRoom", 403, "{\"errcode\":\"M_FORBIDDEN\",\"error\":\"no\"}", NULL, 1);
    f->t.p->ops->probe_dm(f->t.p, "@ghost:test.local");
    th_run_for(&f->t, 500);
    assert_string_equal(jstr(f->t.dm, "@ghost:test.local"), "false");
}

/* The room the bot sent its last m.room.message to (malloc'd). */
static char *last_message_room(struct fx *f)
{
    struct json_object *keep;
    struct json_object *ev = bot_event(f, "m.room.message", -1, &keep);
    char *room = ev ? strdup(jstr(ev, "room_id")) : NULL;
    json_object_put(keep);
    return room;
}

/* Bob's direct room as the bot's m.direct names it, waiting up to 5 s: the
 * bot records it after the room's first message may already be out. */
static char *direct_room(struct fx *f, const char *other)
{
    char *room = NULL;
    for (int i = 0; i < 50 && !(room = hs_direct_room(f->hs, BOB)); i++)
        th_run_for(&f->t, 100);
    if (room && other && strcmp(room, other) == 0) {
        for (int i = 0; i < 50 && room && strcmp(room, other) == 0; i++) {
            free(room);
            th_run_for(&f->t, 100);
            room = hs_direct_room(f->hs, BOB);
        }
    }
    return room;
}

static void test_dm_replaced_after_leave(void **state)
{
    struct fx *f = *state;
    start_ready(f);
    th_send(&f->t, OUT_NOTICE, NULL, BOB, NULL, false, "first", NULL);
    assert_true(th_wait_bot_events(&f->t, "m.room.message", 1, 5000));
    char *old = direct_room(f, NULL);
    assert_non_null(old);
    /* Bob leaves his direct room: the next private message goes to a new one. */
    hs_leave(f->hs, old, BOB);
    th_run_for(&f->t, 300);
    th_send(&f->t, OUT_NOTICE, NULL, BOB, NULL, false, "second", NULL);
    assert_true(th_wait_bot_events(&f->t, "m.room.message", 2, 5000));
    assert_int_equal(hs_count(f->hs, "createRoom"), 2);
    char *now = direct_room(f, old);
    char *to = last_message_room(f);
    assert_non_null(now);
    assert_string_not_equal(now, old);
    assert_string_equal(to, now);
    free(old);
    free(now);
    free(to);
}

static void test_dm_creation_answer_lost(void **state)
{
    struct fx *f = *state;
    start_ready(f);
    /* The room is made but the answer never comes: the bot must not make another. */
    hs_fault(f->hs, "createRoom", -1, NULL, NULL, 1);
    th_send(&f->t, OUT_NOTICE, NULL, BOB, NULL, false, "once", NULL);
    assert_true(th_wait_bot_events(&f->t, "m.room.message", 1, 8000));
    th_run_for(&f->t, 200);
    assert_int_equal(hs_count(f->hs, "createRoom"), 1);
    char *dm = hs_direct_room(f->hs, BOB);
    char *to = last_message_room(f);
    assert_non_null(dm);
    assert_string_equal(to, dm);
    free(dm);
    free(to);
}

static void test_dm_creation_survives_crash(void **state)
{
    struct fx *f = *state;
    start_ready(f);
    /* The daemon dies between the room's creation and its answer. */
    hs_fault(f->hs, "createRoom", -2, NULL, NULL, 1);
    th_send(&f->t, OUT_NOTICE, NULL, BOB, NULL, false, "after the crash", NULL);
    th_run_for(&f->t, 150);
    assert_int_equal(hs_count(f->hs, "createRoom"), 1);
    th_stop(&f->t);
    assert_null(hs_direct_room(f->hs, BOB));
    assert_int_equal(th_start(&f->t), 0);
    assert_true(th_wait_ready(&f->t, 5000));
    assert_true(th_wait_bot_events(&f->t, "m.room.message", 1, 5000));
    assert_int_equal(hs_count(f->hs, "createRoom"), 1);
    char *dm = hs_direct_room(f->hs, BOB);
    char *to = last_message_room(f);
    assert_non_null(dm);
    assert_string_equal(to, dm);
    free(dm);
    free(to);
}

/* A drop of two cards, guns and pills, each grabbed by its reaction. */
static const char drop_data[] = "{\"game\":\"g1\",\"drop\":1,\"shown\":[\"guns\",\"pills\"],"
                                "\"choices\":[{\"emoji\":\"\xf0\x9f\x94\xab\",\"card\":\"guns\"},"
                                "{\"emoji\":\"\xf0\x9f\x92\x8a\",\"card\":\"pills\"}],"
                                "\"pick\":\"first\"}";

static void test_drop_reactions_race(void **state)
{
    struct fx *f = *state;
    start_ready(f);
    th_send(&f->t, OUT_TABLE_VIEW, f->room, NULL, "g1/drop/1", false, "Drop 1: guns, pills",
            drop_data);
    assert_true(th_wait_bot_events(&f->t, "m.reaction", 2, 5000));
    struct json_object *keep, *keep2;
    struct json_object *drop = bot_event(f, "m.room.message", -1, &keep);
    const char *drop_id = jstr(drop, "event_id");
    struct json_object *r0 = bot_event(f, "m.reaction", 0, &keep2);
    struct json_object *rel = jget(jget(r0, "content"), "m.relates_to");
    assert_string_equal(jstr(rel, "rel_type"), "m.annotation");
    assert_string_equal(jstr(rel, "event_id"), drop_id);
    assert_string_equal(jstr(rel, "key"), "\xf0\x9f\x94\xab");
    json_object_put(keep2);
    /* Bob and Alice race for the guns; Alice also grabs the pills; a stranger's reaction on
     * another message is not about the drop. */
    free(hs_react(f->hs, f->room, BOB, drop_id, "\xf0\x9f\x94\xab"));
    free(hs_react(f->hs, f->room, ALICE, drop_id, "\xf0\x9f\x94\xab"));
    free(hs_react(f->hs, f->room, ALICE, drop_id, "\xf0\x9f\x92\x8a"));
    free(hs_react(f->hs, f->room, BOB, "$unknown", "\xf0\x9f\x92\x8a"));
    json_object_put(keep);
    assert_true(th_wait_inbox(&f->t, 3, 5000));
    th_run_for(&f->t, 200);
    assert_int_equal(json_object_array_length(f->t.inbox), 3);
    assert_string_equal(th_in_str(&f->t, 0, "type"), "reaction");
    assert_string_equal(th_in_str(&f->t, 0, "user"), BOB);
    assert_string_equal(th_in_str(&f->t, 0, "key"), "g1/drop/1");
    assert_string_equal(th_in_str(&f->t, 1, "user"), ALICE);
    assert_string_equal(th_in_str(&f->t, 2, "reaction"), "\xf0\x9f\x92\x8a");
    /* An edit of the drop that reveals a third card adds only the new reaction. */
    const char *data2 = "{\"game\":\"g1\",\"drop\":1,\"choices\":[{\"emoji\":\"\xf0\x9f\x94\xab\"},"
                        "{\"emoji\":\"\xf0\x9f\x92\x8a\"},{\"emoji\":\"\xf0\x9f\x92\x8e\"}]}";
    th_send(&f->t, OUT_TABLE_VIEW, f->room, NULL, "g1/drop/1", true, "Drop 1: guns, pills, gems",
            data2);
    assert_true(th_wait_bot_events(&f->t, "m.reaction", 3, 5000));
    th_run_for(&f->t, 300);
    struct json_object *all = th_bot_events(&f->t, "m.reaction");
    assert_int_equal(json_object_array_length(all), 3);
    json_object_put(all);
}

/* A ballot's choices, as a module gives them: a vote for each of Alice and Bob, which the other
 * may cast, and abstaining. */
#define VOTE_CHOICES                                                                               \
    "\"choices\":[{\"command\":\"vote " ALICE "\",\"label\":\"Alice\",\"player\":\"" ALICE         \
    "\",\"by\":[\"" BOB "\"]},{\"command\":\"vote " BOB "\",\"label\":\"Bob\",\"player\":\"" BOB   \
    "\",\"by\":[\"" ALICE "\"]},{\"command\":\"abstain\",\"label_key\":\"ui.abstain\"}]"

static const char vote_data[] = "{\"game\":\"g1\",\"case\":1,\"poll\":true,\"deadline\":%llu,"
                                "\"candidates\":[{\"id\":\"" ALICE
                                "\",\"name\":\"Alice\"},{\"id\":\"" BOB "\",\"name\":\"Bob\"}],"
                                "\"mentions\":[\"" ALICE "\",\"" BOB "\"]," VOTE_CHOICES "}";

static void test_poll_tribunal(void **state)
{
    struct fx *f = *state;
    start_ready(f);
    char data[1024];
    snprintf(data, sizeof(data), vote_data, (unsigned long long)(clock_wall_ms() + 1500));
    th_send(&f->t, OUT_BALLOT, f->room, NULL, "g1/vote/1", false, "Case 1: who is guilty?", data);
    assert_true(th_wait_bot_events(&f->t, "org.matrix.msc3381.poll.start", 1, 5000));
    struct json_object *keep;
    struct json_object *poll = bot_event(f, "org.matrix.msc3381.poll.start", 0, &keep);
    struct json_object *start = jget(jget(poll, "content"), "org.matrix.msc3381.poll.start");
    assert_non_null(start);
    assert_string_equal(jstr(jget(start, "question"), "org.matrix.msc1767.text"),
                        "Case 1: who is guilty?");
    struct json_object *answers = jget(start, "answers");
    assert_int_equal(json_object_array_length(answers), 3);
    assert_string_equal(jstr(json_object_array_get_idx(answers, 1), "org.matrix.msc1767.text"),
                        "Bob");
    assert_non_null(jstr(jget(poll, "content"), "org.matrix.msc1767.text"));
    char *poll_id = strdup(jstr(poll, "event_id"));
    json_object_put(keep);
    /* Unstable and stable responses; a second vote from Alice counts as her last. */
    free(hs_poll_vote(f->hs, f->room, ALICE, poll_id, "a2", 0));
    free(hs_poll_vote(f->hs, f->room, BOB, poll_id, "a1", 1));
    free(hs_poll_vote(f->hs, f->room, ALICE, poll_id, "a3", 0));
    assert_true(th_wait_inbox(&f->t, 3, 5000));
    assert_string_equal(th_in_str(&f->t, 0, "type"), "command");
    assert_string_equal(th_in_str(&f->t, 0, "text"), "vote " BOB);
    assert_string_equal(th_in_str(&f->t, 0, "channel"), f->room);
    assert_string_equal(th_in_str(&f->t, 1, "text"), "vote " ALICE);
    assert_string_equal(th_in_str(&f->t, 2, "text"), "abstain");
    /* The bot ends its poll at the deadline, and later responses are ignored. */
    assert_true(th_wait_bot_events(&f->t, "org.matrix.msc3381.poll.end", 1, 5000));
    struct json_object *end = bot_event(f, "org.matrix.msc3381.poll.end", 0, &keep);
    struct json_object *rel = jget(jget(end, "content"), "m.relates_to");
    assert_string_equal(jstr(rel, "rel_type"), "m.reference");
    assert_string_equal(jstr(rel, "event_id"), poll_id);
    json_object_put(keep);
    free(hs_poll_vote(f->hs, f->room, BOB, poll_id, "a2", 0));
    th_run_for(&f->t, 400);
    assert_int_equal(json_object_array_length(f->t.inbox), 3);
    /* A verdict sent before the deadline ends the poll first. */
    snprintf(data, sizeof(data), vote_data, (unsigned long long)(clock_wall_ms() + 60000));
    th_send(&f->t, OUT_BALLOT, f->room, NULL, "g1/vote/2", false, "Case 2", data);
    th_send(&f->t, OUT_RESULT, f->room, NULL, NULL, false, "Bob is guilty", NULL);
    assert_true(th_wait_bot_events(&f->t, "m.room.message", 1, 5000));
    th_run_for(&f->t, 200);
    struct json_object *all = th_bot_events(&f->t, NULL);
    size_t n = json_object_array_length(all);
    assert_true(n >= 2);
    /* The poll ended before the verdict was posted. */
    assert_string_equal(jstr(json_object_array_get_idx(all, n - 2), "type"),
                        "org.matrix.msc3381.poll.end");
    assert_string_equal(jstr(json_object_array_get_idx(all, n - 1), "type"), "m.room.message");
    json_object_put(all);
    free(poll_id);
}

static void test_dm_vote_by_reaction_and_text(void **state)
{
    struct fx *f = *state;
    start_ready(f);
    char data[1024];
    snprintf(data, sizeof(data), vote_data, (unsigned long long)(clock_wall_ms() + 60000));
    /* DM mode: no poll, the vote goes to each player privately. */
    char *p = strstr(data, "\"poll\":true");
    memcpy(p, "\"poll\":0   ", 11);
    th_send(&f->t, OUT_BALLOT, NULL, BOB, "g1/vote/1/bob", false, "Case 1: your vote", data);
    assert_true(th_wait_bot_events(&f->t, "m.reaction", 3, 5000));
    char *dm = hs_direct_room(f->hs, BOB);
    struct json_object *keep;
    struct json_object *msg = bot_event(f, "m.room.message", -1, &keep);
    assert_string_equal(jstr(msg, "room_id"), dm);
    free(hs_react(f->hs, dm, BOB, jstr(msg, "event_id"), mx_vote_emoji(0)));
    json_object_put(keep);
    free(hs_say(f->hs, dm, BOB, "vote " BOB));
    assert_true(th_wait_inbox(&f->t, 2, 5000));
    assert_string_equal(th_in_str(&f->t, 0, "type"), "command");
    assert_string_equal(th_in_str(&f->t, 0, "text"), "vote " ALICE);
    assert_null(th_in_str(&f->t, 0, "channel"));
    assert_string_equal(th_in_str(&f->t, 1, "type"), "message");
    assert_string_equal(th_in_str(&f->t, 1, "text"), "vote " BOB);
    /* A vote in the table without poll mode: each player gets a secret ballot in their DM. */
    th_send(&f->t, OUT_BALLOT, f->room, NULL, "g1/vote/2", false, "Case 2: who?", data);
    /* Two ballots of two choices each: the other player, and abstaining. */
    assert_true(th_wait_bot_events(&f->t, "m.reaction", 3 + 2 * 2, 5000));
    th_run_for(&f->t, 200);
    struct json_object *reactions = th_bot_events(&f->t, "m.reaction");
    assert_int_equal(json_object_array_length(reactions), 3 + 2 * 2);
    json_object_put(reactions);
    char *adm = hs_direct_room(f->hs, ALICE);
    assert_non_null(adm);
    struct json_object *all = th_bot_events(&f->t, "m.room.message");
    const char *ballot = NULL, *body = NULL;
    for (size_t i = 0; i < json_object_array_length(all); i++) {
        struct json_object *e = json_object_array_get_idx(all, i);
        if (strcmp(jstr(e, "room_id"), adm) == 0) {
            ballot = jstr(e, "event_id");
            body = jstr(jget(e, "content"), "body");
        }
    }
    assert_non_null(ballot);
    assert_null(strstr(body, "Alice"));
    assert_non_null(strstr(body, "Bob"));
    free(hs_react(f->hs, adm, ALICE, ballot, mx_vote_emoji(0)));
    json_object_put(all);
    assert_true(th_wait_inbox(&f->t, 3, 5000));
    assert_string_equal(th_in_str(&f->t, 2, "text"), "vote " BOB);
    assert_string_equal(th_in_str(&f->t, 2, "user"), ALICE);
    assert_null(th_in_str(&f->t, 2, "channel"));
    free(adm);
    /* No poll was sent in DM mode. */
    struct json_object *polls = th_bot_events(&f->t, "org.matrix.msc3381.poll.start");
    assert_int_equal(json_object_array_length(polls), 0);
    json_object_put(polls);
    free(dm);
}

/* ---- errors ---- */

/* The messages that ask a player to act are m.text with the player as a pill and in m.mentions:
 * their ballot, an offer to answer, a reminder; the table's announcement of a vote cast in private,
 * and everything else, are notices that mention nobody. */
static void test_pings(void **state)
{
    struct fx *f = *state;
    start_ready(f);
    hs_set_displayname(f->hs, f->room, BOB, "Bobby");
    th_run_for(&f->t, 300);
    th_send(&f->t, OUT_BALLOT, f->room, NULL, "g1/vote/1", false, "Case 1: who? Vote in private.",
            "{\"game\":\"g1\",\"case\":1,\"poll\":false,\"candidates\":[{\"id\":\"" ALICE
            "\",\"name\":\"Alice\"},{\"id\":\"" BOB "\",\"name\":\"Bob\"}]," VOTE_CHOICES
            ",\"mentions\":[\"" ALICE "\",\"" BOB "\"],"
            "\"ballot\":\"Your ballot for case 1.\"}");
    th_send(&f->t, OUT_NOTICE, NULL, BOB, NULL, false, "An offer waits for your answer.",
            "{\"game\":\"g1\",\"event\":\"nudge\",\"mentions\":[\"" BOB "\"]}");
    th_send(&f->t, OUT_NOTICE, NULL, BOB, NULL, false, "Your vote is recorded.",
            "{\"game\":\"g1\",\"event\":\"vote-recorded\"}");
    assert_true(th_wait_bot_events(&f->t, "m.room.message", 5, 5000));
    th_run_for(&f->t, 200);
    char *bdm = hs_direct_room(f->hs, BOB);
    struct json_object *all = th_bot_events(&f->t, "m.room.message");
    int pings = 0, notices = 0;
    for (size_t i = 0; i < json_object_array_length(all); i++) {
        struct json_object *e = json_object_array_get_idx(all, i);
        struct json_object *c = jget(e, "content");
        const char *body = jstr(c, "body");
        struct json_object *ids = jget(jget(c, "m.mentions"), "user_ids");
        /* whether the reader's client notifies, by the default push rules on what it decrypted */
        bool notify, highlight;
        char rule[64];
        bool table = strcmp(jstr(e, "room_id"), f->room) == 0;
        hs_player_push(table || strcmp(jstr(e, "room_id"), bdm) == 0 ? f->bob : f->alice, e,
                       &notify, &highlight, rule, sizeof rule);
        if (table || strcmp(body, "Your vote is recorded.") == 0) {
            assert_string_equal(jstr(c, "msgtype"), "m.notice");
            assert_null(ids);
            assert_false(notify);
            notices++;
            continue;
        }
        assert_true(notify && highlight);
        assert_string_equal(jstr(c, "msgtype"), "m.text");
        assert_int_equal(json_object_array_length(ids), 1);
        const char *to = json_object_get_string(json_object_array_get_idx(ids, 0));
        /* the pill goes first: these texts do not name their reader */
        char pill[128];
        snprintf(pill, sizeof pill, "<a href=\"https://matrix.to/#/%s\">", to);
        assert_int_equal(strncmp(jstr(c, "formatted_body"), pill, strlen(pill)), 0);
        if (strcmp(to, BOB) == 0) {
            assert_string_equal(jstr(e, "room_id"), bdm);
            assert_non_null(strstr(jstr(c, "formatted_body"),
                                   strstr(body, "ballot") ? ">Bob</a>: " : ">Bobby</a>: "));
        }
        assert_null(strstr(body, "<a")); /* the plain body stays the text */
        pings++;
    }
    assert_int_equal(pings, 3);   /* two ballots and the reminder */
    assert_int_equal(notices, 2); /* the table's announcement, the confirmation */
    json_object_put(all);
    free(bdm);
}

static void test_rate_limit_retry_after_ms(void **state)
{
    struct fx *f = *state;
    start_ready(f);
    hs_fault(f->hs, "/send/", 429,
             "{\"errcode\":\"M_LIMIT_EXCEEDED\",\"error\":\"Too many\",\"retry_after_ms\":700}",
             NULL, 1);
    uint64_t t0 = clock_wall_ms();
    th_send(&f->t, OUT_NOTICE, f->room, NULL, NULL, false, "slow down", NULL);
    assert_true(th_wait_bot_events(&f->t, "m.room.message", 1, 5000));
    assert_true(clock_wall_ms() - t0 >= 650);
    assert_int_equal(hs_count(f->hs, "/send/"), 2);
    /* Retry-After (seconds) wins over retry_after_ms. */
    hs_fault(f->hs, "/send/", 429,
             "{\"errcode\":\"M_LIMIT_EXCEEDED\",\"error\":\"Too many\",\"retry_after_ms\":10}",
             "Retry-After: 1", 1);
    t0 = clock_wall_ms();
    th_send(&f->t, OUT_NOTICE, f->room, NULL, NULL, false, "slower", NULL);
    assert_true(th_wait_bot_events(&f->t, "m.room.message", 2, 5000));
    assert_true(clock_wall_ms() - t0 >= 950);
    assert_int_equal(mx_retry_after_ms("2", NULL), 2000);
    /* An HTTP-date: a past one means now, a future one the time until then. */
    assert_int_equal(mx_retry_after_ms("Wed, 21 Oct 2015 07:28:00 GMT", NULL), 0);
    char date[64];
    time_t later = time(NULL) + 3;
    struct tm tm;
    strftime(date, sizeof(date), "%a, %d %b %Y %H:%M:%S GMT", gmtime_r(&later, &tm));
    int64_t wait = mx_retry_after_ms(date, NULL);
    assert_true(wait >= 1000 && wait <= 3000);
}

static void test_send_errors_never_double(void **state)
{
    struct fx *f = *state;
    start_ready(f);
    hs_fault(f->hs, "/send/", 500, "{\"errcode\":\"M_UNKNOWN\",\"error\":\"oops\"}", NULL, 2);
    hs_fault(f->hs, "/send/", 200, "{\"event_id\":", NULL, 1);
    hs_fault(f->hs, "/send/", -1, NULL, NULL, 1); /* handled, but the answer is lost */
    th_send(&f->t, OUT_NOTICE, f->room, NULL, NULL, false, "exactly once", NULL);
    th_send(&f->t, OUT_NOTICE, f->room, NULL, NULL, false, "and in order", NULL);
    assert_true(th_wait_bot_events(&f->t, "m.room.message", 2, 15000));
    th_run_for(&f->t, 300);
    struct json_object *all = th_bot_events(&f->t, "m.room.message");
    assert_int_equal(json_object_array_length(all), 2);
    assert_string_equal(jstr(jget(json_object_array_get_idx(all, 0), "content"), "body"),
                        "exactly once");
    assert_string_equal(jstr(jget(json_object_array_get_idx(all, 1), "content"), "body"),
                        "and in order");
    json_object_put(all);
}

/* Outbox items in the store (one "out/<n>" key each), containing text (NULL: any). */
static int outbox_stored(struct fx *f, const char *text)
{
    int n = 0;
    json_object_object_foreach(f->t.state, k, v)
    {
        const char *s = json_object_get_string(v);
        if (strncmp(k, "out/", 4) == 0 && strcmp(k, "out/head") != 0 && s && *s &&
            (!text || strstr(s, text)))
            n++;
    }
    return n;
}

static void test_outbox_survives_restart(void **state)
{
    struct fx *f = *state;
    start_ready(f);
    /* The homeserver handles the PUT but the reply is lost; the daemon dies before retrying. */
    hs_fault(f->hs, "/send/", -1, NULL, NULL, 1);
    /* and every try after it fails, however long a loaded machine takes to get to the stop */
    hs_fault(f->hs, "/send/", 0, NULL, NULL, 1 << 20);
    th_send(&f->t, OUT_NOTICE, f->room, NULL, NULL, false, "sent once", NULL);
    assert_true(th_wait_bot_events(&f->t, "m.room.message", 1, 5000));
    th_stop(&f->t);
    hs_faults_clear(f->hs);
    assert_int_equal(outbox_stored(f, "sent once"), 1);
    assert_int_equal(th_start(&f->t), 0);
    assert_true(th_wait_ready(&f->t, 5000));
    th_run_for(&f->t, 1500);
    struct json_object *all = th_bot_events(&f->t, "m.room.message");
    assert_int_equal(json_object_array_length(all), 1);
    json_object_put(all);
    assert_int_equal(outbox_stored(f, NULL), 0);
    assert_true(hs_count(f->hs, "/send/") >= 2);
}

static void test_outbox_numbers_continue(void **state)
{
    struct fx *f = *state;
    /* An outbox stored as one array by an older version is still sent, with its txn id. */
    json_object_object_add(f->t.state, "txn", json_object_new_string("7"));
    char old[512];
    snprintf(old, sizeof(old),
             "[{\"room\":\"%s\",\"type\":\"m.room.message\",\"txn\":\"ild.7\","
             "\"content\":{\"msgtype\":\"m.notice\",\"body\":\"from before\"}}]",
             f->room);
    json_object_object_add(f->t.state, "outbox", json_object_new_string(old));
    start_ready(f);
    th_send(&f->t, OUT_NOTICE, f->room, NULL, NULL, false, "one", NULL);
    assert_true(th_wait_bot_events(&f->t, "m.room.message", 2, 5000));
    assert_int_equal(hs_count(f->hs, hs_room_encrypted(f->hs, f->room)
                                         ? "/send/m.room.encrypted/ild.7"
                                         : "/send/m.room.message/ild.7"),
                     1);
    assert_string_equal(jstr(f->t.state, "outbox"), "[]");
    th_stop(&f->t);
    /* Everything was sent; after a restart the numbers go on, so nothing is taken for a
     * retry of an older message. */
    assert_int_equal(outbox_stored(f, NULL), 0);
    assert_int_equal(th_start(&f->t), 0);
    assert_true(th_wait_ready(&f->t, 5000));
    th_send(&f->t, OUT_NOTICE, f->room, NULL, NULL, false, "two", NULL);
    assert_true(th_wait_bot_events(&f->t, "m.room.message", 3, 5000));
    struct json_object *keep;
    struct json_object *ev = bot_event(f, "m.room.message", -1, &keep);
    assert_string_equal(jstr(jget(ev, "content"), "body"), "two");
    json_object_put(keep);
}

struct confirm_wait {
    int64_t id;
    int n;
};

static bool confirmed(struct th *t, void *arg)
{
    struct confirm_wait *w = arg;
    return th_confirmed(t, w->id) >= w->n;
}

static bool sends_reached(struct th *t, void *arg)
{
    return hs_count(t->hs, "/send/") >= *(int *)arg;
}

/* A message the bot keeps in its own outbox until the adapter confirms it (a kill -9 between
 * the commit of its change and send() would lose it otherwise): confirmed once it landed. Sent
 * again by the bot at start while the adapter still has it queued, it is not queued twice; sent
 * again after it landed (its confirmation lost in a crash), the homeserver posts it once. */
static void test_stored_messages_confirmed(void **state)
{
    struct fx *f = *state;
    start_ready(f);
    assert_int_equal(th_send_stored(&f->t, 41, f->room, "stored"), 0);
    struct confirm_wait w = {41, 1};
    assert_true(th_run_until(&f->t, confirmed, &w, 5000));
    /* the next one lands, but its answer never comes: the adapter dies first */
    hs_fault(f->hs, "/send/", -2, NULL, NULL, 1);
    int sends = hs_count(f->hs, "/send/") + 1;
    assert_int_equal(th_send_stored(&f->t, 42, f->room, "held"), 0);
    assert_true(th_run_until(&f->t, sends_reached, &sends, 5000));
    th_stop(&f->t);
    hs_faults_clear(f->hs);
    assert_int_equal(th_start(&f->t), 0);
    assert_true(th_wait_ready(&f->t, 5000));
    assert_int_equal(th_send_stored(&f->t, 42, f->room, "held"), 0);
    w.id = 42;
    assert_true(th_run_until(&f->t, confirmed, &w, 5000));
    assert_int_equal(th_send_stored(&f->t, 41, f->room, "stored"), 0);
    w = (struct confirm_wait){41, 2};
    assert_true(th_run_until(&f->t, confirmed, &w, 5000));
    th_run_for(&f->t, 200); /* time for a wrong second copy */
    assert_int_equal(th_confirmed(&f->t, 42), 1);
    struct json_object *all = th_bot_events(&f->t, "m.room.message");
    assert_int_equal(json_object_array_length(all), 2);
    json_object_put(all);
}

/* The last message the bot sent into room, as the readers read it: its event id (malloc'd). */
static char *last_in_room(struct fx *f, const char *room)
{
    struct json_object *all = th_bot_events(&f->t, "m.room.message");
    char *id = NULL;
    for (size_t i = 0; i < json_object_array_length(all); i++) {
        struct json_object *e = json_object_array_get_idx(all, i);
        if (strcmp(jstr(e, "room_id"), room) == 0) {
            free(id);
            id = strdup(jstr(e, "event_id"));
        }
    }
    json_object_put(all);
    return id;
}

static size_t bot_count(struct fx *f, const char *type)
{
    struct json_object *all = th_bot_events(&f->t, type);
    size_t n = json_object_array_length(all);
    json_object_put(all);
    return n;
}

/* The data of a vote at a table that votes in private (a ballot in each player's DM), open a
 * minute. */
static void dm_vote_data(char *data, size_t len)
{
    snprintf(data, len, vote_data, (unsigned long long)(clock_wall_ms() + 60000));
    memcpy(strstr(data, "\"poll\":true"), "\"poll\":0   ", 11);
}

/* A vote with ballots in the players' DMs, delivered and confirmed, whose deletion from the
 * bot's outbox a kill -9 lost (the bot forgets what was confirmed with its next commit); the next
 * vote was queued when it died. At start the adapter sends its queue (the second vote) and the
 * bot sends the first vote again: the adapter knows it delivered it. Nothing is sent twice (no
 * ballot reactions under new transaction ids), and the current ballot still takes votes (seen as
 * a game whose players' reactions on their ballot were ignored after a restart). */
static void test_delivered_message_not_replayed(void **state)
{
    struct fx *f = *state;
    th_defer_writes(&f->t);
    start_ready(f);
    char data[1024];
    dm_vote_data(data, sizeof data);
    assert_int_equal(th_send_kept(&f->t, 41, OUT_BALLOT, f->room, "g1/vote/1", "Case 1", data), 0);
    /* two ballots of two choices: the other player, and abstaining */
    assert_true(th_wait_bot_events(&f->t, "m.reaction", 4, 5000));
    struct confirm_wait w = {41, 1};
    assert_true(th_run_until(&f->t, confirmed, &w, 5000));
    assert_int_equal(th_send_kept(&f->t, 42, OUT_BALLOT, f->room, "g1/vote/2", "Case 2", data), 0);
    th_crash(&f->t);
    assert_int_equal(th_start(&f->t), 0);
    assert_true(th_wait_ready(&f->t, 5000));
    assert_int_equal(th_send_kept(&f->t, 41, OUT_BALLOT, f->room, "g1/vote/1", "Case 1", data), 0);
    assert_int_equal(th_send_kept(&f->t, 42, OUT_BALLOT, f->room, "g1/vote/2", "Case 2", data), 0);
    w = (struct confirm_wait){42, 1};
    assert_true(th_run_until(&f->t, confirmed, &w, 5000));
    assert_true(th_wait_bot_events(&f->t, "m.reaction", 8, 5000));
    th_run_for(&f->t, 300); /* time for a wrong second copy */
    assert_int_equal(th_confirmed(&f->t, 41), 2);
    assert_int_equal(th_confirmed(&f->t, 42), 1);
    assert_int_equal(bot_count(f, "m.room.message"), 2 * 3);
    assert_int_equal(bot_count(f, "m.reaction"), 2 * 4);
    /* Alice's reaction on her second ballot is her vote. */
    char *adm = hs_direct_room(f->hs, ALICE);
    assert_non_null(adm);
    char *ballot = last_in_room(f, adm);
    assert_non_null(ballot);
    free(hs_react(f->hs, adm, ALICE, ballot, mx_vote_emoji(0)));
    assert_true(th_wait_inbox(&f->t, 1, 5000));
    assert_string_equal(th_in_str(&f->t, 0, "type"), "command");
    assert_string_equal(th_in_str(&f->t, 0, "text"), "vote " BOB);
    free(ballot);
    free(adm);
}

/* The store key of the queued item of transaction txn ("out/<n>"), or "" (none). */
static void outbox_key_of(struct fx *f, const char *txn, char *key, size_t len)
{
    key[0] = '\0';
    json_object_object_foreach(f->t.state, k, v)
    {
        if (strncmp(k, "out/", 4) != 0 || strcmp(k, "out/head") == 0)
            continue;
        struct json_object *item = json_tokener_parse(json_object_get_string(v));
        const char *t = jstr(item, "txn");
        if (t && strcmp(t, txn) == 0)
            snprintf(key, len, "%s", k);
        json_object_put(item);
    }
}

/* What the homeserver posted for the bot (its log, encrypted or not; a relation stays in the
 * clear): the messages, and that each of `ballots` messages has exactly one reaction of each
 * of its n choices. */
static void check_posted_once(struct fx *f, int messages, int ballots, int n)
{
    struct json_object *all = hs_bot_events(f->hs, NULL);
    struct json_object *seen = json_object_new_object(), *per = json_object_new_object();
    int msgs = 0, twice = 0;
    for (size_t i = 0; i < json_object_array_length(all); i++) {
        struct json_object *rel =
            jget(jget(json_object_array_get_idx(all, i), "content"), "m.relates_to");
        const char *type = jstr(rel, "rel_type"), *target = jstr(rel, "event_id");
        if (!type || strcmp(type, "m.annotation") != 0 || !target) {
            msgs++;
            continue;
        }
        char both[512];
        snprintf(both, sizeof both, "%s %s", target, jstr(rel, "key"));
        twice += jget(seen, both) != NULL;
        json_object_object_add(seen, both, json_object_new_boolean(1));
        struct json_object *c = jget(per, target);
        json_object_object_add(per, target,
                               json_object_new_int(c ? json_object_get_int(c) + 1 : 1));
    }
    int targets = 0, short_of = 0;
    json_object_object_foreach(per, target, count)
    {
        (void)target;
        targets++;
        short_of += json_object_get_int(count) != n;
    }
    json_object_put(seen);
    json_object_put(per);
    json_object_put(all);
    assert_int_equal(msgs, messages);
    assert_int_equal(twice, 0);
    assert_int_equal(targets, ballots);
    assert_int_equal(short_of, 0);
}

static bool killed(struct th *t, void *arg)
{
    (void)arg;
    return th_killed(t);
}

/*
 * A kill -9 after Alice's ballot landed and its reactions were queued, before the ballot was
 * marked done. At start the adapter sends the ballot again under its transaction id (the
 * homeserver answers with the same event), which queues its reactions again: they come out with
 * the transaction ids they had, so each is posted once. With new_login the restart also logs
 * in anew (transaction ids are scoped to a token): the ballot is found in its room, not posted
 * again, and its reactions, never sent, go once under the new token.
 */
static void crash_after_ballot_landed(struct fx *f, bool new_login)
{
    if (new_login)
        f->t.cfg.matrix_password = HS_BOT_PASSWORD;
    th_defer_writes(&f->t);
    start_ready(f);
    char data[1024];
    dm_vote_data(data, sizeof data);
    assert_int_equal(th_send_kept(&f->t, 41, OUT_BALLOT, f->room, "g1/vote/1", "Case 1", data), 0);
    char key[64];
    outbox_key_of(f, "ild.o41.1", key, sizeof key); /* Alice's ballot */
    assert_string_not_equal(key, "");
    th_kill_at(&f->t, key, ""); /* its done mark */
    assert_true(th_run_until(&f->t, killed, NULL, 10000));
    th_crash(&f->t);
    if (new_login)
        next_start_logs_in(f);
    assert_int_equal(th_start(&f->t), 0);
    assert_true(th_wait_ready(&f->t, 5000));
    /* the bot's outbox still holds the vote unless the adapter confirmed it */
    assert_int_equal(th_send_kept(&f->t, 41, OUT_BALLOT, f->room, "g1/vote/1", "Case 1", data), 0);
    /* the table's notice and two ballots of two choices (the other player, and abstaining) */
    assert_true(th_wait_bot_sent(&f->t, NULL, 3 + 2 * 2, 10000));
    th_run_for(&f->t, 500); /* time for a wrong second copy */
    check_posted_once(f, 3, 2, 2);
    assert_int_equal(outbox_stored(f, NULL), 0);
}

static void test_ballot_reactions_once_after_crash(void **state)
{
    crash_after_ballot_landed(*state, false);
}

static void test_ballot_reactions_once_after_crash_and_login(void **state)
{
    crash_after_ballot_landed(*state, true);
}

/*
 * A reaction in a plain room carries no transaction mark (its content is its relation only),
 * and the specification says a homeserver should, not must, refuse a second identical
 * annotation. On a server that takes one, a reaction that landed before a new login (its answer
 * lost) is found in the room by its relation, not posted again under the new token.
 */
static void test_plain_reaction_once_after_new_login(void **state)
{
    struct fx *f = *state;
    hs_set_encryption(f->hs, HS_ENC_INVITE); /* a public table stays plain */
    hs_set_duplicate_annotations_refused(f->hs, false);
    char *table = hs_create_room_as(f->hs, ALICE, "public_chat");
    hs_join(f->hs, table, BOB);
    hs_invite_bot(f->hs, table, ALICE);
    f->t.cfg.matrix_password = HS_BOT_PASSWORD;
    start_ready(f);
    hs_fault(f->hs, "send/m.reaction", -2, NULL, NULL, 1); /* lands, never answered */
    th_send(&f->t, OUT_TABLE_VIEW, table, NULL, "g1/drop/1", false, "Drop 1: guns, pills",
            drop_data);
    assert_true(th_wait_bot_events(&f->t, "m.reaction", 1, 10000));
    th_stop(&f->t);
    next_start_logs_in(f);
    assert_int_equal(th_start(&f->t), 0);
    assert_true(th_wait_ready(&f->t, 5000));
    assert_true(th_wait_bot_events(&f->t, "m.reaction", 2, 10000));
    th_run_for(&f->t, 500); /* time for a wrong second copy */
    struct json_object *all = th_bot_events(&f->t, "m.reaction");
    assert_int_equal(json_object_array_length(all), 2);
    const char *k0 =
        jstr(jget(jget(json_object_array_get_idx(all, 0), "content"), "m.relates_to"), "key");
    const char *k1 =
        jstr(jget(jget(json_object_array_get_idx(all, 1), "content"), "m.relates_to"), "key");
    assert_string_not_equal(k0, k1);
    assert_null(jget(jget(json_object_array_get_idx(all, 0), "content"), "org.illegald.txn"));
    json_object_put(all);
    free(table);
}

static void test_render_units(void **state)
{
    (void)state;
    char *e = mx_html_escape("<a href=\"x\">'&'</a>");
    assert_string_equal(e, "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
    free(e);
    struct json_object *answers = NULL;
    assert_null(mx_render_poll("q", NULL, &answers));
    struct json_object *d =
        json_tokener_parse("{\"choices\":[{\"command\":\"vote x\"},{\"command\":\"abstain\"}]}");
    struct json_object *p = mx_render_poll("Who?\nmore", d, &answers);
    assert_non_null(p);
    assert_string_equal(json_object_get_string(jget(answers, "a1")), "vote x");
    assert_string_equal(json_object_get_string(jget(answers, "a2")), "abstain");
    json_object_put(answers);
    json_object_put(p);
    json_object_put(d);
    /* A poll asks the core's poll question, which says every member sees each answer, and
     * names abstaining in the table's language. */
    d = json_tokener_parse("{\"lang\":\"de\",\"poll_question\":\"Wer? Alle sehen jede Antwort.\","
                           "\"choices\":[{\"command\":\"vote x\",\"label\":\"Xena\"},"
                           "{\"command\":\"abstain\",\"label_key\":\"ui.abstain\"}]}");
    p = mx_render_poll("Votes stay secret", d, &answers);
    struct json_object *start = jget(p, "org.matrix.msc3381.poll.start");
    assert_string_equal(jstr(jget(start, "question"), "org.matrix.msc1767.text"),
                        "Wer? Alle sehen jede Antwort.");
    struct json_object *ans = jget(start, "answers");
    assert_string_equal(jstr(json_object_array_get_idx(ans, 0), "org.matrix.msc1767.text"), "Xena");
    assert_string_equal(jstr(json_object_array_get_idx(ans, 1), "org.matrix.msc1767.text"),
                        catalog_text("de", "ui.abstain"));
    assert_null(strstr(json_object_to_json_string(p), "abstain\""));
    json_object_put(answers);
    json_object_put(p);
    json_object_put(d);
    assert_non_null(mx_vote_emoji(9));
    assert_null(mx_vote_emoji(10));
    char *f = mx_filter_json();
    assert_non_null(strstr(f, "\"m.direct\""));
    free(f);
}

int main(void)
{
    log_set_level(LOG_WARN);
    setenv("no_proxy", "127.0.0.1,localhost", 1);
    setenv("NO_PROXY", "127.0.0.1,localhost", 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_render_units),
        cmocka_unit_test_setup_teardown(test_first_start_skips_history, setup, teardown),
        cmocka_unit_test_setup_teardown(test_moderator_power_level, setup, teardown),
        cmocka_unit_test_setup_teardown(test_restart_resumes_without_replay, setup, teardown),
        cmocka_unit_test_setup_teardown(test_inflight_ids_skip_handled_events, setup, teardown),
        cmocka_unit_test_setup_teardown(test_limited_timeline_gap_is_filled, setup, teardown),
        cmocka_unit_test_setup_teardown(test_gap_filled_past_empty_pages, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dropped_and_malformed_sync, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unknown_token, setup, teardown),
        cmocka_unit_test_setup_teardown(test_password_login_with_device_id, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unreachable_at_start_is_retried, setup, teardown),
        cmocka_unit_test_setup_teardown(test_invite_allow, setup, teardown),
        cmocka_unit_test_setup_teardown(test_invites_bounded, setup, teardown),
        cmocka_unit_test_setup_teardown(test_leaves_rooms_left_alone, setup, teardown),
        cmocka_unit_test_setup_teardown(test_channel_names, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_double_post_after_new_login, setup, teardown),
        cmocka_unit_test_setup_teardown(test_encrypted_room_notice, setup, teardown),
        cmocka_unit_test_setup_teardown(test_encrypted_room_is_a_table, setup, teardown),
        cmocka_unit_test_setup_teardown(test_encrypted_dm_from_player_is_used, setup, teardown),
        cmocka_unit_test_setup_teardown(test_encrypted_created_dm_no_loop, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stranger_dm_is_delivered, setup, teardown),
        cmocka_unit_test_setup_teardown(test_invite_survives_restart, setup, teardown),
        cmocka_unit_test_setup_teardown(test_notice_html_and_dm_edits, setup, teardown),
        cmocka_unit_test_setup_teardown(test_probe_dm, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dm_replaced_after_leave, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dm_creation_answer_lost, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dm_creation_survives_crash, setup, teardown),
        cmocka_unit_test_setup_teardown(test_drop_reactions_race, setup, teardown),
        cmocka_unit_test_setup_teardown(test_poll_tribunal, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dm_vote_by_reaction_and_text, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pings, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rate_limit_retry_after_ms, setup, teardown),
        cmocka_unit_test_setup_teardown(test_send_errors_never_double, setup, teardown),
        cmocka_unit_test_setup_teardown(test_outbox_survives_restart, setup, teardown),
        cmocka_unit_test_setup_teardown(test_outbox_numbers_continue, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stored_messages_confirmed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_delivered_message_not_replayed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ballot_reactions_once_after_crash, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ballot_reactions_once_after_crash_and_login, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_plain_reaction_once_after_new_login, setup, teardown),
    };
    return cmocka_run_group_tests_name("matrix", tests, NULL, NULL);
}
