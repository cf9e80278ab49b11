/*
 * transcript.c - whole games of Palm & Drewes' Illegal played from data
 * files at the level of the engine: a known deal, the moves, and after each
 * move every event it made, in order, with its audience.
 *
 *     pd-transcript FILE...            replays each file; exit 1 at a difference
 *     pd-transcript --write FILE...    rewrites each file's events from a replay
 *
 * The format (games/README.md says it for players of the game): `#` comments; `game PLAYERS DEALER
 * SEED`; `hand SEAT CARD...` for every seat; `pile CARD...`, the cards on top of the pile, first
 * drawn first (the rest of the box lies under them in the box's order); then moves, each followed
 * by its events as `> ` lines: SEAT play CARD [target=SEAT] [deal=CARD] [extra=CARD] SEAT discard
 * [CARD] [set=CARD] SEAT magnum [target=SEAT]    SEAT waive    SEAT pass CARD    SEAT lose CARD
 *     SEAT offer SEAT give=CARD,... [ask=CARD,...] [blind]
 *     SEAT accept|decline|cancel ID
 *     host pause|resume|next|end    host extend MS    host kick SEAT
 *     host timer NAME MS            wait MS (the clock moves, then a tick)
 * A move that must be refused ends with `=> ERROR`. Times in events are
 * written from the clock of their move: deadline=+120000.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/palm-drewes/palm_drewes.h"

#define LINE_MAX_LEN 1024
#define LINES_MAX    4096

struct run {
    const char *path;
    unsigned lineno;
    struct pd_game g;
    struct rng rng;
    struct pd_events ev;
    int64_t now;
    bool started, writing;
    unsigned players, dealer;
    uint64_t seed;
    uint8_t hands[PD_MAX_PLAYERS][PD_DECK_SIZE];
    unsigned nhand[PD_MAX_PLAYERS];
    uint8_t top[PD_DECK_SIZE];
    unsigned ntop;
    /* What the run writes: every line but the events, and the events made. */
    char *out[LINES_MAX];
    unsigned nout;
    /* The events the file expects after the current move. */
    char *want[LINES_MAX];
    unsigned nwant;
    int failures;
};

static void bad(struct run *r, const char *what, const char *arg)
{
    fprintf(stderr, "%s:%u: %s%s%s\n", r->path, r->lineno, what, arg ? ": " : "", arg ? arg : "");
    r->failures++;
}

static void emit(struct run *r, const char *line)
{
    if (r->nout < LINES_MAX)
        r->out[r->nout++] = strdup(line);
}

static int card(struct run *r, const char *name)
{
    int c = pd_card_from_id(name);
    if (c < 0)
        bad(r, "no such card", name);
    return c;
}

/* "dope*2,guns" */
static void bundle_text(char *out, size_t len, const struct pd_bundle *b)
{
    size_t n = 0;
    out[0] = '\0';
    for (unsigned t = 0; t < PD_CARDS && n < len; t++) {
        if (!b->n[t])
            continue;
        int w = b->n[t] > 1 ? snprintf(out + n, len - n, "%s%s*%u", n ? "," : "", pd_card_id(t),
                                       (unsigned)b->n[t])
                            : snprintf(out + n, len - n, "%s%s", n ? "," : "", pd_card_id(t));
        n += w > 0 ? (size_t)w : 0;
    }
}

static void bundle_parse(struct run *r, const char *text, struct pd_bundle *b)
{
    char buf[LINE_MAX_LEN];
    snprintf(buf, sizeof buf, "%s", text);
    memset(b, 0, sizeof *b);
    for (char *save = NULL, *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
        char *star = strchr(w, '*');
        unsigned n = star ? (unsigned)atoi(star + 1) : 1;
        if (star)
            *star = '\0';
        int c = card(r, w);
        if (c >= 0)
            b->n[c] = (uint8_t)(b->n[c] + n);
    }
}

#define ADD(...) n += (size_t)snprintf(out + n, n < len ? len - n : 0, __VA_ARGS__)

static void event_cards(char *out, size_t len, size_t n, const struct pd_event *e)
{
    char list[512];
    if (pd_bundle_total(&e->cards)) {
        bundle_text(list, sizeof list, &e->cards);
        ADD(" cards=%s", list);
    }
    if (pd_bundle_total(&e->cards2)) {
        bundle_text(list, sizeof list, &e->cards2);
        ADD(" cards2=%s", list);
    }
}

static void event_end(char *out, size_t len, size_t n, const struct pd_event *e, unsigned seats)
{
    if (e->type == PD_EV_GAME_OVER || e->type == PD_EV_SERIES) {
        ADD(" %s=", e->type == PD_EV_SERIES ? "totals" : "scores");
        for (unsigned s = 0; s < seats; s++)
            ADD("%s%lld", s ? "," : "",
                e->type == PD_EV_SERIES ? (long long)e->totals[s] : (long long)e->scores[s]);
        if (e->type == PD_EV_GAME_OVER) {
            ADD(" rank=");
            for (unsigned s = 0; s < seats; s++)
                ADD("%s%u", s ? "," : "", (unsigned)e->rank[s]);
        }
        ADD(" winners=%#x", (unsigned)e->winners);
    }
}

/* One event as a line: only the fields that are set. */
static void event_text(char *out, size_t len, const struct pd_event *e, int64_t now, unsigned seats)
{
    size_t n = 0;
    if (e->audience == PD_TABLE)
        ADD("> table %s", pd_event_id(e->type));
    else
        ADD("> seat%d %s", e->audience, pd_event_id(e->type));
    if (e->player != PD_NOBODY)
        ADD(" player=%d", e->player);
    if (e->target != PD_NOBODY)
        ADD(" target=%d", e->target);
    if (e->source != PD_NOBODY)
        ADD(" source=%d", e->source);
    if (e->card != PD_NONE)
        ADD(" card=%s", pd_card_id(e->card));
    if (e->card2 != PD_NONE)
        ADD(" card2=%s", pd_card_id(e->card2));
    if (e->deal != PD_NONE)
        ADD(" deal=%s", pd_card_id(e->deal));
    if (e->number)
        ADD(" number=%u", (unsigned)e->number);
    if (e->count)
        ADD(" count=%u", (unsigned)e->count);
    if (e->game)
        ADD(" game=%u", (unsigned)e->game);
    if (e->offer_id)
        ADD(" offer=%u", (unsigned)e->offer_id);
    if (e->blind)
        ADD(" blind");
    if (e->deadline)
        ADD(" deadline=+%lld", (long long)(e->deadline - now));
    if (e->ms)
        ADD(" ms=%lld", (long long)e->ms);
    if (e->amount)
        ADD(" amount=%d", e->amount);
    if (e->type == PD_EV_REVEAL)
        ADD(" gain=%d loss=%d score=%d", e->gain, e->loss, e->score);
    n = strlen(out);
    event_cards(out, len, n, e);
    n = strlen(out);
    event_end(out, len, n, e, seats);
}

/* The deck the file describes: its hands dealt from the dealer's left, its
 * pile on top, the rest of the box under it. */
static bool build_deck(struct run *r, uint8_t deck[PD_DECK_SIZE])
{
    unsigned left[PD_CARDS];
    for (unsigned c = 0; c < PD_CARDS; c++)
        left[c] = pd_card_count(c);
    unsigned n = r->players;
    for (unsigned s = 0; s < n; s++) {
        if (r->nhand[s] != PD_HAND_SIZE) {
            bad(r, "a hand is not of 7 cards", NULL);
            return false;
        }
        for (unsigned k = 0; k < PD_HAND_SIZE; k++) {
            unsigned pos = k * n + (s + n - r->dealer - 1) % n;
            deck[pos] = r->hands[s][k];
            if (left[deck[pos]]-- == 0) {
                bad(r, "more of a card than the box holds", pd_card_id(deck[pos]));
                return false;
            }
        }
    }
    for (unsigned i = 0; i < r->ntop; i++) {
        deck[PD_DECK_SIZE - 1 - i] = r->top[i];
        if (left[r->top[i]]-- == 0) {
            bad(r, "more of a card than the box holds", pd_card_id(r->top[i]));
            return false;
        }
    }
    unsigned pos = PD_HAND_SIZE * n;
    for (unsigned c = 0; c < PD_CARDS; c++)
        while (left[c]--)
            deck[pos++] = (uint8_t)c;
    return true;
}

static void start(struct run *r)
{
    uint8_t deck[PD_DECK_SIZE];
    struct pd_config c;
    if (!build_deck(r, deck))
        return;
    pd_config_default(&c);
    rng_seed(&r->rng, r->seed);
    r->ev.n = 0;
    if (pd_game_setup_deck(&r->g, &c, r->players, NULL, (int)r->dealer, deck, r->now, &r->rng,
                           &r->ev) != PD_OK)
        bad(r, "setup refused", NULL);
    r->started = true;
}

/* Reads `key=value` words of a move into a. */
static void options(struct run *r, char *rest, struct pd_action *a)
{
    for (char *save = NULL, *w = strtok_r(rest, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(w, '=');
        if (strcmp(w, "blind") == 0) {
            a->blind = true;
            continue;
        }
        if (!eq) {
            if (a->type == PD_ACT_OFFER && a->target == PD_NOBODY)
                a->target = (int8_t)atoi(w);
            else if (a->type >= PD_ACT_ACCEPT && a->type <= PD_ACT_CANCEL)
                a->offer_id = (uint32_t)atoi(w);
            else
                a->card = (uint8_t)card(r, w);
            continue;
        }
        *eq++ = '\0';
        if (strcmp(w, "target") == 0)
            a->target = (int8_t)atoi(eq);
        else if (strcmp(w, "deal") == 0)
            a->deal = (uint8_t)card(r, eq);
        else if (strcmp(w, "extra") == 0 || strcmp(w, "set") == 0)
            a->extra = (uint8_t)card(r, eq);
        else if (strcmp(w, "give") == 0)
            bundle_parse(r, eq, &a->give);
        else if (strcmp(w, "ask") == 0)
            bundle_parse(r, eq, &a->ask);
        else
            bad(r, "unknown option", w);
    }
}

static bool parse_move(struct run *r, char *line, struct pd_action *a)
{
    static const struct {
        const char *word;
        enum pd_action_type type;
    } verbs[] = {
        {"play", PD_ACT_PLAY},     {"discard", PD_ACT_DISCARD}, {"magnum", PD_ACT_MAGNUM},
        {"waive", PD_ACT_WAIVE},   {"pass", PD_ACT_PASS},       {"lose", PD_ACT_LOSE},
        {"offer", PD_ACT_OFFER},   {"accept", PD_ACT_ACCEPT},   {"decline", PD_ACT_DECLINE},
        {"cancel", PD_ACT_CANCEL}, {"pause", PD_ACT_PAUSE},     {"resume", PD_ACT_RESUME},
        {"extend", PD_ACT_EXTEND}, {"next", PD_ACT_NEXT},       {"end", PD_ACT_END},
        {"kick", PD_ACT_KICK},     {"timer", PD_ACT_SET_TIMER},
    };
    char who[16], verb[16];
    int used = 0;
    if (sscanf(line, "%15s %15s %n", who, verb, &used) < 2)
        return false;
    int actor = strcmp(who, "host") == 0 ? PD_HOST : atoi(who);
    for (size_t i = 0; i < sizeof verbs / sizeof *verbs; i++) {
        if (strcmp(verb, verbs[i].word) != 0)
            continue;
        pd_action_init(a, verbs[i].type, actor);
        char *rest = line + used;
        if (a->type == PD_ACT_EXTEND)
            a->ms = atoll(rest);
        else if (a->type == PD_ACT_KICK)
            a->target = (int8_t)atoi(rest);
        else if (a->type == PD_ACT_SET_TIMER) {
            char name[16];
            long long ms = 0;
            if (sscanf(rest, "%15s %lld", name, &ms) == 2)
                a->timer = (enum pd_timer)pd_timer_from_id(name);
            a->ms = ms;
        } else
            options(r, rest, a);
        return true;
    }
    bad(r, "unknown move", verb);
    return false;
}

/* Compares what the last move made with what the file expects. */
static void settle(struct run *r)
{
    char line[LINE_MAX_LEN];
    for (unsigned i = 0; i < r->ev.n; i++) {
        event_text(line, sizeof line, &r->ev.v[i], r->now, r->players);
        emit(r, line);
        if (!r->writing && (i >= r->nwant || strcmp(line, r->want[i]) != 0)) {
            if (!r->failures)
                fprintf(stderr, "%s:%u: event %u\n  want: %s\n  got:  %s\n", r->path, r->lineno,
                        i + 1, i < r->nwant ? r->want[i] : "(nothing)", line);
            r->failures++;
        }
    }
    if (!r->writing && r->nwant > r->ev.n) {
        if (!r->failures)
            fprintf(stderr, "%s:%u: %u events missing, first: %s\n", r->path, r->lineno,
                    r->nwant - r->ev.n, r->want[r->ev.n]);
        r->failures++;
    }
    for (unsigned i = 0; i < r->nwant; i++)
        free(r->want[i]);
    r->nwant = 0;
    r->ev.n = 0;
}

static void move(struct run *r, char *line)
{
    struct pd_action a;
    char *arrow = strstr(line, " => ");
    const char *want_error = arrow ? arrow + 4 : "ok";
    if (arrow)
        *arrow = '\0';
    if (!r->started)
        start(r);
    if (strncmp(line, "wait ", 5) == 0) {
        r->now += atoll(line + 5);
        pd_action_init(&a, PD_ACT_TICK, 0);
    } else if (!parse_move(r, line, &a)) {
        return;
    }
    r->ev.n = 0;
    enum pd_error err = pd_game_apply(&r->g, &a, r->now, &r->rng, &r->ev);
    char why[200];
    if (strcmp(pd_error_id(err), want_error) != 0)
        bad(r, "the move's result differs", pd_error_id(err));
    if (!pd_game_check(&r->g, why, sizeof why))
        bad(r, "an invariant broke", why);
}

static void header(struct run *r, const char *line)
{
    char buf[LINE_MAX_LEN];
    snprintf(buf, sizeof buf, "%s", line);
    char *save = NULL, *w = strtok_r(buf, " ", &save);
    if (strcmp(w, "game") == 0) {
        r->players = (unsigned)atoi(strtok_r(NULL, " ", &save));
        r->dealer = (unsigned)atoi(strtok_r(NULL, " ", &save));
        r->seed = (uint64_t)atoll(strtok_r(NULL, " ", &save));
        return;
    }
    bool hand = strcmp(w, "hand") == 0;
    unsigned seat = hand ? (unsigned)atoi(strtok_r(NULL, " ", &save)) % PD_MAX_PLAYERS : 0;
    while ((w = strtok_r(NULL, " ", &save))) {
        int c = card(r, w);
        if (c < 0)
            continue;
        if (hand && r->nhand[seat] < PD_DECK_SIZE)
            r->hands[seat][r->nhand[seat]++] = (uint8_t)c;
        else if (!hand && r->ntop < PD_DECK_SIZE)
            r->top[r->ntop++] = (uint8_t)c;
    }
}

static int replay(const char *path, bool write)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        return 1;
    }
    struct run *r = calloc(1, sizeof *r);
    if (!r) {
        fclose(f);
        return 1;
    }
    r->path = path;
    r->writing = write;
    char line[LINE_MAX_LEN];
    bool pending = false;
    while (fgets(line, sizeof line, f)) {
        r->lineno++;
        line[strcspn(line, "\n")] = '\0';
        if (strncmp(line, "> ", 2) == 0) {
            if (r->nwant < LINES_MAX)
                r->want[r->nwant++] = strdup(line);
            continue;
        }
        if (pending)
            settle(r);
        pending = false;
        emit(r, line);
        if (line[0] == '#' || line[0] == '\0')
            continue;
        if (!strncmp(line, "game ", 5) || !strncmp(line, "hand ", 5) || !strncmp(line, "pile ", 5))
            header(r, line);
        else
            move(r, line), pending = true;
        if (!strncmp(line, "pile ", 5)) {
            start(r);
            pending = true;
        }
    }
    if (pending)
        settle(r);
    fclose(f);
    if (r->g.phase != PD_PHASE_OVER)
        bad(r, "the game did not end", NULL);
    int failed = r->failures != 0;
    if (write) {
        f = fopen(path, "w");
        for (unsigned i = 0; f && i < r->nout; i++)
            fprintf(f, "%s\n", r->out[i]);
        if (f)
            fclose(f);
        failed = !f;
    }
    for (unsigned i = 0; i < r->nout; i++)
        free(r->out[i]);
    free(r);
    return failed;
}

int main(int argc, char **argv)
{
    bool write = argc > 1 && strcmp(argv[1], "--write") == 0;
    int failed = 0;
    if (argc < 2 + write) {
        fprintf(stderr, "usage: pd-transcript [--write] FILE...\n");
        return 2;
    }
    for (int i = 1 + write; i < argc; i++)
        failed |= replay(argv[i], write);
    return failed;
}
