/*
 * gen_crypto_corpus.c - writes the seed corpus of fuzz_matrix_crypto and the
 * bot account it decrypts with. Run by hand when the corpus must change (the
 * keys are new at every run, so both files are written together):
 *
 *   build/bin/gen_crypto_corpus tests/fuzz/corpus/matrix_crypto \
 *       tests/matrix/fuzz_crypto_account.h
 *   clang-format -i tests/matrix/fuzz_crypto_account.h
 *
 * The players are libolm peers, as in test_matrix_crypto.c: each starts an Olm
 * session from one of the bot's one-time keys, shares its Megolm key in an
 * m.room_key, and sends encrypted commands; around them, the bad shapes a
 * server or a player may send.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "adapters/matrix/crypto.h"
#include "adapters/matrix/mx.h"
#include "olm_peer.h"

#define BOT    "@illegal:localhost"
#define DEVICE "FUZZDEVICE"
#define KEY    "fuzz-pickle-key-0123456789"
#define ROOM   "!table:localhost"
#define NPEERS 4

static struct mxc_account *bot;
static char *bot_otks[16];
static int bot_next;

struct peer {
    char user[64], device[32];
    struct mxc_account *acct;
    struct mxc_session *olm;
    struct mxc_outbound *out;
    char *key0; /* the Megolm key at index 0 */
};

static void die(const char *what)
{
    fprintf(stderr, "gen_crypto_corpus: %s\n", what);
    exit(1);
}

static void peer_init(struct peer *p, const char *name)
{
    snprintf(p->user, sizeof p->user, "@%s:localhost", name);
    snprintf(p->device, sizeof p->device, "%sDEV", name);
    p->acct = mxc_account_new(NULL);
    p->out = mxc_outbound_new(NULL);
    p->key0 = p->out ? mxc_outbound_key(p->out) : NULL;
    if (!p->acct || !p->key0 || bot_next >= 16)
        die("no peer");
    p->olm = mxc_session_outbound(p->acct, mxc_account_curve25519(bot), bot_otks[bot_next++], NULL);
    if (!p->olm)
        die("no Olm session");
}

static struct json_object *olm_event(struct peer *p, const char *type, struct json_object *content)
{
    struct olm_peer_id id = {p->user, p->device, p->acct};
    struct olm_peer_bot b = {BOT, mxc_account_curve25519(bot), mxc_account_ed25519(bot)};
    return olm_peer_todevice(&id, p->olm, &b, type, content);
}

static struct json_object *room_key(struct peer *p, bool forwarded)
{
    char *sid = mxc_outbound_id(p->out);
    struct json_object *c = json_object_new_object();
    json_object_object_add(c, "algorithm", json_object_new_string("m.megolm.v1.aes-sha2"));
    json_object_object_add(c, "room_id", json_object_new_string(ROOM));
    json_object_object_add(c, "session_id", json_object_new_string(sid));
    if (forwarded) {
        struct mxc_inbound *in = mxc_inbound_new(p->key0, NULL);
        char *exp = in ? mxc_inbound_export(in, 0) : NULL;
        json_object_object_add(c, "session_key", json_object_new_string(exp ? exp : ""));
        json_object_object_add(c, "sender_key",
                               json_object_new_string(mxc_account_curve25519(p->acct)));
        json_object_object_add(c, "sender_claimed_ed25519_key",
                               json_object_new_string(mxc_account_ed25519(p->acct)));
        json_object_object_add(c, "forwarding_curve25519_key_chain", json_object_new_array());
        free(exp);
        mxc_inbound_free(in);
    } else {
        json_object_object_add(c, "session_key", json_object_new_string(p->key0));
    }
    free(sid);
    return olm_event(p, forwarded ? "m.forwarded_room_key" : "m.room_key", c);
}

static struct json_object *says(struct peer *p, const char *id, const char *text)
{
    struct olm_peer_id pid = {p->user, p->device, p->acct};
    return olm_peer_says(&pid, p->out, ROOM, id, text);
}

static struct json_object *state_event(const char *type, const char *key, const char *sender,
                                       const char *content)
{
    struct json_object *ev = json_object_new_object();
    json_object_object_add(ev, "type", json_object_new_string(type));
    json_object_object_add(ev, "state_key", json_object_new_string(key));
    json_object_object_add(ev, "sender", json_object_new_string(sender));
    char id[128];
    snprintf(id, sizeof id, "$s-%s-%s", type, key);
    json_object_object_add(ev, "event_id", json_object_new_string(id));
    json_object_object_add(ev, "content", json_tokener_parse(content));
    return ev;
}

/* A sync body: rooms.join.ROOM with state and timeline (taken, may be NULL) and to-device. */
static char *body(int n, struct json_object *state, struct json_object *timeline,
                  struct json_object *to_device)
{
    struct json_object *b = json_object_new_object();
    char nb[16];
    snprintf(nb, sizeof nb, "c%d", n);
    json_object_object_add(b, "next_batch", json_object_new_string(nb));
    struct json_object *room = json_object_new_object();
    struct json_object *s = json_object_new_object(), *t = json_object_new_object();
    json_object_object_add(s, "events", state ? state : json_object_new_array());
    json_object_object_add(t, "events", timeline ? timeline : json_object_new_array());
    json_object_object_add(room, "state", s);
    json_object_object_add(room, "timeline", t);
    struct json_object *join = json_object_new_object(), *rooms = json_object_new_object();
    json_object_object_add(join, ROOM, room);
    json_object_object_add(rooms, "join", join);
    json_object_object_add(b, "rooms", rooms);
    if (to_device) {
        struct json_object *td = json_object_new_object();
        json_object_object_add(td, "events", to_device);
        json_object_object_add(b, "to_device", td);
    }
    char *out = strdup(json_object_to_json_string(b));
    json_object_put(b);
    return out;
}

static void write_seed(const char *dir, const char *name, char **bodies, int n)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f)
        die(path);
    for (int i = 0; i < n; i++) {
        fwrite(bodies[i], 1, strlen(bodies[i]), f);
        if (i + 1 < n)
            fputc('\0', f);
        free(bodies[i]);
    }
    fclose(f);
}

static struct json_object *room_state(struct peer *peers)
{
    struct json_object *st = json_object_new_array();
    json_object_array_add(st, state_event("m.room.member", BOT, BOT, "{\"membership\":\"join\"}"));
    for (int i = 0; i < NPEERS; i++)
        json_object_array_add(st, state_event("m.room.member", peers[i].user, peers[i].user,
                                              "{\"membership\":\"join\"}"));
    char pl[256];
    snprintf(pl, sizeof pl, "{\"users\":{\"%s\":100},\"users_default\":0}", peers[0].user);
    json_object_array_add(st, state_event("m.room.power_levels", "", peers[0].user, pl));
    json_object_array_add(st, state_event("m.room.encryption", "", peers[0].user,
                                          "{\"algorithm\":\"m.megolm.v1.aes-sha2\"}"));
    return st;
}

/* The seeds: a game's lobby, a key that comes late, a forwarded key, and bad shapes. */
static void seeds(const char *dir)
{
    static const char *const names[NPEERS] = {"alice", "bob", "carol", "dave"};
    struct peer peers[NPEERS];
    for (int i = 0; i < NPEERS; i++)
        peer_init(&peers[i], names[i]);
    char *b[8];
    /* a lobby opened, joined and started, every command encrypted */
    struct json_object *keys = json_object_new_array(), *tl = json_object_new_array();
    for (int i = 0; i < NPEERS; i++)
        json_object_array_add(keys, room_key(&peers[i], false));
    json_object_array_add(tl, says(&peers[0], "$g1", "!illegal new"));
    json_object_array_add(tl, says(&peers[0], "$g2", "!illegal set preset quick"));
    for (int i = 0; i < NPEERS; i++) {
        char id[16];
        snprintf(id, sizeof id, "$j%d", i);
        json_object_array_add(tl, says(&peers[i], id, "!illegal join"));
    }
    b[0] = body(1, room_state(peers), NULL, NULL);
    b[1] = body(2, NULL, tl, keys);
    tl = json_object_new_array();
    json_object_array_add(tl, says(&peers[0], "$g3", "!illegal start"));
    json_object_array_add(tl, says(&peers[1], "$g4", "!illegal status"));
    b[2] = body(3, NULL, tl, NULL);
    write_seed(dir, "game-lobby.bin", b, 3);

    /* the event before its key (it waits, and is handled when the key comes) */
    struct peer late;
    peer_init(&late, "erin");
    tl = json_object_new_array();
    json_object_array_add(tl, says(&late, "$l1", "!illegal help"));
    b[0] = body(1, room_state(peers), NULL, NULL);
    b[1] = body(2, NULL, tl, NULL);
    keys = json_object_new_array();
    json_object_array_add(keys, room_key(&late, false));
    b[2] = body(3, NULL, NULL, keys);
    write_seed(dir, "key-later.bin", b, 3);

    /* a forwarded key, answering the request the waiting event made */
    struct peer fwd;
    peer_init(&fwd, "frank");
    tl = json_object_new_array();
    json_object_array_add(tl, says(&fwd, "$f1", "!illegal rules"));
    b[0] = body(1, room_state(peers), NULL, NULL);
    b[1] = body(2, NULL, tl, NULL);
    keys = json_object_new_array();
    json_object_array_add(keys, room_key(&fwd, true));
    b[2] = body(3, NULL, NULL, keys);
    write_seed(dir, "forwarded.bin", b, 3);

    /* bad shapes around one good command */
    static const char *const bad_td[] = {
        "{\"type\":\"m.room.encrypted\",\"sender\":\"@x:y\",\"content\":7}",
        "{\"type\":\"m.room.encrypted\",\"sender\":\"@x:y\",\"content\":{\"algorithm\":"
        "\"m.olm.v1.curve25519-aes-sha2\",\"sender_key\":\"AAAA\",\"ciphertext\":{\"k\":{\"type\":"
        "1,"
        "\"body\":\"Zm9v\"}}}}",
        "{\"type\":\"m.room.encrypted\",\"sender\":\"@x:y\",\"content\":{\"algorithm\":\"m.olm."
        "v2\"}}",
        "{\"type\":\"m.room_key_request\",\"sender\":\"@x:y\",\"content\":{\"action\":\"request\"}"
        "}",
        "{\"type\":7}",
    };
    static const char *const bad_tl[] = {
        "{\"type\":\"m.room.encrypted\",\"sender\":\"@x:y\",\"event_id\":\"$b1\",\"content\":"
        "{\"algorithm\":\"m.foo\"}}",
        "{\"type\":\"m.room.encrypted\",\"sender\":\"@x:y\",\"event_id\":\"$b2\",\"content\":"
        "{\"algorithm\":\"m.megolm.v1.aes-sha2\",\"session_id\":[],\"ciphertext\":7}}",
        "{\"type\":\"m.room.encrypted\",\"sender\":\"@x:y\",\"event_id\":\"$b3\",\"content\":"
        "{\"algorithm\":\"m.megolm.v1.aes-sha2\",\"session_id\":\"nope\",\"ciphertext\":\"AwgA\"}}",
    };
    struct peer g;
    peer_init(&g, "gina");
    struct json_object *td = json_object_new_array();
    for (size_t i = 0; i < sizeof bad_td / sizeof *bad_td; i++)
        json_object_array_add(td, json_tokener_parse(bad_td[i]));
    struct json_object *forged = room_key(&g, false);
    json_object_object_add(forged, "sender", json_object_new_string(peers[0].user));
    json_object_array_add(td, forged);
    json_object_array_add(td, room_key(&peers[0], false)); /* the good command's key */
    tl = json_object_new_array();
    for (size_t i = 0; i < sizeof bad_tl / sizeof *bad_tl; i++)
        json_object_array_add(tl, json_tokener_parse(bad_tl[i]));
    struct json_object *stolen = says(&peers[0], "$b4", "!illegal end");
    json_object_object_add(stolen, "sender", json_object_new_string(peers[1].user));
    json_object_array_add(tl, stolen);
    json_object_array_add(tl, says(&peers[0], "$ok", "!illegal new"));
    b[0] = body(1, room_state(peers), NULL, NULL);
    b[1] = body(2, NULL, tl, td);
    write_seed(dir, "bad-shapes.bin", b, 2);

    /* a flood of to-device messages */
    td = json_object_new_array();
    for (int i = 0; i < 300; i++)
        json_object_array_add(td, json_tokener_parse(bad_td[1]));
    b[0] = body(1, room_state(peers), NULL, td);
    write_seed(dir, "flood.json", b, 1);
}

int main(int argc, char **argv)
{
    if (argc != 3)
        die("usage: gen_crypto_corpus CORPUS_DIR HEADER");
    bot = mxc_account_new(NULL);
    if (!bot || mxc_account_generate_otks(bot, 16) != 0)
        die("no account");
    char *otks = mxc_account_unpublished(bot, false);
    struct json_object *o = json_tokener_parse(otks);
    free(otks);
    int n = 0;
    json_object_object_foreach(jget_obj(o, "curve25519"), id, k)
    {
        (void)id;
        bot_otks[n++] = strdup(json_object_get_string(k));
    }
    json_object_put(o);
    seeds(argv[1]);
    char *pickle = mxc_account_pickle(bot, KEY, strlen(KEY));
    FILE *h = fopen(argv[2], "w");
    if (!h || !pickle)
        die(argv[2]);
    fprintf(
        h,
        "/* fuzz_crypto_account.h - the bot account of fuzz_matrix_crypto's seed corpus,\n"
        " * written with it by gen_crypto_corpus.c (a pickle under the key below). */\n"
        "#ifndef TESTS_MATRIX_FUZZ_CRYPTO_ACCOUNT_H\n#define TESTS_MATRIX_FUZZ_CRYPTO_ACCOUNT_H\n"
        "#define FUZZ_CRYPTO_BOT \"%s\"\n#define FUZZ_CRYPTO_DEVICE \"%s\"\n"
        "#define FUZZ_CRYPTO_PICKLE_KEY \"%s\"\n#define FUZZ_CRYPTO_ACCOUNT \\\n",
        BOT, DEVICE, KEY);
    for (size_t i = 0; i < strlen(pickle); i += 90)
        fprintf(h, "    \"%.90s\"%s\n", pickle + i, i + 90 < strlen(pickle) ? " \\" : "");
    fprintf(h, "#endif\n");
    fclose(h);
    free(pickle);
    return 0;
}
