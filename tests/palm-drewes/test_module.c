/*
 * test_module.c - Palm & Drewes' Illegal behind the rules module interface:
 * its lobby settings, stored form, results, commands, messages, and the
 * seat's view and computer players over whole games (secrecy: a view, and
 * so every decision of a computer, is the same whatever its seat may not
 * know).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "core/catalog.h"
#include "core/text.h"
#include "core/palm-drewes/module.h"
#include "core/palm-drewes/view.h"
#include "core/palm-drewes/words.h"
#include "driver.h"

static const struct rules_module *m = &pd_module;

/* The daemon's defaults with no configuration: the table's. */
static const struct rules_defaults *defaults(void)
{
    static struct rules_defaults d;
    rules_defaults_init(m, &d);
    return &d;
}

static struct pd_state *lobby(const char *mode)
{
    struct pd_state *s = calloc(1, sizeof *s);
    assert_non_null(s);
    assert_int_equal(m->init(s, mode, defaults()), 0);
    return s;
}

static void test_modes(void **unused)
{
    (void)unused;
    struct pd_state *s = lobby(NULL);
    assert_string_equal(m->mode(s), "live");
    assert_int_equal(m->init(s, "quick", defaults()), 0);
    assert_string_equal(m->mode(s), "quick");
    assert_int_equal(m->init(s, "no-such-mode", defaults()), -1);
    for (unsigned i = 0; m->preset_at(i); i++)
        assert_int_equal(m->init(s, m->preset_at(i), defaults()), 0);
    assert_null(m->preset_at(3));
    assert_int_equal(m->min_players, 2);
    assert_int_equal(m->max_players, 6);
    free(s);
}

static void test_set(void **unused)
{
    (void)unused;
    struct pd_state *s = lobby(NULL);
    struct pd_action a;
    char shown[128];
    assert_int_equal(m->set(s, false, "turn", "90s", "en", defaults(), shown, sizeof shown, &a),
                     RULES_SET_DONE);
    assert_int_equal(s->config.timer_ms[PD_TIMER_TURN], 90000);
    assert_string_equal(m->mode(s), "live"); /* the mode it was opened in: a rematch's */
    struct json_object *o = json_object_new_object();
    char text[512];
    assert_int_equal(m->settings(s, "en", defaults(), o, text, sizeof text), 0);
    assert_null(json_object_object_get(o, "preset")); /* the settings are its own now */
    json_object_put(o);
    assert_int_equal(m->set(s, false, "series", "500k", "en", defaults(), shown, sizeof shown, &a),
                     RULES_SET_DONE);
    assert_int_equal(s->config.series_target, PD_SERIES_SHORT);
    assert_int_equal(m->set(s, false, "series", "7", "en", defaults(), shown, sizeof shown, &a),
                     RULES_SET_BAD_VALUE);
    assert_int_equal(m->set(s, false, "turn", "0s", "en", defaults(), shown, sizeof shown, &a),
                     RULES_SET_BAD_VALUE);
    assert_int_equal(m->set(s, false, "colour", "red", "en", defaults(), shown, sizeof shown, &a),
                     RULES_SET_BAD_KEY);
    assert_int_equal(
        m->set(s, false, "preset", "casual", "en", defaults(), shown, sizeof shown, &a),
        RULES_SET_DONE);
    assert_string_equal(m->mode(s), "casual");
    /* once started: a timer is the host's action, the rest is fixed */
    assert_int_equal(m->set(s, true, "window", "20s", "en", defaults(), shown, sizeof shown, &a),
                     RULES_SET_PLAY);
    assert_int_equal(a.type, PD_ACT_SET_TIMER);
    assert_int_equal(a.player, PD_HOST);
    assert_int_equal(a.timer, PD_TIMER_WINDOW);
    assert_int_equal(a.ms, 20000);
    assert_int_equal(m->set(s, true, "series", "off", "en", defaults(), shown, sizeof shown, &a),
                     RULES_SET_LOCKED);
    assert_int_equal(m->set(s, true, "preset", "live", "en", defaults(), shown, sizeof shown, &a),
                     RULES_SET_LOCKED);
    free(s);
}

static void test_settings_line(void **unused)
{
    (void)unused;
    struct pd_state *s = lobby(NULL);
    static const char *const langs[] = {"en", "de", "es", "fr", "hu", "nl", "pt"};
    for (unsigned i = 0; i < 7; i++) {
        struct json_object *o = json_object_new_object();
        char text[1024];
        assert_int_equal(m->settings(s, langs[i], defaults(), o, text, sizeof text), 0);
        assert_null(strchr(text, '{'));
        assert_string_equal(json_object_get_string(json_object_object_get(o, "preset")), "live");
        assert_int_equal(json_object_get_int(json_object_object_get(o, "turn")), 120);
        json_object_put(o);
    }
    free(s);
}

/* The record of a lobby and of a running game read back byte for byte;
 * damaged ones refused. */
static void test_store(void **unused)
{
    (void)unused;
    struct pd_state *s = lobby("quick"), *back = calloc(1, sizeof *back);
    struct pd_events *ev = calloc(1, sizeof *ev);
    struct rng rng;
    char why[128];
    rng_seed(&rng, 7);
    for (int started = 0; started < 2; started++) {
        if (started)
            assert_int_equal(m->setup(s, 4, 1000, &rng, ev), 0);
        struct json_object *rec = json_object_new_object();
        assert_int_equal(m->save(s, started, rec), 0);
        memset(back, 0x5a, sizeof *back);
        assert_int_equal(m->load(back, started, 4, rec, why, sizeof why), 0);
        if (started)
            assert_memory_equal(back, s, sizeof *s);
        else
            assert_memory_equal(&back->config, &s->config, sizeof s->config);
        assert_int_not_equal(m->load(back, started, 5, rec, why, sizeof why) == 0, started);
        json_object_object_del(rec, "settings");
        assert_int_equal(m->load(back, started, 4, rec, why, sizeof why), -1);
        json_object_put(rec);
    }
    free(s);
    free(back);
    free(ev);
}

/* A series goes on through a rematch, and its totals are the games' scores. */
static void test_rematch_series(void **unused)
{
    (void)unused;
    struct pd_state *s = lobby(NULL), *next = calloc(1, sizeof *next);
    struct pd_events *ev = calloc(1, sizeof *ev);
    struct rng rng;
    struct pd_action a;
    char shown[64];
    rng_seed(&rng, 3);
    assert_int_equal(
        m->set(s, false, "series", "1000000", "en", defaults(), shown, sizeof shown, &a),
        RULES_SET_DONE);
    assert_int_equal(m->setup(s, 3, 1000, &rng, ev), 0);
    pd_action_init(&a, PD_ACT_NEXT, PD_HOST);
    /* time runs out until the pile is empty: a game played out by the rules' defaults */
    for (int i = 0; i < 5000 && !m->over(s); i++)
        assert_int_equal(m->apply(s, &a, 2000 + i, &rng, ev), 0);
    assert_true(m->over(s));
    m->rematch(next, s);
    assert_int_equal(next->series.games, 1);
    for (unsigned seat = 0; seat < 3; seat++)
        assert_int_equal(next->series.totals[seat], s->game.players[seat].score);
    assert_int_equal(m->setup(next, 3, 9000, &rng, ev), 0);
    assert_int_equal(next->game.series.games, 1);
    assert_int_equal(next->game.dealer, (s->game.dealer + 1) % 3);
    free(s);
    free(next);
    free(ev);
}

static void test_results(void **unused)
{
    (void)unused;
    struct pd_state *s = lobby(NULL);
    struct pd_events *ev = calloc(1, sizeof *ev);
    struct rng rng;
    struct pd_action a;
    struct rules_result r;
    rng_seed(&rng, 11);
    assert_int_equal(m->setup(s, 4, 1000, &rng, ev), 0);
    unsigned first = s->game.current;
    assert_string_equal(m->phase(s), "turn");
    assert_string_equal(m->needs(s, first), PD_KEYS "msg.nudge-turn");
    for (unsigned i = 0; i < 7; i++) { /* the bot fills them with the game's id and the time left */
        static const char *const all[] = {"en", "de", "es", "fr", "hu", "nl", "pt"};
        char text[512];
        const char *vars[] = {"id", "g1", "left", "1 min", NULL};
        text_fill(text, sizeof text, all[i], m->needs(s, first), vars);
        assert_null(strchr(text, '{'));
    }
    assert_null(m->needs(s, (first + 1) % 4));
    assert_true(m->deadline(s) > 1000);
    m->steer(&a, RULES_REMOVE, 2, 0);
    assert_int_equal(m->apply(s, &a, 1500, &rng, ev), 0);
    assert_false(m->active(s, 2));
    m->steer(&a, RULES_END, 0, 0);
    assert_int_equal(m->apply(s, &a, 1600, &rng, ev), 0);
    assert_true(m->over(s));
    m->result(s, 2, &r);
    assert_false(r.played);
    m->result(s, 0, &r);
    assert_true(r.played && r.aborted && !r.won);
    for (unsigned i = 0; m->phase_at(i); i++)
        assert_non_null(m->phase_at(i));
    free(s);
    free(ev);
}

/* --- commands through a host that records what the handler did ---------- */

struct host_log {
    struct pd_action played;
    int plays;
    char reply[128];
};

static struct host_log host_log;

static void h_reply(struct command_ctx *x, const char *key, const char *const *vars)
{
    (void)x;
    (void)vars;
    snprintf(host_log.reply, sizeof host_log.reply, "%s", key);
}

static bool h_player(struct command_ctx *x, const char *text, int *seat)
{
    for (unsigned i = 0; i < x->table->nseats; i++)
        if (strcmp(x->table->names[i], text) == 0) {
            *seat = (int)i;
            return true;
        }
    h_reply(x, "resolve.unknown-player", NULL);
    return false;
}

static void h_play(struct command_ctx *x, const void *action)
{
    (void)x;
    memcpy(&host_log.played, action, sizeof host_log.played);
    host_log.plays++;
}

static void h_show(struct command_ctx *x, const struct rules_msg *msg)
{
    (void)x;
    snprintf(host_log.reply, sizeof host_log.reply, "%s", msg->text);
}

static const struct command_host host = {h_reply, h_player, h_play, h_show};
static const char *const names[] = {"ann", "bob", "cy"};
static const char *const users[] = {"u-ann", "u-bob", "u-cy"};
static const char *const langs3[] = {"en", "de", "fr"};
static const struct rules_table table = {"g1", "c1", "en", 3, users, names, langs3};

static const struct command_def *command(const char *word)
{
    for (const struct command_def *d = pd_commands; d->word; d++)
        if (strcmp(d->word, word) == 0)
            return d;
    fail_msg("no command %s", word);
    return NULL;
}

/* Runs "word arg" as seat 0 in lang; returns whether it played an action. */
static bool run(const struct pd_state *s, const char *lang, const char *word, const char *arg,
                const char *arg2, const char *arg3, long number)
{
    struct command c;
    memset(&c, 0, sizeof c);
    c.def = command(word);
    snprintf(c.arg, sizeof c.arg, "%s", arg ? arg : "");
    snprintf(c.arg2, sizeof c.arg2, "%s", arg2 ? arg2 : "");
    snprintf(c.arg3, sizeof c.arg3, "%s", arg3 ? arg3 : "");
    c.number = number;
    struct command_ctx x = {&c, lang, 0, s, &table, &host};
    memset(&host_log, 0, sizeof host_log);
    c.def->run(&x);
    return host_log.plays == 1;
}

struct choices {
    unsigned n;
    char last[64], value[64];
};

static void add_choice(void *arg, const char *name, const char *value)
{
    struct choices *c = arg;
    c->n++;
    snprintf(c->last, sizeof c->last, "%s", name);
    snprintf(c->value, sizeof c->value, "%s", value);
}

/* What a seat may name as it types: the others by name (typed as user id),
 * cards of its own hand only, and any card for what it asks. */
static void test_complete(void **unused)
{
    (void)unused;
    struct pd_state *s = lobby(NULL);
    struct pd_events *ev = calloc(1, sizeof *ev);
    struct rng rng;
    struct choices c = {0};
    rng_seed(&rng, 5);
    assert_int_equal(m->setup(s, 3, 1000, &rng, ev), 0);
    m->complete(s, &table, 0, "offer", "player", "b", add_choice, &c);
    assert_int_equal(c.n, 1);
    assert_string_equal(c.last, "bob");
    assert_string_equal(c.value, users[1]);
    memset(&c, 0, sizeof c);
    m->complete(s, &table, 0, "offer", "player", "", add_choice, &c);
    assert_int_equal(c.n, 2); /* not oneself */
    memset(&c, 0, sizeof c);
    m->complete(s, &table, 0, "play", "card", "", add_choice, &c);
    unsigned kinds = 0;
    for (unsigned k = 0; k < PD_CARDS; k++)
        kinds += s->game.players[0].hand.n[k] > 0;
    assert_int_equal(c.n, kinds);
    memset(&c, 0, sizeof c);
    m->complete(s, &table, 0, "offer", "ask", "", add_choice, &c);
    assert_int_equal(c.n, PD_CARDS);
    memset(&c, 0, sizeof c);
    m->complete(s, &table, 0, "offer", "ask", "magn", add_choice, &c);
    assert_int_equal(c.n, 1);
    assert_string_equal(c.last, "Magnum");
    free(s);
    free(ev);
}

static void test_commands(void **unused)
{
    (void)unused;
    struct pd_state *s = lobby(NULL);
    struct pd_events *ev = calloc(1, sizeof *ev);
    struct rng rng;
    rng_seed(&rng, 5);
    assert_int_equal(m->setup(s, 3, 1000, &rng, ev), 0);
    const struct pd_action *a = &host_log.played;

    assert_true(run(s, "en", "play", "takeover, bob, dope", NULL, NULL, 0));
    assert_int_equal(a->type, PD_ACT_PLAY);
    assert_int_equal(a->card, PD_TAKEOVER);
    assert_int_equal(a->target, 1);
    assert_int_equal(a->deal, PD_DOPE);
    assert_true(run(s, "de", "play", "Stoff, kleine", NULL, NULL, 0)); /* a prefix, any case */
    assert_int_equal(a->card, PD_DOPE);
    assert_int_equal(a->extra, PD_SMALL_FRY);
    assert_true(run(s, "en", "discard", "guns, 3 family party", NULL, NULL, 0));
    assert_int_equal(a->type, PD_ACT_DISCARD);
    assert_int_equal(a->card, PD_GUNS);
    assert_int_equal(a->extra, PD_FAMILY_PARTY);
    assert_true(run(s, "en", "magnum", "", NULL, NULL, 0));
    assert_int_equal(a->type, PD_ACT_MAGNUM);
    assert_int_equal(a->target, 0); /* out of a window: one's own burden */
    assert_true(run(s, "en", "magnum", "cy", NULL, NULL, 0));
    assert_int_equal(a->target, 2);
    assert_true(run(s, "en", "pass", "magnum", NULL, NULL, 0));
    assert_int_equal(a->type, PD_ACT_PASS);
    assert_true(run(s, "en", "offer", "bob", "blind dope x2, guns", "nothing", 0));
    assert_int_equal(a->type, PD_ACT_OFFER);
    assert_true(a->blind);
    assert_int_equal(a->give.n[PD_DOPE], 2);
    assert_int_equal(a->give.n[PD_GUNS], 1);
    assert_int_equal(pd_bundle_total(&a->ask), 0);
    assert_true(run(s, "en", "accept", "", NULL, NULL, 4));
    assert_int_equal(a->offer_id, 4);

    assert_false(run(s, "en", "play", "zeppelin", NULL, NULL, 0));
    assert_string_equal(host_log.reply, PD_KEYS "resolve.unknown-card");
    assert_false(run(s, "en", "play", "d", NULL, NULL, 0)); /* dope, dames */
    assert_string_equal(host_log.reply, PD_KEYS "resolve.ambiguous-card");
    assert_false(run(s, "en", "offer", "bob", "coup x2", "nothing", 0));
    assert_string_equal(host_log.reply, PD_KEYS "resolve.bad-count");
    assert_false(run(s, "en", "play", "raid, nobody", NULL, NULL, 0));
    assert_false(run(s, "en", "hand", "", NULL, NULL, 0));
    assert_non_null(strstr(host_log.reply, "hand"));
    /* every command has its words in the catalog */
    for (const struct command_def *d = pd_commands; d->word; d++) {
        assert_non_null(catalog_text("en", d->syntax));
        assert_non_null(catalog_text("de", d->summary));
    }
    free(s);
    free(ev);
}

/* --- messages --------------------------------------------------------- */

struct seen {
    int table, hands, results;
    bool leak;
    const struct pd_state *s;
};

/* No table message names a card of a secret hand; a hand goes to its seat. */
static void check_msg(void *arg, const struct rules_msg *msg)
{
    struct seen *w = arg;
    assert_non_null(msg->text);
    assert_null(strstr(msg->text, "{"));
    if (msg->kind == OUT_PRIVATE_VIEW) {
        w->hands++;
        assert_true(msg->audience >= 0);
        assert_string_equal(msg->key->user, users[msg->audience]);
    } else if (msg->audience == MSG_TABLE) {
        w->table++;
        w->results += msg->kind == OUT_RESULT;
        if (!w->s->game.players[0].active || w->s->game.phase == PD_PHASE_OVER)
            return;
        struct json_object *hand = json_object_object_get(msg->data, "hand");
        w->leak |= hand != NULL;
    }
}

static void test_render(void **unused)
{
    (void)unused;
    struct pd_state *s = lobby(NULL);
    struct pd_events *ev = calloc(1, sizeof *ev);
    struct rng rng;
    struct pd_action a;
    struct seen w = {.s = s};
    char text[4096];
    rng_seed(&rng, 9);
    assert_int_equal(m->setup(s, 3, 1000, &rng, ev), 0);
    m->render(s, &table, ev, 1000, check_msg, &w);
    assert_int_equal(w.hands, 3); /* each seat its dealt hand, nobody else's */
    assert_int_equal(w.table, 2); /* the notice, the table view */
    m->status(s, &table, 2000, text, sizeof text);
    assert_non_null(strstr(text, "g1"));
    m->gm_view(s, &table, text, sizeof text);
    assert_non_null(strstr(text, "bob"));
    pd_action_init(&a, PD_ACT_NEXT, PD_HOST);
    for (int i = 0; i < 5000 && !m->over(s); i++) {
        assert_int_equal(m->apply(s, &a, 3000 + i, &rng, ev), 0);
        m->render(s, &table, ev, 3000 + i, check_msg, &w);
    }
    assert_false(w.leak);
    assert_int_equal(w.results, 1);
    free(s);
    free(ev);
}

/* --- the seat's view over whole games ---------------------------------- */

/* g with everything seat may not know changed: the others' hidden hands
 * (same sizes), the pile's order, the others' choices for the pass, offers
 * between others, a blind offer's hidden cards, the others' private events. */
static void twin_of(const struct pd_game *g, const struct pd_events *ev, unsigned seat,
                    struct pd_game *t, struct pd_events *tev)
{
    memcpy(t, g, sizeof *t);
    memcpy(tev, ev, sizeof *tev);
    for (unsigned s = 0; s < g->nplayers; s++) {
        if (s == seat || pd_hand_open(g, s))
            continue;
        unsigned n = pd_bundle_total(&g->players[s].hand);
        memset(&t->players[s].hand, 0, sizeof t->players[s].hand);
        t->players[s].hand.n[PD_SMALL_FRY] = (uint8_t)n;
        if (t->players[s].pass != PD_NONE)
            t->players[s].pass = PD_SMALL_FRY;
    }
    for (unsigned i = 0; i < t->npile / 2; i++) {
        uint8_t c = t->pile[i];
        t->pile[i] = t->pile[t->npile - 1 - i];
        t->pile[t->npile - 1 - i] = c;
    }
    for (unsigned i = 0; i < t->noffers; i++) {
        struct pd_offer *o = &t->offers[i];
        bool mine = o->to == seat || t->current == seat;
        if (!mine) {
            o->ask.n[PD_COUP] ^= 1;
        } else if (o->blind && o->to == seat) {
            unsigned n = pd_bundle_total(&o->give);
            memset(&o->give, 0, sizeof o->give);
            o->give.n[PD_BROKERAGE] = (uint8_t)n;
        }
    }
    for (unsigned i = 0; i < tev->n; i++)
        if (tev->v[i].audience != PD_TABLE && tev->v[i].audience != (int)seat) {
            tev->v[i].card ^= 1;
            tev->v[i].cards.n[PD_GUNS] ^= 1;
        }
}

struct secrecy {
    struct pd_view *a, *b;
    struct pd_game *twin;
    struct pd_events *tev;
    unsigned checks;
};

static void on_step(const struct pd_game *g, const struct pd_events *ev, void *arg)
{
    struct secrecy *x = arg;
    for (unsigned seat = 0; seat < g->nplayers; seat++) {
        twin_of(g, ev, seat, x->twin, x->tev);
        bool sa = pd_view_build(g, seat, ev, x->a);
        bool sb = pd_view_build(x->twin, seat, x->tev, x->b);
        assert_int_equal(sa, sb);
        if (memcmp(x->a, x->b, sizeof *x->a) != 0)
            fail_msg("seat %u's view shows what it may not know", seat);
        x->checks++;
    }
}

/* Over whole random games (the host stepping in too): every seat's view is
 * blind to everything it may not know, so the computer's decisions are. */
static void test_view_secrecy(void **unused)
{
    (void)unused;
    struct secrecy x = {calloc(1, sizeof(struct pd_view)), calloc(1, sizeof(struct pd_view)),
                        calloc(1, sizeof(struct pd_game)), calloc(1, sizeof(struct pd_events)), 0};
    for (unsigned players = 2; players <= 6; players++) {
        struct pd_sim_opts o = {.players = players, .on_step = on_step, .arg = &x};
        struct pd_sim_stats st;
        memset(&st, 0, sizeof st);
        for (uint64_t seed = 1; seed <= 12; seed++)
            assert_int_equal(pd_sim_play(&o, seed * 101 + players, NULL, &st, NULL), 0);
    }
    assert_true(x.checks > 10000);
    free(x.a);
    free(x.b);
    free(x.twin);
    free(x.tev);
}

/* A view leaking a hidden hand is caught: the test can fail. */
static void test_twin_sees_a_leak(void **unused)
{
    (void)unused;
    struct pd_game *g = calloc(1, sizeof *g), *t = calloc(1, sizeof *t);
    struct pd_events *ev = calloc(1, sizeof *ev), *tev = calloc(1, sizeof *tev);
    struct pd_config c;
    struct rng rng;
    pd_config_default(&c);
    rng_seed(&rng, 1);
    assert_int_equal(pd_game_setup(g, &c, 3, NULL, 0, &rng, ev), PD_OK);
    twin_of(g, ev, 0, t, tev);
    assert_memory_not_equal(&g->players[1].hand, &t->players[1].hand, sizeof g->players[1].hand);
    free(g);
    free(t);
    free(ev);
    free(tev);
}

/* Whole games of computers, through the module as a host drives them: no
 * move refused, nothing left to time running out, every memory stored. */
static void test_computer_games(void **unused)
{
    (void)unused;
    for (unsigned players = 2; players <= 6; players++) {
        struct pd_comp_opts o = {.players = players, .pace = 100, .roundtrip = players == 4};
        struct pd_comp_stats st;
        memset(&st, 0, sizeof st);
        for (uint64_t seed = 1; seed <= 40; seed++)
            assert_int_equal(pd_comp_play(&o, seed * 7 + players, &st), 0);
        assert_int_equal(st.refused, 0);
        assert_int_equal(st.timeouts, 0);
        assert_int_equal(st.games, 40);
        o.pace = 0; /* no delay at all: the same, at once */
        o.mode = "quick";
        for (uint64_t seed = 1; seed <= 20; seed++)
            assert_int_equal(pd_comp_play(&o, seed, &st), 0);
        assert_int_equal(st.refused, 0);
    }
}

/* The same seed, views and times give the same memory and moves. */
static void test_computer_determinism(void **unused)
{
    (void)unused;
    struct pd_comp_opts o = {.players = 5, .pace = 100};
    struct pd_comp_stats a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    pd_comp_play(&o, 42, &a);
    pd_comp_play(&o, 42, &b);
    assert_memory_equal(&a, &b, sizeof a);
}

int main(void)
{
    static const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_modes),
        cmocka_unit_test(test_set),
        cmocka_unit_test(test_settings_line),
        cmocka_unit_test(test_store),
        cmocka_unit_test(test_rematch_series),
        cmocka_unit_test(test_results),
        cmocka_unit_test(test_commands),
        cmocka_unit_test(test_complete),
        cmocka_unit_test(test_render),
        cmocka_unit_test(test_view_secrecy),
        cmocka_unit_test(test_twin_sees_a_leak),
        cmocka_unit_test(test_computer_games),
        cmocka_unit_test(test_computer_determinism),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
