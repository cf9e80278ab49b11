/*
 * game.c - the hosted game record and its JSON form in the store.
 */
#include <inttypes.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chat.h"
#include "command.h"
#include "computers.h"
#include "core/modules.h"
#include "core/text.h"
#include "game.h"
#include "core/json.h"

int game_init(struct game *g, const struct rules_module *rules, const char *mode,
              const struct rules_defaults *defaults)
{
    void *state = malloc(rules->state_size);
    if (!state || rules->init(state, mode, defaults) < 0) {
        free(state);
        return -1;
    }
    g->rules = rules;
    g->state = state;
    return 0;
}

void game_free(struct game *g)
{
    if (!g)
        return;
    free(g->state);
    free(g->chat);
    free(g->minds);
    free(g);
}

size_t game_mind_size(const struct game *g)
{
    size_t size = 0;
    for (const struct rules_strategy *l = g->rules->strategies; l && l->id; l++)
        if (l->memory_size > size)
            size = l->memory_size;
    return (size + 15) & ~(size_t)15;
}

void *game_mind(const struct game *g, unsigned i)
{
    return g->minds && i < g->nseats ? (char *)g->minds + i * game_mind_size(g) : NULL;
}

const struct rules_strategy *game_seat_level(const struct game *g, unsigned i)
{
    return i < g->nseats && g->seats[i].computer ? computers_level(g->rules, g->seats[i].computer)
                                                 : NULL;
}

bool game_seat_is_computer(const struct game *g, unsigned i)
{
    return i < g->nseats && g->seats[i].computer && !g->seats[i].standin;
}

void game_put_back(struct game *g, const struct game *before, const void *before_state)
{
    void *state = g->state;
    struct game_links links = g->links;
    memcpy(state, before_state, before->rules->state_size);
    if (g->chat != before->chat)
        free(g->chat); /* a chat block made since */
    if (g->minds != before->minds)
        free(g->minds); /* memories made since, or before's are a copy */
    *g = *before;
    g->state = state;
    g->links = links;
}

bool game_finished(const struct game *g)
{
    return g->closed || (g->started && g->rules->over(g->state));
}

bool game_active(const struct game *g, unsigned i)
{
    return i < g->nseats && (!g->started || g->rules->active(g->state, i));
}

void game_view(const struct game *g, struct game_view *v)
{
    for (unsigned i = 0; i < g->nseats; i++) {
        v->users[i] = g->seats[i].user;
        v->names[i] = game_seat_name(g, i);
        v->langs[i] = game_seat_language(g, i);
    }
    v->t = (struct rules_table){.game = g->id,
                                .channel = g->table,
                                .lang = g->language,
                                .nseats = g->nseats,
                                .users = v->users,
                                .names = v->names,
                                .langs = v->langs};
}

const char *game_seat_language(const struct game *g, unsigned i)
{
    return i < g->nseats && g->seats[i].language[0] ? g->seats[i].language : g->language;
}

int game_seat_of(const struct game *g, const char *user)
{
    for (unsigned i = 0; i < g->nseats; i++)
        if (strcmp(g->seats[i].user, user) == 0)
            return (int)i;
    return -1;
}

const char *game_seat_name(const struct game *g, unsigned i)
{
    return g->seats[i].name[0] ? g->seats[i].name : g->seats[i].user;
}

void game_seat_names(const struct game *g, char *out, size_t len)
{
    struct text_list l;
    text_list_init(&l, out, len, ", ");
    for (unsigned i = 0; i < g->nseats; i++)
        text_list_add(&l, "%s", game_seat_name(g, i));
}

static void add_str(struct json_object *o, const char *k, const char *v)
{
    json_object_object_add(o, k, json_object_new_string(v));
}

static void add_int(struct json_object *o, const char *k, int64_t v)
{
    json_object_object_add(o, k, json_object_new_int64(v));
}

/* A set of user hashes (bot/seats.h) as 16 hex digits each; nothing when empty. */
static void add_hashes(struct json_object *o, const char *k, const uint64_t *set, unsigned n)
{
    struct json_object *a = n ? json_object_new_array() : NULL;
    for (unsigned i = 0; a && i < n; i++) {
        char hex[17];
        snprintf(hex, sizeof hex, "%016" PRIx64, set[i]);
        json_object_array_add(a, json_object_new_string(hex));
    }
    if (a)
        json_object_object_add(o, k, a);
}

/* Reads what add_hashes() wrote (absent: none). False when damaged. */
static bool get_hashes(const struct json_object *o, const char *k, uint64_t *set, unsigned max,
                       unsigned *n)
{
    struct json_object *a = jget(o, k) ? jget_arr(o, k) : NULL;
    *n = 0;
    if (!jget(o, k))
        return true;
    if (!a || jarr_len(a) > max)
        return false;
    for (size_t i = 0; i < jarr_len(a); i++) {
        const char *hex = jarr_str(a, i);
        uint64_t v = 0;
        if (!hex || strlen(hex) != 16)
            return false;
        for (const char *p = hex; *p; p++) {
            int d = *p >= '0' && *p <= '9' ? *p - '0' : *p >= 'a' && *p <= 'f' ? *p - 'a' + 10 : -1;
            if (d < 0)
                return false;
            v = v << 4 | (uint64_t)d;
        }
        set[(*n)++] = v;
    }
    return true;
}

/* Seat i's computer: its level, whether it stands in, and its memory once
 * the game has one. Returns 0 or -1 (no memory). */
static int add_computer(const struct game *g, unsigned i, struct json_object *seat)
{
    const struct rules_strategy *l = game_seat_level(g, i);
    struct json_object *c = json_object_new_object();
    if (!c || !l || json_object_object_add(seat, "computer", c) != 0) {
        json_object_put(c);
        return -1;
    }
    add_str(c, "level", l->id);
    if (g->seats[i].standin)
        json_object_object_add(c, "standin", json_object_new_boolean(true));
    if (!game_mind(g, i))
        return 0;
    struct json_object *memory = json_object_new_object();
    if (!memory || json_object_object_add(c, "memory", memory) != 0) {
        json_object_put(memory);
        return -1;
    }
    return l->save(game_mind(g, i), memory);
}

/* The game's own computer fields, those that are not 0. */
static void add_computers(const struct game *g, struct json_object *o)
{
    const struct rules_strategy *l = g->stand_in ? computers_level(g->rules, g->stand_in) : NULL;
    if (l)
        add_str(o, "stand_in", l->id);
    if (g->computers_named)
        add_int(o, "computers_named", g->computers_named);
    if (g->computers_asked)
        add_int(o, "computers_asked", g->computers_asked);
    if (g->computers_moved)
        add_int(o, "computers_moved", g->computers_moved);
}

/* Who the game is: its ids, host, language, event, watchers and community. */
static void add_identity(const struct game *g, struct json_object *o)
{
    add_str(o, "id", g->id);
    add_str(o, "table", g->table);
    add_str(o, "host", g->host);
    add_str(o, "host_name", g->host_name);
    add_str(o, "language", g->language);
    if (g->event[0])
        add_str(o, "event", g->event);
    if (g->nwatchers) {
        struct json_object *w = json_object_new_array();
        for (unsigned i = 0; w && i < g->nwatchers; i++)
            json_object_array_add(w, json_object_new_string(g->watchers[i]));
        json_object_object_add(o, "watchers", w);
    }
    if (g->community[0])
        add_str(o, "community", g->community);
}

/* Seat i as JSON, or NULL (out of memory, or its computer's memory not saved). */
static struct json_object *seat_to_json(const struct game *g, unsigned i)
{
    struct json_object *s = json_object_new_object();
    if (!s)
        return NULL;
    add_str(s, "user", g->seats[i].user);
    add_str(s, "name", g->seats[i].name);
    if (g->seats[i].reminders_off)
        json_object_object_add(s, "reminders_off", json_object_new_boolean(true));
    if (g->seats[i].open)
        json_object_object_add(s, "open", json_object_new_boolean(true));
    if (g->started)
        add_int(s, "last_move", g->seats[i].last_move);
    if (g->seats[i].absent_warned)
        json_object_object_add(s, "absent_warned", json_object_new_boolean(true));
    if (g->seats[i].language[0])
        add_str(s, "language", g->seats[i].language);
    if (g->seats[i].computer && add_computer(g, i, s) < 0) {
        json_object_put(s);
        return NULL;
    }
    return s;
}

/* The seats array; 0 or -1. */
static int add_seats(const struct game *g, struct json_object *o)
{
    struct json_object *seats = json_object_new_array();
    if (!seats)
        return -1;
    for (unsigned i = 0; i < g->nseats; i++) {
        struct json_object *s = seat_to_json(g, i);
        if (!s) {
            json_object_put(seats);
            return -1;
        }
        json_object_array_add(seats, s);
    }
    json_object_object_add(o, "seats", seats);
    return 0;
}

/* The seed and the rng's words; 0 or -1. Full 64-bit values: kept as decimal strings. */
static int add_rng(const struct game *g, struct json_object *o)
{
    struct json_object *rng = json_object_new_array();
    if (!rng)
        return -1;
    char num[32];
    snprintf(num, sizeof num, "%" PRIu64, g->seed);
    add_str(o, "seed", num);
    for (unsigned i = 0; i < 4; i++) {
        snprintf(num, sizeof num, "%" PRIu64, g->rng.s[i]);
        json_object_array_add(rng, json_object_new_string(num));
    }
    json_object_object_add(o, "rng", rng);
    return 0;
}

struct json_object *game_to_json(const struct game *g)
{
    struct json_object *o = json_object_new_object();
    if (!o)
        return NULL;
    add_identity(g, o);
    add_hashes(o, "insiders", g->insiders, g->ninsiders);
    add_hashes(o, "kicked", g->kicked, g->nkicked);
    add_str(o, "rules", g->rules->id);
    json_object_object_add(o, "started", json_object_new_boolean(g->started));
    if (add_seats(g, o) < 0 || add_rng(g, o) < 0)
        goto fail;
    add_int(o, "tracked_deadline", g->tracked_deadline);
    add_int(o, "phase_length", g->phase_length);
    add_int(o, "reminders_sent", g->reminders_sent);
    add_int(o, "lobby_activity", g->lobby_activity);
    if (g->start_at)
        add_int(o, "start_at", g->start_at);
    add_computers(g, o);
    struct json_object *chat = chat_to_json(g->chat);
    if (chat)
        json_object_object_add(o, "chat", chat);
    if (g->rules->save(g->state, g->started, o) < 0)
        goto fail;
    return o;
fail:
    json_object_put(o);
    return NULL;
}

/* A record written before names were cleaned on the way in may hold line
 * breaks: clean it the same way. Nothing left is "", which shows the id. */
static void clean_name(char name[GAME_TEXT_MAX])
{
    char clean[GAME_TEXT_MAX] = ""; /* every byte: the image copies them (bot/image.h) */
    command_clean_name(name, clean, sizeof clean);
    memcpy(name, clean, sizeof clean);
}

/* Decimal digits only, within 64 bits: what game_to_json() writes. */
static bool parse_u64(const char *s, uint64_t *out)
{
    uint64_t v = 0;
    if (!s || !*s)
        return false;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || v > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
            return false;
        v = v * 10 + (uint64_t)(*s - '0');
    }
    *out = v;
    return true;
}

/* Seat i's "computer" (its memory is read by get_computers). */
static int get_computer(struct game *g, unsigned i, const struct json_object *c)
{
    struct seat *s = &g->seats[i];
    unsigned level = c ? computers_level_named(g->rules, jget_str(c, "level")) : 0;
    if (!level || (jget(c, "standin") && jget_bool(c, "standin", &s->standin) < 0) ||
        (jget(c, "memory") && !jget_obj(c, "memory")))
        return -1;
    s->computer = (uint8_t)level;
    return 0;
}

/* The game's computer fields and every computer seat's memory: a running
 * game's computers each have one, a lobby's none. */
static int get_computers(struct game *g, const struct json_object *o, char *why, size_t whylen)
{
    int64_t named = 0;
    const char *stand_in = jget_str(o, "stand_in");
    if ((jget(o, "stand_in") &&
         !(g->stand_in = (uint8_t)computers_level_named(g->rules, stand_in))) ||
        (jget(o, "computers_named") &&
         (jget_int64(o, "computers_named", &named) < 0 || named < 0 || named > UINT8_MAX)) ||
        (jget(o, "computers_asked") && jget_int64(o, "computers_asked", &g->computers_asked) < 0) ||
        (jget(o, "computers_moved") && jget_int64(o, "computers_moved", &g->computers_moved) < 0)) {
        snprintf(why, whylen, "computer settings invalid");
        return -1;
    }
    g->computers_named = (uint8_t)named;
    struct json_object *seats = jget_arr(o, "seats");
    for (unsigned i = 0; i < g->nseats; i++) {
        const struct rules_strategy *l = game_seat_level(g, i);
        struct json_object *memory = jget_obj(jget_obj(jarr_at(seats, i), "computer"), "memory");
        if (!l)
            continue;
        if (!memory != !g->started) {
            snprintf(why, whylen, "seat %u: a computer's memory %s", i,
                     g->started ? "missing" : "in a lobby");
            return -1;
        }
        if (!memory)
            continue;
        if (!g->minds && !(g->minds = calloc(g->nseats, game_mind_size(g)))) {
            snprintf(why, whylen, "out of memory");
            return -1;
        }
        char reason[96] = "";
        if (l->load(game_mind(g, i), memory, reason, sizeof reason) < 0) {
            snprintf(why, whylen, "seat %u: computer memory invalid (%s)", i, reason);
            return -1;
        }
    }
    return 0;
}

/* Each reader of a part of a game's record fills its fields of g, or
 * writes why it cannot and returns -1; they run in this order. */

/* Who and where: ids, names, language, community, event, the rules module. */
static int read_header(struct game *g, const struct json_object *o, char *why, size_t whylen)
{
    if (!jget_str_into(o, "id", g->id, sizeof g->id) ||
        !jget_str_into(o, "table", g->table, sizeof g->table) ||
        !jget_str_into(o, "host", g->host, sizeof g->host) ||
        !jget_str_into(o, "host_name", g->host_name, sizeof g->host_name) ||
        !jget_str_into(o, "language", g->language, sizeof g->language) ||
        (jget(o, "community") &&
         !jget_str_into(o, "community", g->community, sizeof g->community)) ||
        (jget(o, "event") && !jget_str_into(o, "event", g->event, sizeof g->event))) {
        snprintf(why, whylen, "id, table, host, host_name, language, community or event invalid");
        return -1;
    }
    if (jget_bool(o, "started", &g->started) < 0) {
        snprintf(why, whylen, "started missing");
        return -1;
    }
    /* Records from before there were several rules modules are Illegal's. */
    g->rules = rules_by_id(jget_str(o, "rules") ? jget_str(o, "rules") : "illegal");
    if (!g->rules) {
        snprintf(why, whylen, "rules unknown");
        return -1;
    }
    clean_name(g->host_name);
    return 0;
}

/* Seat i: who sits there, their reminders, language and computer. */
static int read_seat(struct game *g, unsigned i, const struct json_object *s, char *why,
                     size_t whylen)
{
    struct seat *seat = &g->seats[i];
    if (!jget_str_into(s, "user", seat->user, sizeof seat->user) ||
        !jget_str_into(s, "name", seat->name, sizeof seat->name)) {
        snprintf(why, whylen, "seat %u invalid", i);
        return -1;
    }
    seat->last_move = -1;
    if ((jget(s, "reminders_off") && jget_bool(s, "reminders_off", &seat->reminders_off) < 0) ||
        (jget(s, "open") && jget_bool(s, "open", &seat->open) < 0) ||
        (jget(s, "last_move") &&
         (jget_int64(s, "last_move", &seat->last_move) < 0 || seat->last_move < -1)) ||
        (jget(s, "absent_warned") && jget_bool(s, "absent_warned", &seat->absent_warned) < 0) ||
        (jget(s, "language") &&
         !jget_str_into(s, "language", seat->language, sizeof seat->language))) {
        snprintf(why, whylen, "seat %u reminders invalid", i);
        return -1;
    }
    if (jget(s, "computer") && get_computer(g, i, jget_obj(s, "computer")) < 0) {
        snprintf(why, whylen, "seat %u computer invalid", i);
        return -1;
    }
    clean_name(seat->name);
    return 0;
}

static int read_seats(struct game *g, const struct json_object *o, char *why, size_t whylen)
{
    struct json_object *seats = jget_arr(o, "seats");
    if (!seats || jarr_len(seats) > g->rules->max_players) {
        snprintf(why, whylen, "seats invalid");
        return -1;
    }
    g->nseats = (unsigned)jarr_len(seats);
    for (unsigned i = 0; i < g->nseats; i++)
        if (read_seat(g, i, jarr_at(seats, i), why, whylen) < 0)
            return -1;
    return 0;
}

/* The game's seed and its rng's state. */
static int read_rng(struct game *g, const struct json_object *o, char *why, size_t whylen)
{
    struct json_object *rng = jget_arr(o, "rng");
    if (!parse_u64(jget_str(o, "seed"), &g->seed) || jarr_len(rng) != 4) {
        snprintf(why, whylen, "seed or rng invalid");
        return -1;
    }
    for (unsigned i = 0; i < 4; i++)
        if (!parse_u64(jarr_str(rng, i), &g->rng.s[i])) {
            snprintf(why, whylen, "rng invalid");
            return -1;
        }
    /* xoshiro never leaves the all-zero state: such a record is damaged. */
    if (!(g->rng.s[0] | g->rng.s[1] | g->rng.s[2] | g->rng.s[3])) {
        snprintf(why, whylen, "rng state is all zero");
        return -1;
    }
    return 0;
}

/* The bot's clock of the game: the deadline it reminds of, the lobby's. */
static int read_clock(struct game *g, const struct json_object *o, char *why, size_t whylen)
{
    int64_t n;
    if (jget_int64(o, "tracked_deadline", &g->tracked_deadline) < 0 ||
        jget_int64(o, "phase_length", &g->phase_length) < 0 ||
        jget_int64(o, "reminders_sent", &n) < 0 || n < 0 || n > 7) {
        snprintf(why, whylen, "reminder state invalid");
        return -1;
    }
    g->reminders_sent = (uint8_t)n;
    /* Records from before lobbies expired have no lobby_activity: 0, and the
     * dispatcher starts their idle time at the restore. */
    if (jget(o, "lobby_activity") &&
        (jget_int64(o, "lobby_activity", &g->lobby_activity) < 0 || g->lobby_activity < 0)) {
        snprintf(why, whylen, "lobby_activity invalid");
        return -1;
    }
    if (jget(o, "start_at") && (jget_int64(o, "start_at", &g->start_at) < 0 || g->start_at < 0)) {
        snprintf(why, whylen, "start_at invalid");
        return -1;
    }
    return 0;
}

/* Who follows the game, who was in it, who was kicked, and its chat (the
 * one part that allocates: last, so that nothing fails after it). */
static int read_lists(struct game *g, const struct json_object *o, char *why, size_t whylen)
{
    struct json_object *watchers = jget(o, "watchers") ? jget_arr(o, "watchers") : NULL;
    if (jget(o, "watchers") && (!watchers || jarr_len(watchers) > GAME_MAX_WATCHERS)) {
        snprintf(why, whylen, "watchers invalid");
        return -1;
    }
    for (size_t i = 0; i < jarr_len(watchers); i++) {
        const char *w = jarr_str(watchers, i);
        if (!w || strlen(w) >= GAME_TEXT_MAX) {
            snprintf(why, whylen, "watcher %zu invalid", i);
            return -1;
        }
        text_copy(g->watchers[g->nwatchers], sizeof g->watchers[0], w);
        g->nwatchers++;
    }
    if (!get_hashes(o, "insiders", g->insiders, GAME_MAX_INSIDERS, &g->ninsiders) ||
        !get_hashes(o, "kicked", g->kicked, GAME_MAX_KICKED, &g->nkicked)) {
        snprintf(why, whylen, "insiders or kicked invalid");
        return -1;
    }
    if (jget(o, "chat") &&
        (!jget_arr(o, "chat") || chat_from_json(jget_arr(o, "chat"), &g->chat) < 0)) {
        snprintf(why, whylen, "chat invalid");
        return -1;
    }
    return 0;
}

int game_from_json(struct game *out, const struct json_object *o, char *why, size_t whylen)
{
    static int (*const readers[])(struct game *, const struct json_object *, char *, size_t) = {
        read_header, read_seats, read_rng, read_clock, read_lists,
    };
    struct game g;
    memset(&g, 0, sizeof g);
    for (size_t i = 0; i < sizeof readers / sizeof *readers; i++)
        if (readers[i](&g, o, why, whylen) < 0)
            return -1;
    g.state = malloc(g.rules->state_size);
    if (!g.state) {
        free(g.chat);
        snprintf(why, whylen, "out of memory");
        return -1;
    }
    if (g.rules->load(g.state, g.started, g.nseats, o, why, whylen) < 0 ||
        get_computers(&g, o, why, whylen) < 0) {
        free(g.state);
        free(g.chat);
        free(g.minds);
        return -1;
    }
    *out = g;
    return 0;
}
