/*
 * words.h - the words of Palm & Drewes' Illegal: its events, errors and
 * cards as the catalog's "palm-drewes.*" keys write them in a language.
 *
 * Pure functions of the catalog (core/catalog.h, core/text.h). Every output
 * is NUL-terminated and cut at len, never inside a card name or a list item.
 */
#ifndef CORE_PALM_DREWES_WORDS_H
#define CORE_PALM_DREWES_WORDS_H

#include <stddef.h>
#include <stdint.h>

#include "palm_drewes.h"

/* The catalog key prefix of every word of the module. */
#define PD_KEYS "palm-drewes."

/* A card's name in lang ("Stoff"); the id itself when the catalog has none. */
const char *pd_card_name(const char *lang, unsigned card);

/* Writes a card's rule in one line into out. */
void pd_card_rule(char *out, size_t len, const char *lang, unsigned card);

/* Writes an amount of euros as lang writes it: "€25,000", "25.000 €", "-€5,000". */
void pd_euros_text(char *out, size_t len, const char *lang, int64_t euros);

/* Writes the cards of b, in the box's order: "Dope ×2, Guns"; the catalog's
 * "nothing" when b is empty. */
void pd_cards_text(char *out, size_t len, const char *lang, const struct pd_bundle *b);

/* The reason for error e in lang (static). */
const char *pd_error_text(const char *lang, enum pd_error e);

/*
 * Writes event e as its audience reads it, in lang: names[s] is seat s's name
 * (nseats of them), now the caller's clock for the time left. Returns the
 * catalog key of the text (the first one, for an event written with two).
 */
const char *pd_event_text(char *out, size_t len, const char *lang, const struct pd_event *e,
                          const char *const *names, unsigned nseats, int64_t now);

/* Writes the question a step asks a seat, from the event that opened it:
 * PD_EV_PASS_OPENED (with target set to the seat's left neighbour),
 * PD_EV_TAKEOVER or PD_EV_LOSS_DUE; the time left is counted from now.
 * Returns the text's catalog key. */
const char *pd_prompt_text(char *out, size_t len, const char *lang, const struct pd_event *e,
                           const char *const *names, unsigned nseats, int64_t now);

/* The catalog key of the reminder for a player waited on in phase p
 * ("palm-drewes.msg.reminder-turn"), or NULL for a phase that waits on nobody
 * in particular. */
const char *pd_reminder_key(enum pd_phase p);

#endif
