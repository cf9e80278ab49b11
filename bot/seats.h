/*
 * seats.h - who may take a seat of a game: the seat rules, in one place.
 *
 * The rules are numbered as in docs/seats.md (S1-S15); the code that
 * enforces one cites it. Everything a seat may be refused for is decided by
 * seats_check(), whoever asks: a join in a lobby, a takeover of an offered
 * seat in a running game, a computer player the host adds; and whether a
 * computer may stand in for a person by seats_check_stand_in().
 *
 * A game remembers two sets of users: those who have seen secrets a seat
 * does not know (S4: the Game Master's view, a seat handed on), and those
 * its host kicked (S8, carried over to its rematch). Both are kept as 64-bit
 * hashes of the user ids (FNV-1a), so that a game's record stays small
 * whoever is in them.
 */
#ifndef BOT_SEATS_H
#define BOT_SEATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/attributes.h"
#include "game.h"
#include "platform.h"

/* Why a user may not take a seat. */
enum seat_refusal {
    SEAT_OK,
    SEAT_HELD,    /* S1: they hold a seat of this game already (or held one and were removed) */
    SEAT_KICKED,  /* S8: the host kicked them from this game, or from the game it plays again */
    SEAT_INSIDER, /* S4: they have seen secrets a seat of this game does not know */
    SEAT_COMPUTER_STARTED, /* S12: a running game seats no new computer (one may stand in) */
    SEAT_STAND_IN_NO,      /* S14: no computer may stand in for that seat now */
};

/* S12: the ids computer players take, "cpu:" and a number, which no platform
 * gives a person; an input that claims one is refused. */
#define SEATS_COMPUTER_PREFIX PLATFORM_COMPUTER_PREFIX

/* Whether user is a computer's id (S12). */
bool seats_is_computer_id(const char *user);

/* Writes the id of g's next computer ("cpu:3") into out: one no seat of g
 * holds. Returns its number, for g->computers_named once it is seated. */
unsigned seats_computer_id(const struct game *g, char *out, size_t len);

/* S14: whether a computer may stand in for seat's person now: a running game,
 * the seat still in it and played by its person (offered or not: a newcomer
 * who takes it over stops the computer). */
enum seat_refusal seats_check_stand_in(const struct game *g, unsigned seat);

/*
 * Whether `user` (a person, or a computer's id) may take a seat of g now: a
 * free seat of a lobby, or an offered one of a running game (S2, S3 are the
 * caller's: whether there is such a seat). SEAT_OK, or the first rule that
 * refuses them.
 */
enum seat_refusal seats_check(const struct game *g, const char *user);

/* The catalog key that tells a user why they were refused. */
const char *seats_refusal_key(enum seat_refusal r);

/* Notes that `user` has seen secrets of g (S4). Returns 0, or -1 when g can
 * remember no one more: the caller must then refuse what would have shown
 * them (S4 keeps no gaps). Noting someone twice is fine. */
int seats_note_insider(struct game *g, const char *user) MUST_USE;

/* Notes that g's host kicked `user` (S7); when g remembers the most it can,
 * the oldest kick is forgotten. */
void seats_note_kicked(struct game *g, const char *user);

/* Whether g's host kicked `user` (from it, or from the game it plays again). */
bool seats_kicked(const struct game *g, const char *user);

/* S9: lets everyone g's host kicked take a seat again. */
void seats_forgive(struct game *g);

/* S8: the rematch g keeps the kicks of `finished`, the game it plays again. */
void seats_carry_kicks(struct game *g, const struct game *finished);

/* The hash a user id is remembered by. */
uint64_t seats_hash(const char *user);

#endif
