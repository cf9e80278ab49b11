/*
 * test_hs.c - the test homeserver and its test players on their own:
 * rooms encrypted by default as Synapse makes them, the end-to-end
 * encryption endpoints (keys, to-device), an encrypted conversation between
 * two players with real libolm devices, and the default push rules.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "hs.h"

#define ALICE "@alice:test.local"
#define BOB   "@bob:test.local"
#define CAROL "@carol:test.local"

static const char *jstr(struct json_object *o, const char *k)
{
    struct json_object *v;
    return o && json_object_object_get_ex(o, k, &v) && json_object_is_type(v, json_type_string)
               ? json_object_get_string(v)
               : NULL;
}

static struct json_object *jget(struct json_object *o, const char *k)
{
    struct json_object *v;
    return o && json_object_object_get_ex(o, k, &v) ? v : NULL;
}

static struct hs *server(enum hs_encryption e)
{
    struct hs *hs = hs_new();
    hs_set_encryption(hs, e);
    return hs; /* not started: every request goes in process */
}

static int request(struct hs *hs, const char *token, const char *method, const char *path,
                   const char *body, struct json_object **out)
{
    struct json_object *b = body ? json_tokener_parse(body) : NULL;
    char full[1024];
    snprintf(full, sizeof(full), "/_matrix/client/v3/%s", path);
    int st = hs_request(hs, token, method, full, b, out);
    json_object_put(b);
    return st;
}

/* ---- encryption by default ---- */

static char *bot_create(struct hs *hs, const char *body)
{
    struct json_object *r = NULL;
    assert_int_equal(request(hs, HS_BOT_TOKEN, "POST", "createRoom", body, &r), 200);
    char *id = strdup(jstr(r, "room_id"));
    json_object_put(r);
    return id;
}

static void test_encryption_by_default(void **state)
{
    (void)state;
    static const char dm[] = "{\"preset\":\"trusted_private_chat\",\"is_direct\":true,"
                             "\"invite\":[\"" ALICE "\"],\"initial_state\":[{\"type\":"
                             "\"org.illegald.direct\",\"state_key\":\"\",\"content\":{}}]}";
    static const char pub[] = "{\"preset\":\"public_chat\"}";
    static const char plain[] = "{}"; /* visibility private: private_chat */
    const struct {
        enum hs_encryption e;
        bool dm, pub, plain;
    } cases[] = {
        {HS_ENC_OFF, false, false, false},
        {HS_ENC_INVITE, true, false, true},
        {HS_ENC_ALL, true, true, true},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct hs *hs = server(cases[i].e);
        char *a = bot_create(hs, dm), *b = bot_create(hs, pub), *c = bot_create(hs, plain);
        assert_int_equal(hs_room_encrypted(hs, a), cases[i].dm);
        assert_int_equal(hs_room_encrypted(hs, b), cases[i].pub);
        assert_int_equal(hs_room_encrypted(hs, c), cases[i].plain);
        /* The invitee of the bot's DM joined; a DM Element opens is encrypted whatever the
         * server's default, and its invite shows the bot the encryption. */
        struct json_object *members = hs_room_members(hs, a);
        assert_int_equal(json_object_array_length(members), 2);
        json_object_put(members);
        char *e = hs_open_dm(hs, ALICE);
        assert_true(hs_room_encrypted(hs, e));
        struct json_object *r = NULL;
        assert_int_equal(request(hs, HS_BOT_TOKEN, "GET", "sync", NULL, &r), 200);
        struct json_object *inv = jget(jget(jget(jget(r, "rooms"), "invite"), e), "invite_state");
        struct json_object *evs = jget(inv, "events");
        bool enc = false, direct = false;
        for (size_t k = 0; evs && k < json_object_array_length(evs); k++) {
            struct json_object *ev = json_object_array_get_idx(evs, k);
            enc = enc || !strcmp(jstr(ev, "type"), "m.room.encryption");
            direct = direct || json_object_get_boolean(jget(jget(ev, "content"), "is_direct"));
        }
        assert_true(enc);
        assert_true(direct);
        json_object_put(r);
        free(a);
        free(b);
        free(c);
        free(e);
        hs_free(hs);
    }
}

/* Synapse's order: the initial state first, then the encryption the server adds. */
static void test_encryption_after_initial_state(void **state)
{
    (void)state;
    struct hs *hs = server(HS_ENC_INVITE);
    char *room = bot_create(hs, "{\"preset\":\"trusted_private_chat\",\"initial_state\":"
                                "[{\"type\":\"org.illegald.direct\",\"content\":{\"u\":1}}]}");
    struct json_object *r = NULL;
    assert_int_equal(request(hs, HS_BOT_TOKEN, "GET",
                             "sync?filter=%7B%22room%22%3A%7B%22timeline%22%3A%7B%22limit%22%3A50"
                             "%7D%7D%7D",
                             NULL, &r),
                     200);
    struct json_object *tl =
        jget(jget(jget(jget(jget(r, "rooms"), "join"), room), "timeline"), "events");
    int marker = -1, enc = -1;
    for (size_t i = 0; tl && i < json_object_array_length(tl); i++) {
        const char *t = jstr(json_object_array_get_idx(tl, i), "type");
        if (!strcmp(t, "org.illegald.direct"))
            marker = (int)i;
        if (!strcmp(t, "m.room.encryption"))
            enc = (int)i;
    }
    assert_true(marker >= 0);
    assert_true(enc > marker);
    json_object_put(r);
    free(room);
    hs_free(hs);
}

/* ---- keys ---- */

static void test_keys_round_trip(void **state)
{
    (void)state;
    struct hs *hs = server(HS_ENC_ALL);
    struct hs_player *a = hs_player_new(hs, ALICE);
    struct hs_player *b = hs_player_new(hs, BOB);
    assert_int_equal(hs_one_time_keys(hs, ALICE, hs_player_device(a)), 50);
    char *tok = hs_register(hs, CAROL, "CDEV");
    /* /keys/query: bob's device, signed, with a display name. */
    char body[256];
    snprintf(body, sizeof(body), "{\"device_keys\":{\"%s\":[]}}", BOB);
    struct json_object *r = NULL;
    assert_int_equal(request(hs, tok, "POST", "keys/query", body, &r), 200);
    struct json_object *dk = jget(jget(jget(r, "device_keys"), BOB), hs_player_device(b));
    assert_non_null(dk);
    assert_string_equal(jstr(dk, "device_id"), hs_player_device(b));
    assert_non_null(jget(jget(dk, "signatures"), BOB));
    assert_non_null(jstr(jget(dk, "unsigned"), "device_display_name"));
    assert_non_null(jget(r, "failures"));
    json_object_put(r);
    /* /keys/claim takes one-time keys one by one, then the fallback key, kept and marked. */
    snprintf(body, sizeof(body), "{\"one_time_keys\":{\"%s\":{\"%s\":\"signed_curve25519\"}}}",
             ALICE, hs_player_device(a));
    struct json_object *seen = json_object_new_object();
    for (int i = 0; i < 50; i++) {
        assert_int_equal(request(hs, tok, "POST", "keys/claim", body, &r), 200);
        struct json_object *k = jget(jget(jget(r, "one_time_keys"), ALICE), hs_player_device(a));
        assert_int_equal(json_object_object_length(k), 1);
        json_object_object_foreach(k, kid, key)
        {
            assert_null(jget(seen, kid)); /* never the same key twice */
            assert_null(jget(key, "fallback"));
            json_object_object_add(seen, kid, json_object_new_boolean(1));
        }
        json_object_put(r);
    }
    assert_int_equal(hs_one_time_keys(hs, ALICE, hs_player_device(a)), 0);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(request(hs, tok, "POST", "keys/claim", body, &r), 200);
        struct json_object *k = jget(jget(jget(r, "one_time_keys"), ALICE), hs_player_device(a));
        json_object_object_foreach(k, kid, key)
        {
            (void)kid;
            assert_true(json_object_get_boolean(jget(key, "fallback")));
        }
        json_object_put(r);
    }
    json_object_put(seen);
    /* Alice's next sync shows the fallback used and no key left: her client tops up. */
    for (int i = 0; i < 20 && hs_one_time_keys(hs, ALICE, hs_player_device(a)) < 50; i++)
        assert_true(hs_player_sync(a) >= 0);
    assert_int_equal(hs_one_time_keys(hs, ALICE, hs_player_device(a)), 50);
    /* Uploading the same key id with other content is refused. */
    assert_int_equal(request(hs, tok, "POST", "keys/upload",
                             "{\"one_time_keys\":{\"signed_curve25519:AAAA\":{\"key\":\"x\"}}}",
                             &r),
                     200);
    assert_int_equal(json_object_get_int(jget(jget(r, "one_time_key_counts"), "signed_curve25519")),
                     1);
    json_object_put(r);
    assert_int_equal(request(hs, tok, "POST", "keys/upload",
                             "{\"one_time_keys\":{\"signed_curve25519:AAAA\":{\"key\":\"y\"}}}",
                             NULL),
                     400);
    /* Device keys of another device are refused. */
    assert_int_equal(request(hs, tok, "POST", "keys/upload",
                             "{\"device_keys\":{\"user_id\":\"" CAROL "\",\"device_id\":\"X\","
                             "\"keys\":{}}}",
                             NULL),
                     400);
    free(tok);
    hs_player_free(a);
    hs_player_free(b);
    hs_free(hs);
}

/* ---- to-device ---- */

static struct json_object *sync_since(struct hs *hs, const char *tok, const char *since)
{
    char path[256];
    snprintf(path, sizeof(path), "sync%s%s", since ? "?since=" : "", since ? since : "");
    struct json_object *r = NULL;
    assert_int_equal(request(hs, tok, "GET", path, NULL, &r), 200);
    return r;
}

static void test_to_device_delivery(void **state)
{
    (void)state;
    struct hs *hs = server(HS_ENC_ALL);
    char *ta = hs_register(hs, ALICE, "ADEV");
    char *tb = hs_register(hs, BOB, "BDEV1");
    char *tb2 = hs_register(hs, BOB, "BDEV2");
    struct json_object *r = sync_since(hs, tb, NULL);
    char *since = strdup(jstr(r, "next_batch"));
    json_object_put(r);
    static const char msg[] = "{\"messages\":{\"" BOB "\":{\"*\":{\"n\":1}}}}";
    assert_int_equal(request(hs, ta, "PUT", "sendToDevice/org.example.ping/t1", msg, NULL), 200);
    /* The same transaction again: nothing more is delivered. */
    assert_int_equal(request(hs, ta, "PUT", "sendToDevice/org.example.ping/t1", msg, NULL), 200);
    assert_int_equal(hs_to_device_pending(hs, BOB, "BDEV1"), 1);
    assert_int_equal(hs_to_device_pending(hs, BOB, "BDEV2"), 1);
    /* Delivered (as often as it takes: a sync may carry fewer), then dropped once a later
     * token acknowledges it. */
    int got = 0;
    for (int i = 0; i < 10 && got == 0; i++) {
        r = sync_since(hs, tb, since);
        struct json_object *evs = jget(jget(r, "to_device"), "events");
        for (size_t k = 0; evs && k < json_object_array_length(evs); k++) {
            struct json_object *ev = json_object_array_get_idx(evs, k);
            assert_string_equal(jstr(ev, "sender"), ALICE);
            assert_string_equal(jstr(ev, "type"), "org.example.ping");
            assert_int_equal(json_object_get_int(jget(jget(ev, "content"), "n")), 1);
            got++;
        }
        free(since);
        since = strdup(jstr(r, "next_batch"));
        json_object_put(r);
    }
    assert_int_equal(got, 1);
    assert_int_equal(hs_to_device_pending(hs, BOB, "BDEV1"), 1); /* not acknowledged yet */
    json_object_put(sync_since(hs, tb, since));
    assert_int_equal(hs_to_device_pending(hs, BOB, "BDEV1"), 0);
    assert_int_equal(hs_to_device_pending(hs, BOB, "BDEV2"), 1); /* per device */
    /* Without messages, sendToDevice is refused. */
    assert_int_equal(request(hs, ta, "PUT", "sendToDevice/x/t2", "{}", NULL), 400);
    free(since);
    free(ta);
    free(tb);
    free(tb2);
    hs_free(hs);
}

static bool listed(struct json_object *r, const char *section, const char *user)
{
    struct json_object *a = jget(jget(r, "device_lists"), section);
    for (size_t i = 0; a && i < json_object_array_length(a); i++)
        if (!strcmp(json_object_get_string(json_object_array_get_idx(a, i)), user))
            return true;
    return false;
}

static void test_device_lists(void **state)
{
    (void)state;
    struct hs *hs = server(HS_ENC_ALL);
    char *ta = hs_register(hs, ALICE, "ADEV");
    char *room = hs_create_room(hs, ALICE, true);
    struct json_object *r = sync_since(hs, ta, NULL);
    char *since = strdup(jstr(r, "next_batch"));
    json_object_put(r);
    /* Bob joins: Alice now shares a room with him. */
    struct hs_player *b = hs_player_new(hs, BOB);
    hs_join(hs, room, BOB);
    bool seen = false;
    for (int i = 0; i < 10 && !seen; i++) {
        r = sync_since(hs, ta, since);
        seen = listed(r, "changed", BOB);
        free(since);
        since = strdup(jstr(r, "next_batch"));
        json_object_put(r);
    }
    assert_true(seen);
    hs_leave(hs, room, BOB);
    seen = false;
    for (int i = 0; i < 10 && !seen; i++) {
        r = sync_since(hs, ta, since);
        seen = listed(r, "left", BOB);
        free(since);
        since = strdup(jstr(r, "next_batch"));
        json_object_put(r);
    }
    assert_true(seen);
    /* Bob is back, and deletes a device: Alice sees the change, the device is gone from
     * /keys/query, and its token no longer works. */
    hs_join(hs, room, BOB);
    struct hs_player *phone = hs_player_new(hs, BOB);
    char *dev = strdup(hs_player_device(phone));
    char *tp = hs_register(hs, BOB, dev);
    r = sync_since(hs, ta, NULL);
    free(since);
    since = strdup(jstr(r, "next_batch"));
    json_object_put(r);
    hs_remove_device(hs, BOB, dev);
    r = sync_since(hs, ta, since);
    assert_true(listed(r, "changed", BOB));
    json_object_put(r);
    struct json_object *q = NULL;
    assert_int_equal(
        request(hs, ta, "POST", "keys/query", "{\"device_keys\":{\"" BOB "\":[]}}", &q), 200);
    struct json_object *bobs = jget(jget(q, "device_keys"), BOB);
    assert_null(jget(bobs, dev));
    assert_non_null(jget(bobs, hs_player_device(b)));
    json_object_put(q);
    assert_int_equal(request(hs, tp, "GET", "account/whoami", NULL, NULL), 401);
    free(tp);
    free(dev);
    hs_player_free(phone);
    hs_player_free(b);
    free(room);
    free(since);
    free(ta);
    hs_free(hs);
}

/* GET /rooms/{id}/members: the member events of the current state for a joined member, filtered
 * by membership as Synapse filters them; refused to someone not in the room. */
static void test_members(void **state)
{
    (void)state;
    struct hs *hs = server(HS_ENC_ALL);
    char *ta = hs_register(hs, ALICE, "ADEV");
    char *tc = hs_register(hs, "@carol:test.local", "CDEV");
    char *room = hs_create_room(hs, ALICE, true);
    hs_join(hs, room, BOB);
    hs_invite_bot(hs, room, ALICE);
    hs_join(hs, room, "@dave:test.local");
    hs_leave(hs, room, "@dave:test.local");
    char path[256];
    struct {
        const char *query;
        const char *want;
    } cases[] = {
        {"",
         "@alice:test.local=join @bob:test.local=join @dave:test.local=leave " HS_BOT "=invite"},
        {"?not_membership=leave", "@alice:test.local=join @bob:test.local=join " HS_BOT "=invite"},
        {"?membership=join", "@alice:test.local=join @bob:test.local=join"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        snprintf(path, sizeof path, "rooms/%s/members%s", room, cases[i].query);
        struct json_object *r = NULL;
        assert_int_equal(request(hs, ta, "GET", path, NULL, &r), 200);
        char got[512] = "";
        struct json_object *chunk = jget(r, "chunk");
        /* the server's order is its state's: sort by reading them in the wanted order */
        const char *w = cases[i].want;
        while (*w) {
            size_t n = strcspn(w, "=");
            bool found = false;
            for (size_t k = 0; k < json_object_array_length(chunk); k++) {
                struct json_object *ev = json_object_array_get_idx(chunk, k);
                const char *key = jstr(ev, "state_key");
                const char *membership = jstr(jget(ev, "content"), "membership");
                assert_non_null(key);
                assert_non_null(membership);
                if (strlen(key) == n && !strncmp(key, w, n)) {
                    snprintf(got + strlen(got), sizeof got - strlen(got), "%s%s=%s",
                             *got ? " " : "", key, membership);
                    assert_string_equal(jstr(ev, "room_id"), room);
                    found = true;
                }
            }
            assert_true(found);
            w += strcspn(w, " ");
            w += *w == ' ';
        }
        assert_string_equal(got, cases[i].want);
        assert_int_equal(json_object_array_length(chunk), i == 0 ? 4 : i == 1 ? 3 : 2);
        json_object_put(r);
    }
    snprintf(path, sizeof path, "rooms/%s/members", room);
    assert_int_equal(request(hs, tc, "GET", path, NULL, NULL), 403);
    free(room);
    free(ta);
    free(tc);
    hs_free(hs);
}

/* ---- two players, one encrypted room ---- */

static struct json_object *read_one(struct hs_player *p, size_t *cursor, const char *type)
{
    for (int i = 0; i < 20; i++) {
        hs_player_sync(p);
        struct json_object *evs = hs_player_events_after(p, cursor);
        for (size_t k = 0; k < json_object_array_length(evs); k++) {
            struct json_object *ev = json_object_array_get_idx(evs, k);
            if (!strcmp(jstr(ev, "type"), type)) {
                struct json_object *out = json_object_get(ev);
                json_object_put(evs);
                return out;
            }
        }
        json_object_put(evs);
    }
    return NULL;
}

static void assert_no_errors(struct hs_player *p)
{
    struct json_object *e = hs_player_errors(p);
    if (json_object_array_length(e) > 0)
        fail_msg("%s: %s", hs_player_user(p), json_object_to_json_string(e));
    json_object_put(e);
}

static void test_encrypted_conversation(void **state)
{
    (void)state;
    struct hs *hs = server(HS_ENC_ALL);
    struct hs_player *a = hs_player_new(hs, ALICE);
    struct hs_player *b = hs_player_new(hs, BOB);
    char *room = hs_create_room_as(hs, ALICE, "private_chat");
    assert_true(hs_room_encrypted(hs, room));
    hs_join(hs, room, BOB);
    size_t ca = 0, cb = 0;
    char *id = hs_player_say(a, room, "the password is swordfish");
    assert_non_null(id);
    /* The server never saw the text. */
    char path[] = "/tmp/test_hs-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(hs_dump(hs, path), 0);
    struct json_object *log = json_object_from_file(path);
    unlink(path);
    assert_non_null(log);
    assert_null(strstr(json_object_to_json_string(log), "swordfish"));
    json_object_put(log);
    struct json_object *ev = read_one(b, &cb, "m.room.message");
    assert_non_null(ev);
    assert_true(json_object_get_boolean(jget(ev, "encrypted")));
    assert_string_equal(jstr(jget(ev, "content"), "body"), "the password is swordfish");
    assert_string_equal(jstr(ev, "event_id"), id);
    json_object_put(ev);
    /* And back: Bob's own session, shared with Alice over a new Olm session. */
    char *rid = hs_player_react(b, room, id, "👍");
    ev = read_one(a, &ca, "m.reaction");
    assert_non_null(ev);
    assert_string_equal(jstr(jget(jget(ev, "content"), "m.relates_to"), "key"), "👍");
    json_object_put(ev);
    /* On the server the relation is in the clear, encrypted reaction or not (the spec's
     * "Relationships"); a reply's too. */
    char *reply_id = hs_player_send(
        b, room, "m.room.message",
        json_tokener_parse("{\"msgtype\":\"m.text\",\"body\":\"> swordfish\\n\\nok\","
                           "\"m.relates_to\":{\"m.in_reply_to\":{\"event_id\":\"$x\"}}}"));
    snprintf(path, sizeof path, "/tmp/test_hs-XXXXXX");
    fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(hs_dump(hs, path), 0);
    log = json_object_from_file(path);
    unlink(path);
    int clear = 0;
    for (size_t i = 0; i < json_object_array_length(log); i++) {
        struct json_object *e = jget(json_object_array_get_idx(log, i), "event");
        const char *eid = jstr(e, "event_id");
        if (strcmp(eid, rid) != 0 && strcmp(eid, reply_id) != 0)
            continue;
        struct json_object *rel = jget(jget(e, "content"), "m.relates_to");
        assert_non_null(rel);
        clear++;
        if (strcmp(eid, reply_id) == 0) {
            assert_string_equal(jstr(e, "type"), "m.room.encrypted");
            assert_null(jget(jget(e, "content"), "body"));
        }
    }
    assert_int_equal(clear, 2);
    json_object_put(log);
    ev = read_one(a, &ca, "m.room.message");
    assert_non_null(ev);
    assert_string_equal(
        jstr(jget(jget(jget(ev, "content"), "m.relates_to"), "m.in_reply_to"), "event_id"), "$x");
    json_object_put(ev);
    free(reply_id);
    /* Alice reads her own message too (her inbound copy of her session). */
    assert_int_equal(hs_player_undecrypted(a), 0);
    assert_int_equal(hs_player_undecrypted(b), 0);
    assert_no_errors(a);
    assert_no_errors(b);
    /* The server notified Bob for the encrypted event in a two-member room. */
    struct json_object *n = hs_notifications(hs, BOB);
    assert_int_equal(json_object_array_length(n), 1);
    struct json_object *first = json_object_array_get_idx(n, 0);
    assert_string_equal(jstr(jget(first, "event"), "type"), "m.room.encrypted");
    json_object_put(n);
    free(id);
    free(rid);
    free(room);
    hs_player_free(a);
    hs_player_free(b);
    hs_free(hs);
}

/* ---- push rules ---- */

struct expect {
    const char *who;
    bool notify, highlight;
    const char *rule;
};

static void check_push(struct hs *hs, const char *room, const char *sender, const char *type,
                       const char *content, const struct expect *want, size_t n)
{
    struct json_object *ev = json_object_new_object();
    json_object_object_add(ev, "type", json_object_new_string(type));
    json_object_object_add(ev, "sender", json_object_new_string(sender));
    json_object_object_add(ev, "content", json_tokener_parse(content));
    for (size_t i = 0; i < n; i++) {
        bool notify, highlight;
        char rule[64];
        hs_push_check(hs, want[i].who, room, ev, &notify, &highlight, rule, sizeof(rule));
        if (notify != want[i].notify || highlight != want[i].highlight ||
            strcmp(rule, want[i].rule) != 0)
            fail_msg("%s for %s: notify %d highlight %d by %s; want %d %d by %s", content,
                     want[i].who, notify, highlight, rule, want[i].notify, want[i].highlight,
                     want[i].rule);
    }
    json_object_put(ev);
}

static void test_push_rules(void **state)
{
    (void)state;
    struct hs *hs = server(HS_ENC_OFF);
    char *room = hs_create_room(hs, ALICE, false);
    hs_join(hs, room, BOB);
    hs_set_displayname(hs, room, CAROL, "Carol");
    /* A notice never notifies, even when it mentions. */
    const struct expect notice[] = {{BOB, false, false, ".m.rule.suppress_notices"},
                                    {CAROL, false, false, ".m.rule.suppress_notices"}};
    check_push(hs, room, ALICE, "m.room.message",
               "{\"msgtype\":\"m.notice\",\"body\":\"bob, your turn\","
               "\"m.mentions\":{\"user_ids\":[\"" BOB "\"]}}",
               notice, 2);
    /* m.text with m.mentions: the mentioned is highlighted, the rest of the room notified. */
    const struct expect text[] = {{BOB, true, true, ".m.rule.is_user_mention"},
                                  {CAROL, true, false, ".m.rule.message"},
                                  {ALICE, false, false, ""}};
    check_push(hs, room, ALICE, "m.room.message",
               "{\"msgtype\":\"m.text\",\"body\":\"Carol: your turn\","
               "\"m.mentions\":{\"user_ids\":[\"" BOB "\"]}}",
               text, 3);
    /* Without m.mentions, the legacy rules read the body. */
    const struct expect legacy[] = {{CAROL, true, true, ".m.rule.contains_display_name"},
                                    {BOB, true, true, ".m.rule.contains_user_name"}};
    check_push(hs, room, ALICE, "m.room.message",
               "{\"msgtype\":\"m.text\",\"body\":\"carol and bob, hi\"}", legacy, 2);
    const struct expect word[] = {{BOB, true, false, ".m.rule.message"}};
    check_push(hs, room, ALICE, "m.room.message", "{\"msgtype\":\"m.text\",\"body\":\"bobby\"}",
               word, 1);
    /* An encrypted event: the server can only match its type. */
    const struct expect enc3[] = {{BOB, true, false, ".m.rule.encrypted"}};
    check_push(hs, room, ALICE, "m.room.encrypted", "{\"algorithm\":\"m.megolm.v1.aes-sha2\"}",
               enc3, 1);
    const struct expect edit[] = {{BOB, false, false, ".m.rule.suppress_edits"}};
    check_push(hs, room, ALICE, "m.room.message",
               "{\"msgtype\":\"m.text\",\"body\":\"* bob\",\"m.relates_to\":{\"rel_type\":"
               "\"m.replace\",\"event_id\":\"$x\"}}",
               edit, 1);
    const struct expect reaction[] = {{BOB, false, false, ".m.rule.reaction"}};
    check_push(hs, room, ALICE, "m.reaction", "{}", reaction, 1);
    /* @room needs the power level of notifications.room (50): Alice has 100, Bob 0. */
    const struct expect atroom[] = {{CAROL, true, true, ".m.rule.is_room_mention"}};
    check_push(hs, room, ALICE, "m.room.message",
               "{\"msgtype\":\"m.text\",\"body\":\"all\",\"m.mentions\":{\"room\":true}}", atroom,
               1);
    const struct expect weak[] = {{CAROL, true, false, ".m.rule.message"}};
    check_push(hs, room, BOB, "m.room.message",
               "{\"msgtype\":\"m.text\",\"body\":\"all\",\"m.mentions\":{\"room\":true}}", weak, 1);
    /* Two members: one-to-one rules. */
    char *dm = hs_create_room(hs, ALICE, false);
    hs_join(hs, dm, BOB);
    const struct expect one[] = {{BOB, true, false, ".m.rule.room_one_to_one"}};
    check_push(hs, dm, ALICE, "m.room.message", "{\"msgtype\":\"m.text\",\"body\":\"hi\"}", one, 1);
    const struct expect enc2[] = {{BOB, true, false, ".m.rule.encrypted_room_one_to_one"}};
    check_push(hs, dm, ALICE, "m.room.encrypted", "{}", enc2, 1);

    /* The server ran the same rules on events sent: GET /notifications, newest first. */
    free(hs_say(hs, room, ALICE, "plain hello"));
    free(hs_send(hs, room, ALICE, "m.room.message",
                 "{\"msgtype\":\"m.notice\",\"body\":\"notice\"}"));
    free(hs_send(hs, room, ALICE, "m.room.message",
                 "{\"msgtype\":\"m.text\",\"body\":\"ping\",\"m.mentions\":{\"user_ids\":[\"" BOB
                 "\"]}}"));
    char *tb = hs_register(hs, BOB, "BDEV");
    struct json_object *r = NULL;
    assert_int_equal(request(hs, tb, "GET", "notifications?limit=1", NULL, &r), 200);
    struct json_object *ns = jget(r, "notifications");
    assert_int_equal(json_object_array_length(ns), 1);
    struct json_object *n0 = json_object_array_get_idx(ns, 0);
    assert_string_equal(jstr(jget(jget(n0, "event"), "content"), "body"), "ping");
    assert_string_equal(jstr(n0, "room_id"), room);
    assert_non_null(jget(n0, "ts"));
    assert_false(json_object_get_boolean(jget(n0, "read")));
    char *next = strdup(jstr(r, "next_token"));
    json_object_put(r);
    char path[128];
    snprintf(path, sizeof(path), "notifications?from=%s", next);
    assert_int_equal(request(hs, tb, "GET", path, NULL, &r), 200);
    ns = jget(r, "notifications");
    assert_int_equal(json_object_array_length(ns), 1); /* the notice is not there */
    assert_string_equal(
        jstr(jget(jget(json_object_array_get_idx(ns, 0), "event"), "content"), "body"),
        "plain hello");
    assert_null(jget(r, "next_token"));
    json_object_put(r);
    assert_int_equal(request(hs, tb, "GET", "notifications?only=highlight", NULL, &r), 200);
    assert_int_equal(json_object_array_length(jget(r, "notifications")), 1);
    json_object_put(r);
    free(next);
    free(tb);
    free(room);
    free(dm);
    hs_free(hs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_encryption_by_default),
        cmocka_unit_test(test_encryption_after_initial_state),
        cmocka_unit_test(test_keys_round_trip),
        cmocka_unit_test(test_to_device_delivery),
        cmocka_unit_test(test_device_lists),
        cmocka_unit_test(test_members),
        cmocka_unit_test(test_encrypted_conversation),
        cmocka_unit_test(test_push_rules),
    };
    return cmocka_run_group_tests_name("matrix_hs", tests, NULL, NULL);
}
