/*
 * test_render.c - rules events to messages. A real game is driven through
 * trades, a pause, a drop, a kick, the tribunal and the end; every message
 * is recorded and checked for who may see it and what it may say.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include <cmocka.h>

#include "bot/render.h"
#include "core/catalog.h"
#include "core/illegal/module.h"
#include "core/text.h"

/* The Illegal state of a game. */
#define IL(g) ((struct il_state *)(g)->state)

#define T0 1700000000000LL

/* ---- recording ------------------------------------------------------------ */

struct sent {
    enum outbound_kind kind;
    char *channel, *user, *key, *text;
    bool replace;
    struct json_object *data; /* a deep copy */
    enum il_event_type event; /* what was being rendered */
    int audience;
};

struct rec {
    struct sent *v;
    size_t n, cap;
    enum il_event_type event;
    int audience;
};

static char *dup_or_null(const char *s)
{
    if (!s)
        return NULL;
    char *d = strdup(s);
    assert_non_null(d);
    return d;
}

static void record(void *arg, const struct outbound *m)
{
    struct rec *r = arg;
    if (r->n == r->cap) {
        r->cap = r->cap ? r->cap * 2 : 256;
        r->v = realloc(r->v, r->cap * sizeof *r->v);
        assert_non_null(r->v);
    }
    struct sent *s = &r->v[r->n++];
    s->kind = m->kind;
    s->channel = dup_or_null(m->channel);
    s->user = dup_or_null(m->user);
    s->key = dup_or_null(m->key);
    s->text = dup_or_null(m->text);
    s->replace = m->replace;
    s->data = m->data ? json_tokener_parse(
                            json_object_to_json_string((struct json_object *)(uintptr_t)m->data))
                      : NULL;
    s->event = r->event;
    s->audience = r->audience;
    /* Exactly one of channel and user; text always complete. */
    assert_true((m->channel != NULL) != (m->user != NULL));
    assert_non_null(m->text);
    assert_true(m->text[0] != '\0');
}

/* What the module renders, as the dispatcher turns it into an outbound
 * message: `arg` is a struct module_rec. */
struct module_rec {
    struct rec *rec;
    const struct game *g;
};

static void record_rules(void *arg, const struct rules_msg *m)
{
    struct module_rec *mr = arg;
    char key[MSG_KEY_MAX];
    struct outbound o = {.kind = m->kind, .replace = m->replace, .text = m->text, .data = m->data};
    assert_true(m->audience == MSG_TABLE ||
                (m->audience >= 0 && (unsigned)m->audience < mr->g->nseats));
    if (m->audience == MSG_TABLE)
        o.channel = mr->g->table;
    else
        o.user = mr->g->seats[m->audience].user;
    if (m->key) {
        assert_int_equal(msg_key_format(m->key, key, sizeof key), 0);
        o.key = key;
    }
    record(mr->rec, &o);
}

/* Renders through the module, recording into r. */
static void render_hand(const struct game *g, unsigned seat, bool fresh, struct rec *r)
{
    struct game_view v;
    struct module_rec mr = {r, g};
    game_view(g, &v);
    il_render_private(g->state, &v.t, seat, fresh, record_rules, &mr);
}

static void render_event(const struct game *g, const struct il_event *e, struct rec *r)
{
    struct game_view v;
    struct module_rec mr = {r, g};
    game_view(g, &v);
    il_render_event(g->state, &v.t, e, record_rules, &mr);
}

static void render_events(const struct game *g, const struct il_events *ev, struct rec *r)
{
    struct game_view v;
    struct module_rec mr = {r, g};
    game_view(g, &v);
    il_render(g->state, &v.t, ev, record_rules, &mr);
}

static void rec_free(struct rec *r)
{
    for (size_t i = 0; i < r->n; i++) {
        free(r->v[i].channel);
        free(r->v[i].user);
        free(r->v[i].key);
        free(r->v[i].text);
        json_object_put(r->v[i].data);
    }
    free(r->v);
    memset(r, 0, sizeof *r);
}

/* ---- driving a game ------------------------------------------------------- */

static const char *const users[] = {"alice", "bob", "carol", "dave", "erin"};
static const char *const names[] = {"Alice", "Bob", "Carol", "Dave", "Erin"};

struct drive {
    struct game g;
    struct il_state st;
    struct il_events ev;
    struct rec rec;
    int64_t now;
    unsigned seen[64]; /* events rendered, by type */
};

/* Renders each event on its own, the way render_events() sees them. */
static void drive_render(struct drive *d)
{
    il_render_note(IL(&d->g), &d->ev);
    for (unsigned i = 0; i < d->ev.n; i++) {
        const struct il_event *e = &d->ev.v[i];
        d->rec.event = e->type;
        d->rec.audience = e->audience;
        size_t before = d->rec.n;
        render_event(&d->g, e, &d->rec);
        /* Every event says something, but each reveal is a line of the result
         * and a casual drop ends without a drop message. */
        if (e->type != IL_EV_REVEAL && !(e->type == IL_EV_DROP_DONE && !IL(&d->g)->drop.count))
            assert_true(d->rec.n > before);
        d->seen[e->type]++;
    }
}

/* Keeps the reminder bookkeeping the way the dispatcher does. */
static void track(struct drive *d)
{
    int64_t dl = il_game_deadline(&IL(&d->g)->game);
    if (dl != d->g.tracked_deadline) {
        d->g.tracked_deadline = dl;
        d->g.phase_length = dl ? dl - d->now : 0;
    }
}

static void drive_start(struct drive *d, unsigned n, enum il_variant v, uint64_t seed)
{
    memset(d, 0, sizeof *d);
    struct game *g = &d->g;
    g->rules = &il_module;
    g->state = &d->st;
    snprintf(g->id, sizeof g->id, "g7");
    snprintf(g->table, sizeof g->table, "table-1");
    snprintf(g->host, sizeof g->host, "alice");
    snprintf(g->language, sizeof g->language, "en");
    il_config_default(&IL(g)->config, v);
    g->nseats = n;
    for (unsigned i = 0; i < n; i++) {
        snprintf(g->seats[i].user, sizeof g->seats[i].user, "%s", users[i]);
        snprintf(g->seats[i].name, sizeof g->seats[i].name, "%s", names[i]);
    }
    g->seed = seed;
    rng_seed(&g->rng, seed);
    d->now = T0;
    assert_int_equal(il_game_setup(&IL(g)->game, &IL(g)->config, n, d->now, &g->rng, &d->ev),
                     IL_OK);
    g->started = true;
    track(d);
    drive_render(d);
}

static void apply(struct drive *d, struct il_action a)
{
    d->ev.n = 0;
    enum il_error e = il_game_apply(&IL(&d->g)->game, &a, d->now, &d->g.rng, &d->ev);
    if (e != IL_OK)
        fail_msg("action %d by %d: %s", (int)a.type, a.player, il_error_id(e));
    track(d);
    drive_render(d);
}

static void tick(struct drive *d)
{
    assert_int_not_equal(IL(&d->g)->game.deadline, 0);
    d->now = IL(&d->g)->game.deadline;
    struct il_action a = {.type = IL_ACT_TICK};
    apply(d, a);
}

static struct il_action offer(int from, int to, unsigned give_res, unsigned give_n)
{
    struct il_action a = {.type = IL_ACT_OFFER, .player = (int8_t)from, .target = (int8_t)to};
    a.give.n[give_res] = (uint8_t)give_n;
    return a;
}

static struct il_action on_offer(enum il_action_type t, int player, uint32_t id)
{
    struct il_action a = {.type = t, .player = (int8_t)player, .offer_id = id};
    return a;
}

static struct il_action gm(enum il_action_type t)
{
    struct il_action a = {.type = t, .player = IL_GM};
    return a;
}

/* Plays a whole standard game with every kind of event. */
static void play_full_game(struct drive *d)
{
    drive_start(d, 5, IL_VARIANT_STANDARD, 11);
    const struct il_game *s = &IL(&d->g)->game;

    /* Session 1: an accepted gift, a declined and a cancelled offer, one left to expire. */
    apply(d, offer(0, 1, s->players[0].dealer, 2)); /* #1 */
    apply(d, on_offer(IL_ACT_ACCEPT, 1, 1));
    apply(d, offer(2, 3, s->players[2].dealer, 1)); /* #2 */
    apply(d, on_offer(IL_ACT_DECLINE, 3, 2));
    apply(d, offer(3, 4, s->players[3].dealer, 1)); /* #3 */
    apply(d, on_offer(IL_ACT_CANCEL, 3, 3));
    apply(d, offer(4, 0, s->players[4].dealer, 1)); /* #4 expires */
    d->now += 5000;
    apply(d, gm(IL_ACT_PAUSE));
    d->now += 60000;
    apply(d, gm(IL_ACT_RESUME));
    struct il_action ext = gm(IL_ACT_EXTEND);
    ext.ms = 60000;
    apply(d, ext);
    struct il_action timer = gm(IL_ACT_SET_TIMER);
    timer.timer = IL_TIMER_VOTE;
    timer.ms = 20000;
    apply(d, timer);

    bool kicked = false;
    unsigned last_grab_drop = 0, votes_cast = 0;
    int voted_case = -1;
    for (int i = 0; i < 2000 && s->phase != IL_PHASE_OVER; i++) {
        if (s->phase == IL_PHASE_DROP_GRAB && last_grab_drop != s->drops) {
            /* Seats 0 and 1 grab; the others get the leftovers. */
            last_grab_drop = s->drops;
            for (int seat = 0; seat < 2; seat++)
                for (unsigned c = 0; c < s->drop_count; c++)
                    if (!s->drop_taken[c]) {
                        struct il_action a = {.type = IL_ACT_GRAB,
                                              .player = (int8_t)seat,
                                              .resource = s->drop_cards[c]};
                        apply(d, a);
                        break;
                    }
            continue;
        }
        if (s->phase == IL_PHASE_DEALING && s->session == 2 && !kicked) {
            kicked = true;
            struct il_action k = gm(IL_ACT_KICK);
            k.target = 4;
            apply(d, k);
            continue;
        }
        if (s->phase == IL_PHASE_VOTE && voted_case != s->case_index) {
            voted_case = s->case_index;
            /* Seats 0, 2 and 3 vote for seat 1, seat 1 for seat 0; then seat 3
             * withdraws its vote. */
            for (int seat = 0; seat < 4; seat++) {
                struct il_action v = {.type = IL_ACT_VOTE,
                                      .player = (int8_t)seat,
                                      .target = seat == 1 ? 0 : 1,
                                      .number = s->case_index};
                apply(d, v);
                votes_cast++;
            }
            struct il_action ab = {.type = IL_ACT_ABSTAIN, .player = 3, .number = s->case_index};
            apply(d, ab);
            continue;
        }
        tick(d);
    }
    assert_int_equal(s->phase, IL_PHASE_OVER);
    assert_true(kicked);
    assert_true(votes_cast > 0);
}

/* ---- checks --------------------------------------------------------------- */

static bool has_unfilled_placeholder(const char *text)
{
    const char *open = strchr(text, '{');
    return open && strchr(open, '}');
}

/* True when text holds name not directly preceded by "Suspect: ". */
static bool bare_mention(const char *text, const char *name)
{
    for (const char *p = strstr(text, name); p; p = strstr(p + 1, name))
        if (p - text < 9 || strncmp(p - 9, "Suspect: ", 9) != 0)
            return true;
    return false;
}

/* True when text holds "<count> <resource name>": somebody's cards. */
static bool counted_cards(const char *text)
{
    char key[64];
    for (unsigned r = 0; r < IL_RESOURCES; r++) {
        snprintf(key, sizeof key, "illegal.card.%s", il_resource_id(r));
        const char *name = catalog_text("en", key);
        for (const char *p = strstr(text, name); p; p = strstr(p + 1, name))
            if (p - text >= 2 && p[-1] == ' ' && p[-2] >= '0' && p[-2] <= '9')
                return true;
    }
    return false;
}

static bool data_has(const struct sent *s, const char *k)
{
    struct json_object *v;
    return s->data && json_object_object_get_ex(s->data, k, &v);
}

static void check_table_message(const struct drive *d, const struct sent *s)
{
    char key[64];
    assert_string_equal(s->channel, d->g.table);
    assert_null(s->user);
    assert_true(s->audience == IL_PUBLIC);
    /* The rules reveal roles and hands at the very end only. */
    bool revealed = s->event == IL_EV_REVEAL || s->event == IL_EV_GAME_OVER;
    if (!revealed) {
        for (unsigned t = IL_RESOURCES; t < IL_CARD(IL_KIND_DEALER_SUSPECT, 0); t++) {
            snprintf(key, sizeof key, "illegal.card.%s", il_card_id(t));
            if (bare_mention(s->text, catalog_text("en", key)))
                fail_msg("a role in public: \"%s\"", s->text);
        }
        if (counted_cards(s->text))
            fail_msg("cards in public: \"%s\"", s->text);
    }
    if (strstr(s->text, "Offer #") || strstr(s->text, "offer #") || strstr(s->text, "Your ") ||
        strstr(s->text, "You "))
        fail_msg("a private message in public: \"%s\"", s->text);
    assert_false(data_has(s, "hand"));
    assert_false(data_has(s, "dealer"));
    assert_false(data_has(s, "buyer"));
    assert_false(data_has(s, "offer"));
    assert_false(data_has(s, "give"));
    assert_false(data_has(s, "ask"));
    assert_true(s->kind != OUT_PRIVATE_VIEW && s->kind != OUT_PROMPT);
    assert_true(s->event != IL_EV_VOTE_RECORDED && s->event != IL_EV_DEALT &&
                s->event != IL_EV_HAND && s->event != IL_EV_DREW);
}

static void check_dm(const struct drive *d, const struct sent *s)
{
    assert_null(s->channel);
    assert_true(s->audience >= 0 && (unsigned)s->audience < d->g.nseats);
    /* To the one seat the event is for. */
    assert_string_equal(s->user, d->g.seats[s->audience].user);
    if (s->kind == OUT_PRIVATE_VIEW) {
        char key[64];
        snprintf(key, sizeof key, "%s/hand/%s", d->g.id, s->user);
        assert_true(s->replace);
        assert_string_equal(s->key, key);
    }
}

/* A drop is a table view whose choices, while it is open, are its cards,
 * each a reaction, the first to react taking it. */
static void check_drop(const struct sent *s)
{
    struct json_object *open, *shown, *choices, *v;
    assert_true(json_object_object_get_ex(s->data, "open", &open));
    assert_true(json_object_object_get_ex(s->data, "shown", &shown));
    assert_true(json_object_object_get_ex(s->data, "title", &v));
    assert_string_equal(json_object_get_string(v), "illegal.ui.title-drop");
    if (!json_object_get_boolean(open)) {
        assert_false(data_has(s, "choices"));
        return;
    }
    assert_true(json_object_object_get_ex(s->data, "pick", &v));
    assert_string_equal(json_object_get_string(v), "first");
    assert_true(json_object_object_get_ex(s->data, "choices", &choices));
    assert_int_equal(json_object_array_length(choices), json_object_array_length(shown));
    for (size_t i = 0; i < json_object_array_length(choices); i++) {
        struct json_object *c = json_object_array_get_idx(choices, i);
        int r = il_emoji_resource(json_object_get_string(json_object_object_get(c, "emoji")));
        assert_true(r >= 0);
        assert_string_equal(il_resource_id((unsigned)r),
                            json_object_get_string(json_object_object_get(c, "card")));
        assert_string_equal(json_object_get_string(json_object_array_get_idx(shown, i)),
                            json_object_get_string(json_object_object_get(c, "card")));
        assert_false(json_object_object_get_ex(c, "command", NULL)); /* a reaction chooses it */
    }
}

/* A ballot's choices: a vote for each candidate, which every voter but the
 * candidate may cast, then abstaining, which anyone may. */
static void check_ballot(const struct sent *s)
{
    struct json_object *cands, *choices;
    assert_true(json_object_object_get_ex(s->data, "candidates", &cands));
    assert_int_equal(json_object_array_length(cands), 4);
    assert_true(json_object_object_get_ex(s->data, "choices", &choices));
    assert_int_equal(json_object_array_length(choices), 5);
    for (size_t i = 0; i < 4; i++) {
        struct json_object *c = json_object_array_get_idx(choices, i), *by;
        const char *id = json_object_get_string(
            json_object_object_get(json_object_array_get_idx(cands, i), "id"));
        char want[64];
        snprintf(want, sizeof want, "vote %s", id);
        assert_string_equal(json_object_get_string(json_object_object_get(c, "command")), want);
        assert_string_equal(json_object_get_string(json_object_object_get(c, "player")), id);
        assert_true(json_object_object_get_ex(c, "by", &by));
        assert_int_equal(json_object_array_length(by), 3);
        for (size_t k = 0; k < 3; k++)
            assert_string_not_equal(json_object_get_string(json_object_array_get_idx(by, k)), id);
    }
    struct json_object *abstain = json_object_array_get_idx(choices, 4);
    assert_string_equal(json_object_get_string(json_object_object_get(abstain, "command")),
                        "abstain");
    assert_false(json_object_object_get_ex(abstain, "by", NULL));
}

static void test_full_game_messages(void **state)
{
    (void)state;
    struct drive *d = calloc(1, sizeof *d);
    assert_non_null(d);
    play_full_game(d);

    static const enum il_event_type expected[] = {
        IL_EV_GAME_STARTED,    IL_EV_DEALT,          IL_EV_SESSION_OPENED, IL_EV_SESSION_CLOSED,
        IL_EV_OFFER_MADE,      IL_EV_OFFER_ACCEPTED, IL_EV_OFFER_DECLINED, IL_EV_OFFER_CANCELLED,
        IL_EV_OFFER_EXPIRED,   IL_EV_HAND,           IL_EV_DROP_STARTED,   IL_EV_DROP_REVEALED,
        IL_EV_GRAB_OPENED,     IL_EV_GRABBED,        IL_EV_LEFTOVER,       IL_EV_DROP_DONE,
        IL_EV_TRIBUNAL_OPENED, IL_EV_CASE_OPENED,    IL_EV_VOTE_OPENED,    IL_EV_VOTE_RECORDED,
        IL_EV_VERDICT,         IL_EV_REVEAL,         IL_EV_GAME_OVER,      IL_EV_PAUSED,
        IL_EV_RESUMED,         IL_EV_EXTENDED,       IL_EV_PLAYER_REMOVED, IL_EV_TIMER_SET,
    };
    for (size_t i = 0; i < sizeof expected / sizeof *expected; i++)
        if (!d->seen[expected[i]])
            fail_msg("event %d never came", (int)expected[i]);

    unsigned table = 0, dms = 0, hands = 0, drops = 0, open_drops = 0, game_over = 0;
    for (size_t i = 0; i < d->rec.n; i++) {
        const struct sent *s = &d->rec.v[i];
        if (has_unfilled_placeholder(s->text))
            fail_msg("unfilled placeholder: \"%s\"", s->text);
        if (strncmp(s->text, "msg.", 4) == 0 || strncmp(s->text, IL_KEYS, strlen(IL_KEYS)) == 0)
            fail_msg("missing catalog text: \"%s\"", s->text);
        assert_non_null(s->data);
        struct json_object *v;
        assert_true(json_object_object_get_ex(s->data, "game", &v));
        assert_string_equal(json_object_get_string(v), "g7");
        if (s->channel) {
            check_table_message(d, s);
            table++;
        } else {
            check_dm(d, s);
            dms++;
        }
        if (s->kind == OUT_PRIVATE_VIEW)
            hands++;
        if (s->kind == OUT_TABLE_VIEW) {
            check_drop(s);
            drops++;
            open_drops += data_has(s, "choices");
        }
        if (s->kind == OUT_GAME_OVER) {
            game_over++;
            struct json_object *scores, *winners;
            assert_true(json_object_object_get_ex(s->data, "scores", &scores));
            assert_true(json_object_object_get_ex(s->data, "winners", &winners));
            /* The removed player has no score. */
            assert_int_equal(json_object_object_length(scores), 4);
            assert_false(json_object_object_get_ex(scores, "erin", &v));
            assert_true(json_object_array_length(winners) >= 1);
        }
        if (s->kind == OUT_BALLOT)
            check_ballot(s);
    }
    assert_true(table > 0 && dms > 0);
    assert_true(hands >= 5);
    assert_true(drops > 0 && open_drops > 0 && open_drops < drops);
    assert_int_equal(game_over, 1);
    rec_free(&d->rec);
    free(d);
}

/* The i-th choice of s is command, labelled label_key with tag, in tone
 * (NULL: none); and a label adapters write "Accept #1". */
static void check_choice(const struct sent *s, size_t i, const char *command, const char *label_key,
                         const char *tag, const char *tone)
{
    struct json_object *choices, *v;
    assert_true(json_object_object_get_ex(s->data, "choices", &choices));
    struct json_object *c = json_object_array_get_idx(choices, i);
    assert_non_null(c);
    assert_string_equal(json_object_get_string(json_object_object_get(c, "command")), command);
    assert_string_equal(json_object_get_string(json_object_object_get(c, "label_key")), label_key);
    assert_string_equal(json_object_get_string(json_object_object_get(c, "tag")), tag);
    assert_int_equal(json_object_object_get_ex(c, "tone", &v), tone != NULL);
    if (tone)
        assert_string_equal(json_object_get_string(v), tone);
    char label[64], want[64];
    msg_choice_label(c, "en", label, sizeof label);
    snprintf(want, sizeof want, "%s %s", catalog_text("en", label_key), tag);
    assert_string_equal(label, want);
}

/* Texts of the messages recorded for events of one type. */
static const struct sent *find(const struct drive *d, enum il_event_type t, const char *user,
                               unsigned n)
{
    for (size_t i = 0; i < d->rec.n; i++)
        if (d->rec.v[i].event == t &&
            (!user || (d->rec.v[i].user && strcmp(d->rec.v[i].user, user) == 0)) && n-- == 0)
            return &d->rec.v[i];
    return NULL;
}

static void test_specific_texts(void **state)
{
    (void)state;
    struct drive *d = calloc(1, sizeof *d);
    assert_non_null(d);
    play_full_game(d);

    /* Offer #1 went to both sides with the exact cards, and its number. */
    const struct sent *s = find(d, IL_EV_OFFER_MADE, "bob", 0);
    assert_non_null(s);
    assert_int_equal(s->kind, OUT_PROMPT);
    assert_non_null(strstr(s->text, "Offer #1 from Alice"));
    assert_non_null(strstr(s->text, "accept 1"));
    assert_string_equal(s->key, "g7/offer/1/bob");
    check_choice(s, 0, "accept 1", "ui.accept", "#1", "yes");
    check_choice(s, 1, "decline 1", "ui.decline", "#1", "no");
    s = find(d, IL_EV_OFFER_MADE, "alice", 0);
    assert_non_null(s);
    assert_non_null(strstr(s->text, "Offer #1 to Bob: you give 2 "));
    assert_non_null(strstr(s->text, "cancel 1"));
    check_choice(s, 0, "cancel 1", "ui.cancel", "#1", NULL);

    /* The whole-hand message at the deal. */
    s = find(d, IL_EV_DEALT, "carol", 1);
    assert_non_null(s);
    assert_int_equal(s->kind, OUT_PRIVATE_VIEW);
    assert_non_null(strstr(s->text, "Your roles: "));

    /* Resumed and extended announce the time the rules give. */
    char want[64], dur[32];
    for (size_t i = 0; i < d->rec.n; i++)
        if (d->rec.v[i].event == IL_EV_TRIBUNAL_OPENED) {
            snprintf(want, sizeof want, "%u cases", IL(&d->g)->game.ncases);
            assert_non_null(strstr(d->rec.v[i].text, want));
        }
    s = find(d, IL_EV_RESUMED, NULL, 0);
    assert_non_null(s);
    text_duration(dur, sizeof dur, "en", IL(&d->g)->config.timer_ms[IL_TIMER_SESSION] - 5000);
    snprintf(want, sizeof want, "The game resumes: %s left.", dur);
    assert_string_equal(s->text, want);
    s = find(d, IL_EV_EXTENDED, NULL, 0);
    assert_non_null(s);
    text_duration(dur, sizeof dur, "en",
                  IL(&d->g)->config.timer_ms[IL_TIMER_SESSION] - 5000 + 60000);
    snprintf(want, sizeof want, "Extra time: %s left.", dur);
    assert_string_equal(s->text, want);
    s = find(d, IL_EV_TIMER_SET, NULL, 0);
    assert_string_equal(s->text, "From now on, vote lasts 20 s.");
    s = find(d, IL_EV_PLAYER_REMOVED, NULL, 0);
    assert_string_equal(s->text, "Erin has left the game.");

    /* Votes are acknowledged in private only. */
    s = find(d, IL_EV_VOTE_RECORDED, "alice", 0);
    assert_non_null(s);
    assert_non_null(strstr(s->text, "Your vote on case 1: Bob."));
    s = find(d, IL_EV_VOTE_RECORDED, "dave", 1);
    assert_non_null(s);
    assert_string_equal(s->text, "You abstain on case 1.");

    /* The result reveals every active player, in public, in rank order. */
    s = find(d, IL_EV_GAME_OVER, NULL, 0);
    assert_non_null(s);
    assert_int_equal(s->kind, OUT_RESULT);
    assert_true(strncmp(s->text, "Game over! Winner: ", 19) == 0);
    struct json_object *reveal;
    assert_true(json_object_object_get_ex(s->data, "reveal", &reveal));
    assert_int_equal(json_object_array_length(reveal), 4);
    const char *line = strchr(s->text, '\n');
    int last_rank = 0, last_score = 1000;
    for (size_t i = 0; i < 4; i++) {
        struct json_object *r = json_object_array_get_idx(reveal, i), *v;
        assert_true(json_object_object_get_ex(r, "rank", &v));
        int rank = json_object_get_int(v);
        assert_true(json_object_object_get_ex(r, "score", &v));
        int score = json_object_get_int(v);
        assert_true(rank >= last_rank && score <= last_score);
        assert_true(rank == last_rank ? score == last_score : score < last_score);
        last_rank = rank;
        last_score = score;
        /* One line per player, in the same order, naming their roles. */
        assert_non_null(line);
        snprintf(want, sizeof want, "\n%d. ", rank);
        assert_true(strncmp(line, want, strlen(want)) == 0);
        assert_non_null(strstr(line, " and The "));
        line = strchr(line + 1, '\n');
    }
    assert_null(line);
    assert_null(strstr(s->text, "Erin"));
    rec_free(&d->rec);
    free(d);
}

/* The recap after the results: the trade, each case's votes by name, the
 * awards; after the results, before the game-over message. */
static void test_recap(void **state)
{
    (void)state;
    struct drive *d = calloc(1, sizeof *d);
    assert_non_null(d);
    play_full_game(d);
    const struct sent *trades = NULL, *votes = NULL, *awards = NULL;
    size_t result = 0, over = 0;
    for (size_t i = 0; i < d->rec.n; i++) {
        const struct sent *s = &d->rec.v[i];
        const char *event = json_object_get_string(json_object_object_get(s->data, "event"));
        if (s->kind == OUT_RESULT)
            result = i;
        if (s->kind == OUT_GAME_OVER)
            over = i;
        if (!event)
            continue;
        if (strcmp(event, "recap-trades") == 0)
            trades = s;
        if (strcmp(event, "recap-votes") == 0)
            votes = s;
        if (strcmp(event, "recap-awards") == 0)
            awards = s;
    }
    assert_non_null(trades);
    assert_non_null(votes);
    assert_non_null(awards);
    assert_true(result < (size_t)(trades - d->rec.v) && (size_t)(awards - d->rec.v) < over);
    assert_non_null(trades->channel); /* told at the table */
    /* The one trade: Alice's gift of 2 of her goods to Bob in session 1. */
    assert_non_null(strstr(trades->text, "Recap: 1 trade."));
    assert_non_null(strstr(trades->text, "Session 1: Alice gave 2 "));
    assert_non_null(strstr(trades->text, " to Bob for nothing."));
    /* Every case, with the votes of the four still playing. */
    const struct il_game *g = &IL(&d->g)->game;
    for (unsigned k = 0; k < g->ncases; k++) {
        char want[32];
        snprintf(want, sizeof want, "Case %u (", k + 1);
        assert_non_null(strstr(votes->text, want));
    }
    assert_non_null(strstr(votes->text, "Carol voted Bob"));
    assert_null(strstr(votes->text, "Erin")); /* kicked in session 2 */
    assert_non_null(strstr(awards->text, "Best dealer: Alice, who sold 2 cards"));
    assert_non_null(strstr(awards->text, "Busiest trader: Alice, with 1 trade."));
    rec_free(&d->rec);
    free(d);
}

static void test_casual_draws_in_private(void **state)
{
    (void)state;
    struct drive *d = calloc(1, sizeof *d);
    assert_non_null(d);
    drive_start(d, 4, IL_VARIANT_CASUAL, 5);
    for (int i = 0; i < 50 && !d->seen[IL_EV_DREW]; i++)
        tick(d);
    assert_true(d->seen[IL_EV_DREW] >= 4);
    for (size_t i = 0; i < d->rec.n; i++) {
        const struct sent *s = &d->rec.v[i];
        if (s->channel)
            check_table_message(d, s);
        else
            check_dm(d, s);
        if (s->event == IL_EV_DREW) {
            assert_null(s->channel);
            assert_non_null(strstr(s->text, "You drew "));
        }
    }
    const struct sent *s = find(d, IL_EV_DROP_STARTED, NULL, 0);
    assert_string_equal(s->text, "Drop 1 of 4: each player draws one card in private.");
    rec_free(&d->rec);
    free(d);
}

/* A player who reads another language than the table's gets their private
 * messages in it, and their own ballot; the table's stay in its language. */
static void test_reader_language(void **state)
{
    (void)state;
    struct drive *d = calloc(1, sizeof *d);
    assert_non_null(d);
    drive_start(d, 4, IL_VARIANT_STANDARD, 5);
    snprintf(d->g.seats[1].language, sizeof d->g.seats[1].language, "de");
    size_t from = d->rec.n;
    for (int i = 0; i < 200 && !d->seen[IL_EV_VOTE_OPENED]; i++)
        tick(d);
    assert_true(d->seen[IL_EV_VOTE_OPENED] > 0);
    unsigned to_bob = 0;
    for (size_t i = from; i < d->rec.n; i++) {
        const struct sent *s = &d->rec.v[i];
        const char *lang = json_object_get_string(json_object_object_get(s->data, "lang"));
        bool bob = s->user && strcmp(s->user, users[1]) == 0;
        assert_non_null(lang);
        assert_string_equal(lang, bob ? "de" : "en");
        /* and each names its module, for the page's drawing of it */
        const char *module = json_object_get_string(json_object_object_get(s->data, "module"));
        assert_non_null(module);
        assert_string_equal(module, "illegal");
        to_bob += bob;
        if (s->kind == OUT_BALLOT) {
            struct json_object *own = json_object_object_get(s->data, "ballot_for");
            const char *ballot = json_object_get_string(json_object_object_get(own, users[1]));
            assert_non_null(ballot);
            assert_int_equal(json_object_object_length(own), 1); /* only the one who differs */
            char want[64];
            snprintf(want, sizeof want, "%.12s", catalog_text("de", "illegal.msg.ballot"));
            assert_memory_equal(ballot, want, strlen(want));
        }
    }
    assert_true(to_bob > 0);
    rec_free(&d->rec);
    free(d);
}

static void test_render_hand_fresh(void **state)
{
    (void)state;
    struct drive *d = calloc(1, sizeof *d);
    assert_non_null(d);
    drive_start(d, 4, IL_VARIANT_STANDARD, 3);
    size_t before = d->rec.n;
    render_hand(&d->g, 2, true, &d->rec);
    assert_int_equal(d->rec.n, before + 1);
    const struct sent *s = &d->rec.v[before];
    assert_int_equal(s->kind, OUT_PRIVATE_VIEW);
    assert_false(s->replace); /* asked for: a new message */
    assert_string_equal(s->key, "g7/hand/carol");
    assert_string_equal(s->user, "carol");
    assert_null(s->channel);
    struct json_object *players;
    assert_true(json_object_object_get_ex(s->data, "players", &players));
    assert_int_equal(json_object_array_length(players), 3);
    render_hand(&d->g, 2, false, &d->rec);
    assert_true(d->rec.v[before + 1].replace);
    rec_free(&d->rec);
    free(d);
}

/* Messages of one change rendered the way the dispatcher sends them. */
static void batch(struct drive *d, struct il_action a, struct rec *out)
{
    d->ev.n = 0;
    assert_int_equal(il_game_apply(&IL(&d->g)->game, &a, d->now, &d->g.rng, &d->ev), IL_OK);
    il_render_note(IL(&d->g), &d->ev);
    out->audience = IL_PUBLIC;
    render_events(&d->g, &d->ev, out);
}

static unsigned count_str(const char *text, const char *needle)
{
    unsigned n = 0;
    for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

/*
 * A drop as the table reads it: each change is one drop edit at most, the
 * last one lists every card and who took it, and the notices of a change are
 * one message. The record of the drop survives the store.
 */
static void test_drop_record_and_batches(void **state)
{
    (void)state;
    struct drive *d = calloc(1, sizeof *d);
    struct rec r = {0};
    assert_non_null(d);
    drive_start(d, 4, IL_VARIANT_STANDARD, 9);
    struct il_action tick_action = {.type = IL_ACT_TICK};
    /* The session ends: its closing and the drop's start are one notice, then the drop. */
    d->now = IL(&d->g)->game.deadline;
    batch(d, tick_action, &r);
    unsigned notices = 0, drops = 0;
    for (size_t i = 0; i < r.n; i++) {
        if (!r.v[i].channel)
            continue;
        if (r.v[i].kind == OUT_NOTICE) {
            notices++;
            struct json_object *events;
            assert_true(json_object_object_get_ex(r.v[i].data, "events", &events));
            assert_int_equal(json_object_array_length(events), 2);
            assert_non_null(strchr(r.v[i].text, '\n'));
            assert_int_equal(drops, 0); /* the notice comes first */
        } else if (r.v[i].kind == OUT_TABLE_VIEW) {
            drops++;
        }
    }
    assert_int_equal(notices, 1);
    assert_int_equal(drops, 1);
    while (IL(&d->g)->game.phase == IL_PHASE_DROP_REVEAL) {
        d->now = IL(&d->g)->game.deadline;
        batch(d, tick_action, &r);
    }
    assert_int_equal(IL(&d->g)->game.phase, IL_PHASE_DROP_GRAB);
    assert_true(IL(&d->g)->drop.open);

    /* Bob grabs the first card: one edit names him. */
    rec_free(&r);
    struct il_action grab = {
        .type = IL_ACT_GRAB, .player = 1, .resource = IL(&d->g)->game.drop_cards[0]};
    batch(d, grab, &r);
    assert_int_equal(r.n, 2); /* Bob's hand, and the drop edit after the change */
    assert_int_equal(r.v[0].kind, OUT_PRIVATE_VIEW);
    assert_int_equal(r.v[1].kind, OUT_TABLE_VIEW);
    assert_true(r.v[1].replace);
    assert_int_equal(count_str(r.v[1].text, "\xE2\x86\x92 Bob"), 1);

    /* Stored and read back, the record is the same; older records without it
     * get the rules' drop, takers unknown; a damaged one is refused. */
    struct json_object *j = game_to_json(&d->g);
    static struct game back;
    char why[128];
    assert_int_equal(game_from_json(&back, j, why, sizeof why), 0);
    assert_memory_equal(&IL(&back)->drop, &IL(&d->g)->drop, sizeof IL(&back)->drop);
    free(back.state);
    json_object_object_del(j, "drop");
    assert_int_equal(game_from_json(&back, j, why, sizeof why), 0);
    assert_int_equal(IL(&back)->drop.count, IL(&d->g)->drop.count);
    assert_int_equal(IL(&back)->drop.taker[0], IL_DROP_UNKNOWN);
    assert_int_equal(IL(&back)->drop.taker[1], IL_DROP_ON_TABLE);
    json_object_put(j);
    j = game_to_json(&d->g);
    struct json_object *drop, *takers;
    assert_true(json_object_object_get_ex(j, "drop", &drop));
    assert_true(json_object_object_get_ex(drop, "takers", &takers));
    json_object_array_put_idx(takers, 0, json_object_new_int(9));
    assert_int_equal(game_from_json(&back, j, why, sizeof why), -1);
    json_object_put(j);

    /* The grab window ends: leftovers and the end are one last edit that keeps
     * every card with its taker, then the next session's notice. */
    rec_free(&r);
    d->now = IL(&d->g)->game.deadline;
    batch(d, tick_action, &r);
    drops = notices = 0;
    for (size_t i = 0; i < r.n; i++) {
        if (!r.v[i].channel)
            continue;
        if (r.v[i].kind == OUT_TABLE_VIEW) {
            drops++;
            assert_true(strncmp(r.v[i].text, "Drop 1 is over: ", 16) == 0);
            assert_int_equal(count_str(r.v[i].text, "\xE2\x86\x92 "), 4);
            assert_int_equal(count_str(r.v[i].text, "(left over)"), 3);
            assert_int_equal(notices, 0);
        } else {
            assert_int_equal(r.v[i].kind, OUT_NOTICE);
            notices++;
            assert_non_null(strstr(r.v[i].text, "Dealing session 2 of 5"));
        }
    }
    assert_int_equal(drops, 1);
    assert_int_equal(notices, 1);
    assert_true(IL(&d->g)->drop.done);
    rec_free(&r);
    rec_free(&d->rec);
    free(d);
}

/* A lobby of game g3 at table t9, hosted by alice, in the advanced variant. */
static void lobby_game(struct game *g, struct il_state *st, struct rules_defaults *defaults)
{
    memset(g, 0, sizeof *g);
    memset(st, 0, sizeof *st);
    g->rules = &il_module;
    g->state = st;
    snprintf(g->id, sizeof g->id, "g3");
    snprintf(g->table, sizeof g->table, "t9");
    snprintf(g->host, sizeof g->host, "alice");
    snprintf(g->language, sizeof g->language, "en");
    il_config_default(&IL(g)->config, IL_VARIANT_ADVANCED);
    rules_defaults_init(&il_module, defaults);
}

static void test_render_lobby(void **state)
{
    (void)state;
    static struct game g;
    static struct il_state st;
    struct rec r = {0};
    struct rules_defaults defaults;
    lobby_game(&g, &st, &defaults);
    r.audience = IL_PUBLIC;
    render_lobby(&g, &defaults, 43200, record, &r);
    g.nseats = 2;
    snprintf(g.seats[0].user, sizeof g.seats[0].user, "alice");
    snprintf(g.seats[1].user, sizeof g.seats[1].user, "bob");
    snprintf(g.seats[1].name, sizeof g.seats[1].name, "Bob");
    render_lobby(&g, &defaults, 43200, record, &r);
    /* A preset sets the variant and every timer; the lobby names it. */
    char shown[64];
    struct il_action unused;
    assert_int_equal(il_module.set(g.state, false, "preset", "quick", "en", &defaults, shown,
                                   sizeof shown, &unused),
                     RULES_SET_DONE);
    render_lobby(&g, &defaults, 43200, record, &r);
    assert_int_equal(
        il_module.set(g.state, false, "grab", "20", "en", &defaults, shown, sizeof shown, &unused),
        RULES_SET_DONE);
    render_lobby(&g, &defaults, 43200, record, &r);
    assert_int_equal(il_module.set(g.state, false, "preset", "casual", "en", &defaults, shown,
                                   sizeof shown, &unused),
                     RULES_SET_DONE);
    render_lobby(&g, &defaults, 43200, record, &r);
    assert_int_equal(il_module.set(g.state, false, "preset", "slow", "en", &defaults, shown,
                                   sizeof shown, &unused),
                     RULES_SET_BAD_VALUE);
    assert_int_equal(il_module.set(g.state, true, "preset", "quick", "en", &defaults, shown,
                                   sizeof shown, &unused),
                     RULES_SET_LOCKED);
    assert_int_equal(r.n, 5);
    struct json_object *settings[5], *v;
    for (unsigned i = 0; i < 5; i++)
        assert_true(json_object_object_get_ex(r.v[i].data, "settings", &settings[i]));
    assert_true(json_object_object_get_ex(settings[0], "preset", &v));
    assert_null(v);
    /* not a preset: the variant, its timers being its own */
    assert_non_null(strstr(r.v[0].text, "Settings: the advanced variant (suspect cards judged one "
                                        "at a time); sessions of 3 min, grabs of 30 s"));
    assert_non_null(strstr(r.v[3].text, "Settings: the standard game, with custom timers; "));
    assert_true(json_object_object_get_ex(settings[2], "preset", &v));
    assert_string_equal(json_object_get_string(v), "quick");
    assert_true(json_object_object_get_ex(settings[2], "session", &v));
    assert_int_equal(json_object_get_int(v), 60);
    assert_true(json_object_object_get_ex(settings[2], "variant", &v));
    assert_string_equal(json_object_get_string(v), "standard");
    assert_non_null(strstr(r.v[2].text, "a quick game"));
    assert_true(json_object_object_get_ex(settings[3], "preset", &v));
    assert_null(v); /* quick, but for the grab */
    assert_true(json_object_object_get_ex(settings[3], "grab", &v));
    assert_int_equal(json_object_get_int(v), 20);
    assert_true(json_object_object_get_ex(settings[4], "preset", &v));
    assert_string_equal(json_object_get_string(v), "casual");
    assert_true(json_object_object_get_ex(settings[4], "session", &v));
    assert_int_equal(json_object_get_int(v), 1200);
    /* the casual preset: no grabs, and a tribunal that waits for the players */
    assert_true(json_object_object_get_ex(settings[4], "tribunal", &v));
    assert_string_equal(json_object_get_string(v), "hold, close-early");
    assert_null(strstr(r.v[4].text, "grabs"));
    assert_non_null(strstr(r.v[4].text, "Tribunal (hold, close-early): it waits for the host's"));
    assert_true(json_object_object_get_ex(r.v[4].data, "presets", &v));
    assert_int_equal(json_object_array_length(v), 3);
    assert_int_equal(r.v[0].kind, OUT_LOBBY);
    assert_string_equal(r.v[0].channel, "t9");
    assert_string_equal(r.v[0].key, "g3/lobby");
    assert_true(r.v[0].replace);
    assert_non_null(strstr(r.v[0].text, "Players 0/8: nobody"));
    assert_non_null(strstr(r.v[1].text, "Players 2/8: alice, Bob"));
    assert_non_null(strstr(r.v[1].text, "(advanced)"));
    assert_non_null(strstr(r.v[4].text, "(casual)"));
    rec_free(&r);
}

/* A variant keeps the timers the host set, and takes its own for the rest. */
static void test_lobby_variant_keeps_timers(void **state)
{
    (void)state;
    static struct game g;
    static struct il_state st;
    struct rules_defaults defaults;
    char shown[64];
    struct il_action unused;
    lobby_game(&g, &st, &defaults);
    assert_int_equal(il_module.set(g.state, false, "preset", "standard", "en", &defaults, shown,
                                   sizeof shown, &unused),
                     RULES_SET_DONE);
    assert_int_equal(
        il_module.set(g.state, false, "grab", "45", "en", &defaults, shown, sizeof shown, &unused),
        RULES_SET_DONE);
    assert_int_equal(il_module.set(g.state, false, "variant", "casual", "en", &defaults, shown,
                                   sizeof shown, &unused),
                     RULES_SET_DONE);
    assert_int_equal(IL(&g)->config.timer_ms[IL_TIMER_GRAB], 45000);
    assert_int_equal(IL(&g)->config.timer_ms[IL_TIMER_SESSION], 1200000);
    assert_int_equal(IL(&g)->config.variant, IL_VARIANT_CASUAL);
    /* so does the tribunal: at the standard's, it takes the casual one... */
    assert_int_equal(IL(&g)->config.tribunal, IL_TRIBUNAL_HOLD | IL_TRIBUNAL_CLOSE_EARLY);
    /* ...and one the host chose stays */
    assert_int_equal(il_module.set(g.state, false, "tribunal", "parallel", "en", &defaults, shown,
                                   sizeof shown, &unused),
                     RULES_SET_DONE);
    assert_int_equal(il_module.set(g.state, false, "variant", "advanced casual", "en", &defaults,
                                   shown, sizeof shown, &unused),
                     RULES_SET_DONE);
    assert_string_equal(shown, "casual-advanced");
    assert_int_equal(IL(&g)->config.tribunal, IL_TRIBUNAL_PARALLEL);
    assert_int_equal(IL(&g)->config.variant, IL_VARIANT_CASUAL_ADVANCED);
}

/* ---- helpers -------------------------------------------------------------- */

static void test_text_fill(void **state)
{
    (void)state;
    char out[256];
    const char *vars[] = {"player", "Alice", "id", "g7", NULL};
    text_fill(out, sizeof out, "en", "msg.ended", vars);
    assert_string_equal(out, "Game g7 was ended by Alice.");
    /* Unknown placeholders stay as they are; so does a lone brace. */
    const char *few[] = {"id", "g7", NULL};
    text_fill(out, sizeof out, "en", "msg.ended", few);
    assert_string_equal(out, "Game g7 was ended by {player}.");
    text_fill(out, sizeof out, "en", "msg.ended", NULL);
    assert_string_equal(out, "Game {id} was ended by {player}.");
    /* A missing key renders as the key. */
    text_fill(out, sizeof out, "en", "msg.no-such-key", vars);
    assert_string_equal(out, "msg.no-such-key");
    text_fill(out, sizeof out, "en", "{player} {nope} {id", vars);
    assert_string_equal(out, "Alice {nope} {id");
    /* A value may itself hold braces: they are not filled again. (Empty and
     * NULL values are in test_render_bugs.c.) */
    const char *odd[] = {"player", "Al", "id", "{player}", NULL};
    text_fill(out, sizeof out, "en", "msg.ended", odd);
    assert_string_equal(out, "Game {player} was ended by Al.");
    /* The same placeholder twice. */
    const char *two[] = {"id", "3", NULL};
    text_fill(out, sizeof out, "en", "illegal.msg.offer-received", two);
    assert_non_null(strstr(out, "Offer #3 from {from}"));
    assert_non_null(strstr(out, "\"accept 3\" or \"decline 3\""));

    /* Truncation always leaves a terminated string within len, even inside a value. */
    char small[8];
    memset(small, 'x', sizeof small);
    text_fill(small, sizeof small, "en", "msg.ended", vars);
    assert_string_equal(small, "Game g7");
    memset(small, 'x', sizeof small);
    const char *big[] = {"player", "Maximilian", "id", "g123456789", NULL};
    text_fill(small, sizeof small, "en", "msg.ended", big);
    assert_string_equal(small, "Game g1");
    text_fill(small, 1, "en", "msg.ended", vars);
    assert_string_equal(small, "");
    for (size_t len = 1; len < 48; len++) {
        char buf[64];
        memset(buf, 'x', sizeof buf);
        text_fill(buf, len, "en", "msg.ended", big);
        assert_true(strlen(buf) < len);
        assert_true(strncmp(buf, "Game g123456789 was ended by Maximilian.", strlen(buf)) == 0);
        for (size_t k = len; k < sizeof buf; k++)
            assert_int_equal(buf[k], 'x');
    }
}

static void test_il_render_cards(void **state)
{
    (void)state;
    char out[256];
    struct il_bundle b = {{0}};
    il_render_cards(out, sizeof out, "en", &b);
    assert_string_equal(out, "nothing");
    b.n[IL_GUNS] = 2;
    b.n[IL_ALCOHOL] = 1;
    il_render_cards(out, sizeof out, "en", &b);
    assert_string_equal(out, "2 Guns, 1 Alcohol");
    b.n[IL_CARD(IL_KIND_DEALER_SUSPECT, IL_CALL_GIRLS)] = 1;
    il_render_cards(out, sizeof out, "en", &b);
    assert_string_equal(out, "2 Guns, 1 Alcohol, Suspect: The Pimp");
    char small[10];
    il_render_cards(small, sizeof small, "en", &b);
    assert_true(strlen(small) < sizeof small);
}

static void test_text_duration(void **state)
{
    (void)state;
    static const struct {
        int64_t ms;
        const char *text;
    } cases[] = {
        {0, "0 s"},
        {1, "1 s"},
        {1000, "1 s"},
        {1500, "2 s"},
        {45000, "45 s"},
        {59000, "59 s"},
        {60000, "1 min"},
        {90000, "1 min 30 s"},
        {180000, "3 min"},
        {20 * 60000, "20 min"},
        {3599000, "59 min 59 s"},
        {3600000, "1 h"},
        {5400000, "1 h 30 min"},
        {3601000, "1 h 1 min"}, /* rounded up: time left is never understated */
        {(1381 * 60 + 40) * 1000LL, "23 h 2 min"},
        {86400000, "1 d"},
        {86400000 + 1, "1 d 1 h"},
        {(2 * 24 + 5) * 3600000LL, "2 d 5 h"},
        {IL_TIMER_MAX_MS, "7 d"},
    };
    char out[64];
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        text_duration(out, sizeof out, "en", cases[i].ms);
        assert_string_equal(out, cases[i].text);
    }
}

/* Every phase a game can be in has words in the catalog. */
static void test_phase_names(void **state)
{
    (void)state;
    char key[64];
    for (unsigned i = 0; il_module.phase_at(i); i++) {
        snprintf(key, sizeof key, "illegal.phase.%s", il_module.phase_at(i));
        assert_non_null(catalog_text("en", key));
    }
}

static void test_text_parse_duration(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int64_t bare_ms, ms;
    } cases[] = {
        {"90", 1000, 90000},
        {"90s", 1000, 90000},
        {"3m", 1000, 180000},
        {"3 min", 1000, 180000},
        {"2h", 1000, 7200000},
        {"2 Hours ", 1000, 7200000},
        {"2d", 1000, 172800000},
        {"5", 60000, 300000},
        {"30d", 1000, 2592000000},
        {"31d", 1000, -1},
        {"0", 1000, -1},
        {"-5m", 1000, -1},
        {"5 weeks", 1000, -1},
        {"m", 1000, -1},
        {"", 1000, -1},
        {"99999999999999999999", 1000, -1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        assert_int_equal(text_parse_duration(cases[i].text, cases[i].bare_ms), cases[i].ms);
}

static void test_il_emoji(void **state)
{
    (void)state;
    char buf[32];
    for (unsigned r = 0; r < IL_RESOURCES; r++) {
        const char *e = il_emoji(r);
        assert_non_null(e);
        assert_int_equal(il_emoji_resource(e), (int)r);
        /* Platforms often add the emoji variation selector U+FE0F. */
        snprintf(buf, sizeof buf, "%s\xEF\xB8\x8F", e);
        assert_int_equal(il_emoji_resource(buf), (int)r);
        /* Anything else after it is another emoji. */
        snprintf(buf, sizeof buf, "%sx", e);
        assert_int_equal(il_emoji_resource(buf), -1);
        snprintf(buf, sizeof buf, "%s\xEF\xB8\x8F\xEF\xB8\x8F", e);
        assert_int_equal(il_emoji_resource(buf), -1);
        /* All distinct. */
        for (unsigned o = 0; o < r; o++)
            assert_string_not_equal(e, il_emoji(o));
    }
    assert_null(il_emoji(IL_RESOURCES));
    assert_null(il_emoji(1000));
    assert_int_equal(il_emoji_resource(NULL), -1);
    assert_int_equal(il_emoji_resource(""), -1);
    assert_int_equal(il_emoji_resource("guns"), -1);
    assert_int_equal(il_emoji_resource("\xEF\xB8\x8F"), -1);
    assert_int_equal(il_emoji_resource("\xF0\x9F\x91\x8D"), -1); /* thumbs up */
    assert_int_equal(il_emoji_resource("\xF0\x9F\x94"), -1);     /* cut short */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_full_game_messages),
        cmocka_unit_test(test_specific_texts),
        cmocka_unit_test(test_casual_draws_in_private),
        cmocka_unit_test(test_render_hand_fresh),
        cmocka_unit_test(test_reader_language),
        cmocka_unit_test(test_recap),
        cmocka_unit_test(test_drop_record_and_batches),
        cmocka_unit_test(test_render_lobby),
        cmocka_unit_test(test_lobby_variant_keeps_timers),
        cmocka_unit_test(test_text_fill),
        cmocka_unit_test(test_il_render_cards),
        cmocka_unit_test(test_text_duration),
        cmocka_unit_test(test_text_parse_duration),
        cmocka_unit_test(test_phase_names),
        cmocka_unit_test(test_il_emoji),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
