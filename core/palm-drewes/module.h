/*
 * module.h - Palm & Drewes' Illegal as a rules module (core/rules.h): the
 * module's state, and what its settings, renderers and commands offer one
 * another.
 *
 * The state is plain data: the lobby's settings, the series the table plays
 * (carried from a finished game to its rematch) and the rules' game.
 */
#ifndef CORE_PALM_DREWES_MODULE_H
#define CORE_PALM_DREWES_MODULE_H

#include "../rules.h"
#include "palm_drewes.h"

struct pd_state {
    uint8_t preset; /* the mode the lobby was opened in: its index in pd_presets */
    struct pd_config config;
    struct pd_series series; /* the series the next game continues; games 0: a new one */
    struct pd_game game;     /* meaningful once the game has started */
};

/* The module. */
extern const struct rules_module pd_module;

/* Its settings (config.c), in the order of enum pd_setting. */
extern const struct rules_setting pd_settings[];

/* Every change of phase its rules make (game.c). */
extern const struct rules_transition pd_transitions[];

/* Its commands (commands.c), ended by an entry with no word. */
extern const struct command_def pd_commands[];

/* settings.c: the lobby's settings (`defaults`: the daemon's, one value per
 * entry of pd_settings), and their mode. */
int pd_settings_init(struct pd_state *s, const char *mode, const struct rules_defaults *defaults);
const char *pd_settings_mode(const struct pd_state *s);
/* The index in pd_presets of the preset called id (any case), or -1. */
int pd_preset_index(const char *id);
const char *pd_settings_preset_at(unsigned i);
int pd_settings_describe(const struct pd_state *s, const char *lang,
                         const struct rules_defaults *defaults, struct json_object *out, char *text,
                         size_t len);
enum rules_set_result pd_settings_set(struct pd_state *s, bool started, const char *key,
                                      const char *value, const char *lang,
                                      const struct rules_defaults *defaults, char *shown,
                                      size_t shownlen, struct pd_action *action);

/* render.c: events as messages for the table and each seat. */
void pd_render(const struct pd_state *s, const struct rules_table *t, const struct pd_events *ev,
               int64_t now, rules_emit_fn emit, void *arg);
/* table.c: the table view (every business, burden and hand's size, the
 * pile), sent when the game starts and edited after each change to it. */
void pd_render_table(const struct pd_state *s, const struct rules_table *t,
                     const struct pd_events *ev, rules_emit_fn emit, void *arg);
/* prompts.c: the questions the events open (the pass, the Magnum's window,
 * the loss, offers), each to one seat, and their closing edits. */
void pd_render_prompts(const struct pd_state *s, const struct rules_table *t,
                       const struct pd_events *ev, int64_t now, rules_emit_fn emit, void *arg);
/* The prompts open to seat now (its pass, window or loss, its offers), sent
 * anew to one who has just taken the seat over; `now` counts time left. */
void pd_render_open_prompts(const struct pd_state *s, const struct rules_table *t, unsigned seat,
                            int64_t now, rules_emit_fn emit, void *arg);
/* Seat's private view: its hand, business, burden and offers. */
void pd_render_private(const struct pd_state *s, const struct rules_table *t, unsigned seat,
                       bool fresh, rules_emit_fn emit, void *arg);
/* The whole table for the host who does not play: every hand and offer. */
void pd_gm_view(const struct pd_state *s, const struct rules_table *t, char *out, size_t len);
/* The status line: phase, whose turn, time left. */
void pd_status(const struct pd_state *s, const struct rules_table *t, int64_t now, char *out,
               size_t len);

/* complete.c: what seat may name as it types `option` (rules.h: complete). */
void pd_complete(const void *state, const struct rules_table *t, unsigned seat, const char *word,
                 const char *option, const char *typed, rules_choice_fn add, void *arg);

/* names.c: cards as players type them. */
/* The card the text names in lang or in English (an id, a name, or an
 * unambiguous prefix of one; any case), or -1 (0 matches) / -2 (several). */
int pd_card_parse(const char *text, const char *lang);
/* Reads "dope x2, guns" (or "2 dope, guns") into b. Returns RESOLVE_OK, or
 * why not with the word that failed in `word`. */
enum resolve_error pd_cards_parse(const char *text, const char *lang, struct pd_bundle *b,
                                  char *word, size_t wordlen);

#endif
