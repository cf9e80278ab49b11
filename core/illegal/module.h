/*
 * module.h - Illegal as a rules module (core/rules.h), and what its
 * renderers and name matching offer the rest of the module.
 *
 * The module's state is struct il_state: the lobby's settings, the rules'
 * game (illegal.h) and the record of what the table was shown. Like the
 * rules' game it is plain data.
 */
#ifndef CORE_ILLEGAL_MODULE_H
#define CORE_ILLEGAL_MODULE_H

#include "../rules.h"
#include "illegal.h"

/* Who took a drop card, when nobody (yet) or nobody known did. */
#define IL_DROP_ON_TABLE (-1)
#define IL_DROP_UNKNOWN  (-2) /* taken, in a record older than this field */

/*
 * The drop as the table sees it. The rules clear their drop as soon as it
 * ends, and never say who took which card; this record keeps both, so that
 * every edit of the drop message, the last one included, lists each card
 * and who took it. Kept in step by il_render_note().
 */
struct il_drop {
    uint8_t number;              /* 1..4; 0 before the first drop */
    uint8_t count;               /* cards shown so far */
    uint8_t cards[IL_RESOURCES]; /* resources, in reveal order */
    int8_t taker[IL_RESOURCES];  /* seat that took each card, or IL_DROP_* */
    uint8_t leftover;            /* bit i: card i was handed out, not grabbed */
    bool open, done;             /* grabbing has begun; the drop is over */
};

/* The module's state. `game` is meaningful once the game has started. */
struct il_state {
    struct il_config config;
    bool
        poll_ballots; /* tribunal votes as a native poll in the table, where the platform has one */
    struct il_game game;
    struct il_drop drop;
};

/* The module. */
extern const struct rules_module il_module;

/* Its settings: the rows of il_settings (config.c), in the order `set` lists them. */
enum il_setting {
    IL_SET_PRESET,
    IL_SET_VARIANT,
    IL_SET_RESOURCES,
    IL_SET_TRIBUNAL,
    IL_SET_TRIBUNAL_AT,
    IL_SET_BALLOTS,
    IL_SET_SESSION,
    IL_SET_CASUAL_SESSION, /* the session's default in a casual variant: the configuration's */
    IL_SET_REVEAL,
    IL_SET_GRAB,
    IL_SET_DEBATE,
    IL_SET_VOTE,
    IL_SETTINGS
};
extern const struct rules_setting il_settings[IL_SETTINGS + 1];

/* Every phase change of the rules (game.c), ended by an entry with no from. */
extern const struct rules_transition il_transitions[];

/* The setting that holds timer t's default in variant v. */
enum il_setting il_timer_setting(enum il_timer t, enum il_variant v);

/* Its commands (commands.c), ended by an entry with no word. */
extern const struct command_def il_commands[];

/* Brings s->drop up to date with the events of one change. */
void il_render_note(struct il_state *s, const struct il_events *ev);

/*
 * Renders the events of one change the way the table should read them: the
 * public notices in a row become one message (its data has the last notice's
 * fields and "events", every notice's event in order), and the drop message
 * goes out once, after the last event that changed it.
 */
void il_render(const struct il_state *s, const struct rules_table *t, const struct il_events *ev,
               rules_emit_fn emit, void *arg);

/* Renders one event alone, unbatched: what il_render() makes of it before
 * notices are joined (the tests look at each event's messages). */
void il_render_event(const struct il_state *s, const struct rules_table *t,
                     const struct il_event *e, rules_emit_fn emit, void *arg);

/* Renders seat's hand message (roles and cards). It replaces the last one,
 * unless `fresh` asks for a new message (the player asked to see it). */
void il_render_private(const struct il_state *s, const struct rules_table *t, unsigned seat,
                       bool fresh, rules_emit_fn emit, void *arg);

/* Tells seat, just taken over, how it stands on each case open to votes: its
 * vote (cast by the player before), an abstention, or none yet; each may be
 * changed until that vote closes. */
void il_render_taken(const struct il_state *s, const struct rules_table *t, unsigned seat,
                     rules_emit_fn emit, void *arg);

/* Completes what seat types as `option` of a command (core/rules.h: complete). */
void il_complete(const void *state, const struct rules_table *t, unsigned seat, const char *word,
                 const char *option, const char *typed, rules_choice_fn add, void *arg);

/* Writes the phase as a status line names it ("dealing session 2 of 5"). */
void il_phase_line(const struct il_game *g, const char *lang, char *out, size_t len);

/* Writes the Game Master's view of a running game in t's language: each
 * seat's roles and cards, the open offers, who has taken a card from the
 * drop, and the votes cast so far on the open cases. Secret (gm.c). */
void il_gm_view(const struct il_game *g, const struct rules_table *t, char *out, size_t len);

/*
 * The recap of a finished game, each part a text in lang (names: each seat's
 * display name), at most len bytes with a "...and N more" line when it is cut:
 * every trade, who gave what to whom and in which session; every case anyone
 * voted on, with each player's vote, secret until now; and awards (best dealer, busiest
 * trader, who fooled the tribunal, whose roles were never found).
 */
/* Writes case k with each active player's vote on it, by name: "Case 2
 * (cards): alice voted bob, carol abstained, dave did not vote." */
void il_case_votes(const struct il_game *g, unsigned k, const char *lang, const char *const *names,
                   char *out, size_t len);

/* Writes an open offer as a line of a list: "#3 alice -> bob: 1 Guns for nothing". */
void il_offer_line(const struct il_offer *o, const char *lang, const char *const *names, char *out,
                   size_t len);

void il_recap_trades(const struct il_game *g, const char *lang, const char *const *names, char *out,
                     size_t len);
void il_recap_votes(const struct il_game *g, const char *lang, const char *const *names, char *out,
                    size_t len);
void il_recap_awards(const struct il_game *g, const char *lang, const char *const *names, char *out,
                     size_t len);

/* Writes a card list ("2 Guns, 1 Alcohol"), or the catalog's "nothing". */
void il_render_cards(char *out, size_t len, const char *lang, const struct il_bundle *b);

/* The emoji that stands for a resource on the drop message. */
const char *il_emoji(unsigned resource);

/* Maps an emoji back to a resource; -1 when it stands for none. */
int il_emoji_resource(const char *emoji);

/*
 * Parses a card list such as "2 guns 1 alcohol", "guns, luxury cars" or
 * "nothing", matching names loosely (case, singular or plural, unambiguous
 * prefixes) against the resources in `in_play` (bit mask). `lang` picks the
 * display names. On RESOLVE_UNKNOWN/AMBIGUOUS, `word` receives the word that
 * failed and `choices` a comma-separated list of candidates.
 */
enum resolve_error il_parse_cards(const char *text, unsigned in_play, const char *lang,
                                  struct il_bundle *out, char *word, size_t wordlen, char *choices,
                                  size_t choiceslen);

/* Matches a single resource name (for grab). Same rules and outputs. */
enum resolve_error il_parse_resource(const char *text, unsigned in_play, const char *lang,
                                     int *resource, char *choices, size_t choiceslen);

#endif
