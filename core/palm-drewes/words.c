/*
 * words.c - the module's events, errors and cards in words, from the catalog.
 */
#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "../catalog.h"
#include "../text.h"
#include "words.h"

#define VARS_MAX  20
#define VALUE_MAX 512

/* The named values of one text: names point to literals, values to the
 * buffers kept here. */
struct vars {
    const char *list[2 * VARS_MAX + 1];
    char values[VARS_MAX][VALUE_MAX];
    unsigned n;
};

/* The buffer of value `name`: the one it has, or a new one. */
static char *var(struct vars *v, const char *name)
{
    for (unsigned i = 0; i < v->n; i++)
        if (strcmp(v->list[2 * i], name) == 0) {
            v->values[i][0] = '\0';
            return v->values[i];
        }
    assert(v->n < VARS_MAX); /* no text has as many */
    if (v->n == VARS_MAX)
        return v->values[VARS_MAX - 1];
    char *buf = v->values[v->n];
    buf[0] = '\0';
    v->list[2 * v->n] = name;
    v->list[2 * v->n + 1] = buf;
    v->list[2 * ++v->n] = NULL;
    return buf;
}

static void var_str(struct vars *v, const char *name, const char *value)
{
    snprintf(var(v, name), VALUE_MAX, "%s", value ? value : "");
}

static void var_num(struct vars *v, const char *name, long long n)
{
    snprintf(var(v, name), VALUE_MAX, "%lld", n);
}

const char *pd_card_name(const char *lang, unsigned card)
{
    const char *id = pd_card_id(card);
    return id ? text_name(lang, PD_KEYS "card", id) : "?";
}

void pd_euros_text(char *out, size_t len, const char *lang, int64_t euros)
{
    char digits[32];
    text_number(digits, sizeof digits, lang, euros < 0 ? -euros : euros);
    const char *vars[] = {"amount", digits, NULL};
    char body[64];
    text_fill(body, sizeof body, lang, PD_KEYS "format.euros", vars);
    /* Cut at len like every text here; the sign is never lost, as it comes first. */
    int w = snprintf(out, len, "%s%s", euros < 0 ? "-" : "", body);
    if (w < 0 && len)
        out[0] = '\0';
}

void pd_card_rule(char *out, size_t len, const char *lang, unsigned card)
{
    char key[64], amount[64];
    const char *id = pd_card_id(card);
    snprintf(key, sizeof key, PD_KEYS "card-rule.%s", id ? id : "?");
    pd_euros_text(amount, sizeof amount, lang, pd_card_value(card));
    const char *vars[] = {"amount", amount, NULL};
    text_fill(out, len, lang, key, vars);
}

void pd_cards_text(char *out, size_t len, const char *lang, const struct pd_bundle *b)
{
    struct text_list l;
    text_list_init(&l, out, len, ", ");
    for (unsigned t = 0; t < PD_CARDS; t++) {
        if (!b->n[t])
            continue;
        if (b->n[t] == 1) {
            text_list_add(&l, "%s", pd_card_name(lang, t));
            continue;
        }
        char count[8], item[128];
        snprintf(count, sizeof count, "%u", (unsigned)b->n[t]);
        const char *vars[] = {"card", pd_card_name(lang, t), "count", count, NULL};
        text_fill(item, sizeof item, lang, PD_KEYS "format.card-count", vars);
        text_list_add(&l, "%s", item);
    }
    if (l.n == 0)
        snprintf(out, len, "%s", catalog_text(lang, PD_KEYS "msg.nothing"));
}

const char *pd_error_text(const char *lang, enum pd_error e)
{
    char key[64];
    snprintf(key, sizeof key, PD_KEYS "error.%s", pd_error_id(e));
    const char *t = catalog_text(lang, key);
    return t ? t : catalog_text(lang, PD_KEYS "error.unknown");
}

const char *pd_reminder_key(enum pd_phase p)
{
    switch (p) {
    case PD_PHASE_TURN:
        return PD_KEYS "msg.reminder-turn";
    case PD_PHASE_PASS:
        return PD_KEYS "msg.reminder-pass";
    case PD_PHASE_LOSS:
        return PD_KEYS "msg.reminder-loss";
    default:
        return NULL;
    }
}

/* What every text may name: the seats and cards of the event. */
struct ctx {
    const char *lang;
    const char *const *names;
    unsigned nseats;
    int64_t now;
    struct vars v;
};

static const char *seat(const struct ctx *c, int s)
{
    return s >= 0 && (unsigned)s < c->nseats && c->names[s] ? c->names[s] : "?";
}

static void common(struct ctx *c, const struct pd_event *e)
{
    struct vars *v = &c->v;
    var_str(v, "player", seat(c, e->player));
    var_str(v, "target", seat(c, e->target));
    var_str(v, "source", seat(c, e->source));
    var_str(v, "card", e->card == PD_NONE ? "" : pd_card_name(c->lang, e->card));
    var_str(v, "card2", e->card2 == PD_NONE ? "" : pd_card_name(c->lang, e->card2));
    var_str(v, "deal", e->deal == PD_NONE ? "" : pd_card_name(c->lang, e->deal));
    pd_cards_text(var(v, "cards"), VALUE_MAX, c->lang, &e->cards);
    int64_t left = e->deadline ? e->deadline - c->now : e->ms;
    text_duration(var(v, "time"), VALUE_MAX, c->lang, left > 0 ? left : 0);
    var_num(v, "id", e->offer_id);
}

/* A list of seats from a bit mask: "Alice, Bob". */
static void seats_text(char *out, size_t len, const struct ctx *c, unsigned mask)
{
    struct text_list l;
    text_list_init(&l, out, len, ", ");
    for (unsigned s = 0; s < c->nseats && s < PD_MAX_PLAYERS; s++)
        if (mask & (1u << s))
            text_list_add(&l, "%s", seat(c, (int)s));
}

static const char *offer_key(const struct pd_event *e)
{
    bool to_me = e->audience == e->target;
    switch (e->type) {
    case PD_EV_OFFER_MADE:
        return !to_me     ? PD_KEYS "msg.offer-from-you"
               : e->blind ? PD_KEYS "msg.offer-blind-to-you"
                          : PD_KEYS "msg.offer-to-you";
    case PD_EV_OFFER_ACCEPTED:
        return to_me ? PD_KEYS "msg.offer-accepted-you" : PD_KEYS "msg.offer-accepted-them";
    case PD_EV_OFFER_DECLINED:
        return to_me ? PD_KEYS "msg.offer-declined-you" : PD_KEYS "msg.offer-declined-them";
    case PD_EV_OFFER_CANCELLED:
        return to_me ? PD_KEYS "msg.offer-cancelled-you" : PD_KEYS "msg.offer-cancelled-them";
    default:
        return to_me ? PD_KEYS "msg.offer-expired-you" : PD_KEYS "msg.offer-expired-them";
    }
}

static const char *lifted_key(struct ctx *c, const struct pd_event *e)
{
    (void)c;
    if (e->card2 == PD_NONE)
        return PD_KEYS "msg.burden-gone";
    return e->card2 == PD_BRIBE ? PD_KEYS "msg.burden-bribed" : PD_KEYS "msg.burden-lifted";
}

static const char *timed_out_key(struct ctx *c, const struct pd_event *e)
{
    (void)c;
    if (e->number == PD_PHASE_PASS)
        return PD_KEYS "msg.timed-out-pass";
    return e->number == PD_PHASE_LOSS ? PD_KEYS "msg.timed-out-loss" : PD_KEYS "msg.timed-out-turn";
}

static const char *passed_key(struct ctx *c, const struct pd_event *e)
{
    (void)c;
    if (e->card == PD_NONE)
        return PD_KEYS "msg.passed-nothing-given";
    return e->card2 == PD_NONE ? PD_KEYS "msg.passed-nothing-got" : PD_KEYS "msg.passed";
}

static const char *game_started(struct ctx *c, const struct pd_event *e)
{
    var_str(&c->v, "dealer", seat(c, e->player));
    var_str(&c->v, "player", seat(c, e->target));
    var_num(&c->v, "count", e->number);
    var_num(&c->v, "hand", PD_HAND_SIZE);
    var_num(&c->v, "pile", e->count);
    var_num(&c->v, "game", e->game);
    pd_euros_text(var(&c->v, "goal"), VALUE_MAX, c->lang, e->amount);
    return e->amount ? PD_KEYS "msg.game-started-series" : PD_KEYS "msg.game-started";
}

static const char *reveal(struct ctx *c, const struct pd_event *e)
{
    pd_cards_text(var(&c->v, "business"), VALUE_MAX, c->lang, &e->cards2);
    pd_euros_text(var(&c->v, "gain"), VALUE_MAX, c->lang, e->gain);
    pd_euros_text(var(&c->v, "loss"), VALUE_MAX, c->lang, e->loss);
    pd_euros_text(var(&c->v, "score"), VALUE_MAX, c->lang, e->score);
    return PD_KEYS "msg.reveal";
}

static const char *game_over(struct ctx *c, const struct pd_event *e)
{
    char key[64];
    snprintf(key, sizeof key, PD_KEYS "end.%s", pd_end_id((enum pd_end)e->number));
    var_str(&c->v, "reason", catalog_text(c->lang, key));
    seats_text(var(&c->v, "winners"), VALUE_MAX, c, e->winners);
    return e->winners ? PD_KEYS "msg.game-over" : PD_KEYS "msg.game-aborted";
}

static const char *series(struct ctx *c, const struct pd_event *e)
{
    struct text_list l;
    char *totals = var(&c->v, "totals");
    text_list_init(&l, totals, VALUE_MAX, ", ");
    for (unsigned s = 0; s < c->nseats && s < PD_MAX_PLAYERS; s++) {
        char euros[64];
        pd_euros_text(euros, sizeof euros, c->lang, e->totals[s]);
        text_list_add(&l, "%s %s", seat(c, (int)s), euros);
    }
    pd_euros_text(var(&c->v, "goal"), VALUE_MAX, c->lang, e->amount);
    var_num(&c->v, "game", e->game);
    seats_text(var(&c->v, "winners"), VALUE_MAX, c, e->winners);
    return PD_KEYS "msg.series";
}

static const char *trade(struct ctx *c, const struct pd_event *e)
{
    var_num(&c->v, "given", e->number);
    var_num(&c->v, "got", e->count);
    pd_cards_text(var(&c->v, "ask"), VALUE_MAX, c->lang, &e->cards2);
    return e->type == PD_EV_TRADED ? PD_KEYS "msg.traded" : offer_key(e);
}

static const char *timer_set(struct ctx *c, const struct pd_event *e)
{
    char key[64];
    snprintf(key, sizeof key, PD_KEYS "setting.%s", pd_timer_id(e->timer));
    var_str(&c->v, "timer", catalog_text(c->lang, key));
    text_duration(var(&c->v, "duration"), VALUE_MAX, c->lang, e->ms);
    return PD_KEYS "msg.timer-set";
}

static const char *turn_skipped(struct ctx *c, const struct pd_event *e)
{
    (void)c;
    return e->number ? PD_KEYS "msg.turn-skipped-more" : PD_KEYS "msg.turn-skipped";
}

static const char *reminder(struct ctx *c, const struct pd_event *e)
{
    (void)c;
    const char *key = pd_reminder_key((enum pd_phase)e->number);
    return key ? key : PD_KEYS "error.unknown";
}

static const char *deal_played(struct ctx *c, const struct pd_event *e)
{
    pd_euros_text(var(&c->v, "amount"), VALUE_MAX, c->lang, e->amount);
    return PD_KEYS "msg.deal-played";
}

static const char *nuisance(struct ctx *c, const struct pd_event *e)
{
    (void)c;
    return e->number > 1 ? PD_KEYS "msg.nuisance-2" : PD_KEYS "msg.nuisance-1";
}

static const char *drawn(struct ctx *c, const struct pd_event *e)
{
    var_num(&c->v, "count", e->count);
    return PD_KEYS "msg.drawn";
}

/* The events whose text needs values beyond common()'s, or picks among keys. */
static const char *(*const keyed[PD_EV_TYPES])(struct ctx *, const struct pd_event *) = {
    [PD_EV_GAME_STARTED] = game_started,
    [PD_EV_TURN_SKIPPED] = turn_skipped,
    [PD_EV_REMINDER] = reminder,
    [PD_EV_TIMED_OUT] = timed_out_key,
    [PD_EV_OFFER_MADE] = trade,
    [PD_EV_OFFER_ACCEPTED] = trade,
    [PD_EV_OFFER_DECLINED] = trade,
    [PD_EV_OFFER_CANCELLED] = trade,
    [PD_EV_OFFER_EXPIRED] = trade,
    [PD_EV_TRADED] = trade,
    [PD_EV_DEAL_PLAYED] = deal_played,
    [PD_EV_BURDEN_LIFTED] = lifted_key,
    [PD_EV_NUISANCE] = nuisance,
    [PD_EV_PASSED] = passed_key,
    [PD_EV_DRAWN] = drawn,
    [PD_EV_TIMER_SET] = timer_set,
    [PD_EV_REVEAL] = reveal,
    [PD_EV_GAME_OVER] = game_over,
    [PD_EV_SERIES] = series,
};

/* The events whose text takes only common()'s values: one key each. */
static const char *const plain[PD_EV_TYPES] = {
    [PD_EV_DEALT] = PD_KEYS "msg.dealt",
    [PD_EV_HAND] = PD_KEYS "msg.hand",
    [PD_EV_HAND_SHOWN] = PD_KEYS "msg.hand-shown",
    [PD_EV_TURN_STARTED] = PD_KEYS "msg.turn-started",
    [PD_EV_OPENED] = PD_KEYS "msg.opened",
    [PD_EV_BURDEN_LAID] = PD_KEYS "msg.burden-laid",
    [PD_EV_DEAL_LOST] = PD_KEYS "msg.deal-lost",
    [PD_EV_PASS_OPENED] = PD_KEYS "msg.pass-opened",
    [PD_EV_PASS_CHOSEN] = PD_KEYS "msg.pass-chosen",
    [PD_EV_PASS_READY] = PD_KEYS "msg.pass-ready",
    [PD_EV_PASS_DONE] = PD_KEYS "msg.pass-done",
    [PD_EV_TAKEOVER] = PD_KEYS "msg.takeover",
    [PD_EV_WAIVED] = PD_KEYS "msg.waived",
    [PD_EV_TAKEOVER_STOPPED] = PD_KEYS "msg.takeover-stopped",
    [PD_EV_TAKEN] = PD_KEYS "msg.taken",
    [PD_EV_DISCARDED] = PD_KEYS "msg.discarded",
    [PD_EV_DREW] = PD_KEYS "msg.drew",
    [PD_EV_LOSS_DUE] = PD_KEYS "msg.loss-due",
    [PD_EV_RECKONING] = PD_KEYS "msg.reckoning",
    [PD_EV_PAUSED] = PD_KEYS "msg.paused",
    [PD_EV_RESUMED] = PD_KEYS "msg.resumed",
    [PD_EV_EXTENDED] = PD_KEYS "msg.extended",
    [PD_EV_PLAYER_REMOVED] = PD_KEYS "msg.player-removed",
    [PD_EV_ASK_CLOSED] = PD_KEYS "msg.ask-closed",
};

/* The key of e's text (without the prefix), its values added to c. */
static const char *key_of(struct ctx *c, const struct pd_event *e)
{
    common(c, e);
    if ((unsigned)e->type >= PD_EV_TYPES)
        return PD_KEYS "error.unknown";
    if (keyed[e->type])
        return keyed[e->type](c, e);
    return plain[e->type] ? plain[e->type] : PD_KEYS "error.unknown";
}

const char *pd_event_text(char *out, size_t len, const char *lang, const struct pd_event *e,
                          const char *const *names, unsigned nseats, int64_t now)
{
    struct ctx *c = &(struct ctx){.lang = lang, .names = names, .nseats = nseats, .now = now};
    const char *key = key_of(c, e);
    text_fill(out, len, lang, key, c->v.list);
    if (e->type == PD_EV_SERIES && e->winners) {
        size_t n = strlen(out);
        if (n + 1 < len) {
            out[n++] = ' ';
            text_fill(out + n, len - n, lang, PD_KEYS "msg.series-won", c->v.list);
        }
    }
    return key;
}

const char *pd_prompt_text(char *out, size_t len, const char *lang, const struct pd_event *e,
                           const char *const *names, unsigned nseats, int64_t now)
{
    struct ctx *c = &(struct ctx){.lang = lang, .names = names, .nseats = nseats, .now = now};
    const char *key = e->type == PD_EV_PASS_OPENED ? PD_KEYS "msg.prompt-pass"
                      : e->type == PD_EV_TAKEOVER  ? PD_KEYS "msg.prompt-window"
                                                   : PD_KEYS "msg.prompt-loss";
    common(c, e);
    text_fill(out, len, lang, key, c->v.list);
    return key;
}
