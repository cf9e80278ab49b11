/*
 * seats.c - the seat rules (docs/seats.md): who may take a seat of a game.
 */
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

enum seat_refusal seats_check(const struct game *g, const char *user)
{
    uint64_t h = seats_hash(user);
    if (game_seat_of(g, user) >= 0) /* S1 */
        return SEAT_HELD;
    if (among(g->kicked, g->nkicked, h)) /* S8 */
        return SEAT_KICKED;
    if (g->started && among(g->insiders, g->ninsiders, h)) /* S4 */
        return SEAT_INSIDER;
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
