/*
 * seats.c - the seat rules (docs/seats.md): who may take a seat of a game.
 */
#include <stdio.h>
#include <string.h>

#include "seats.h"

uint64_t seats_hash(const char *user)
{
    uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a */
    for (const unsigned char *p = (const unsigned char *)user; *p; p++)
        h = (h ^ *p) * 0x100000001b3ULL;
    return h;
}

static bool among(const uint64_t *set, unsigned n, uint64_t h)
{
    for (unsigned i = 0; i < n; i++)
        if (set[i] == h)
            return true;
    return false;
}

bool seats_is_computer_id(const char *user)
{
    return user && strncmp(user, SEATS_COMPUTER_PREFIX, strlen(SEATS_COMPUTER_PREFIX)) == 0;
}

unsigned seats_computer_id(const struct game *g, char *out, size_t len)
{
    unsigned n = g->computers_named;
    do /* a number no seat holds, whatever a record says */
        snprintf(out, len, SEATS_COMPUTER_PREFIX "%u", ++n);
    while (game_seat_of(g, out) >= 0);
    return n;
}

enum seat_refusal seats_check(const struct game *g, const char *user)
{
    uint64_t h = seats_hash(user);
    if (game_seat_of(g, user) >= 0) /* S1 */
        return SEAT_HELD;
    if (seats_is_computer_id(user) && g->started) /* S12 */
        return SEAT_COMPUTER_STARTED;
    if (among(g->kicked, g->nkicked, h)) /* S8 */
        return SEAT_KICKED;
    if (g->started && among(g->insiders, g->ninsiders, h)) /* S4 */
        return SEAT_INSIDER;
    return SEAT_OK;
}

enum seat_refusal seats_check_stand_in(const struct game *g, unsigned seat)
{
    const struct seat *s = &g->seats[seat];
    if (!g->started || seat >= g->nseats || !game_active(g, seat) || s->computer ||
        !g->rules->strategies || !g->rules->strategies[0].id) /* S14 */
        return SEAT_STAND_IN_NO;
    return SEAT_OK;
}

const char *seats_refusal_key(enum seat_refusal r)
{
    switch (r) {
    case SEAT_OK:
        break;
    case SEAT_HELD:
        return "msg.already-joined";
    case SEAT_KICKED:
        return "msg.seat-kicked";
    case SEAT_INSIDER:
        return "msg.seat-insider";
    case SEAT_COMPUTER_STARTED:
        return "msg.computer-lobby-only";
    case SEAT_STAND_IN_NO:
        return "msg.stand-in-no";
    }
    return "msg.store-failed";
}

int seats_note_insider(struct game *g, const char *user)
{
    uint64_t h = seats_hash(user);
    if (among(g->insiders, g->ninsiders, h))
        return 0;
    if (g->ninsiders == GAME_MAX_INSIDERS)
        return -1;
    g->insiders[g->ninsiders++] = h;
    return 0;
}

void seats_note_kicked(struct game *g, const char *user)
{
    uint64_t h = seats_hash(user);
    if (among(g->kicked, g->nkicked, h))
        return;
    if (g->nkicked == GAME_MAX_KICKED) {
        memmove(g->kicked, g->kicked + 1, (GAME_MAX_KICKED - 1) * sizeof *g->kicked);
        g->nkicked--;
    }
    g->kicked[g->nkicked++] = h;
}

bool seats_kicked(const struct game *g, const char *user)
{
    return among(g->kicked, g->nkicked, seats_hash(user));
}

void seats_forgive(struct game *g)
{
    memset(g->kicked, 0, sizeof g->kicked);
    g->nkicked = 0;
}

void seats_carry_kicks(struct game *g, const struct game *finished)
{
    memcpy(g->kicked, finished->kicked, sizeof g->kicked);
    g->nkicked = finished->nkicked;
}
