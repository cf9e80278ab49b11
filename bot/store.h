/*
 * store.h - the daemon's durable state in one SQLite file (WAL mode).
 *
 * Six tables: games (one JSON record per hosted game, and an unfinished
 * game's image, bot/image.h, written with it), events (one per
 * event, event.h), results (each player's result of each finished game),
 * languages (what a table and a player read, kept from their last game),
 * outbox (messages committed, not yet delivered) and meta (small key/value
 * facts: the virtual clock, id counters, adapter resume data). The dispatcher wraps each loop
 * turn's changes in store_begin/store_commit, so a confirmation only goes out
 * once the action is on disk. store_commit also writes the lazy meta values
 * (see store_meta_set_lazy) and deletes the delivered outbox rows. The schema is
 * versioned with PRAGMA user_version and upgraded by store_open().
 */
#ifndef BOT_STORE_H
#define BOT_STORE_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include "util/util.h"

struct store;

/*
 * Opens (creating if needed) the store at path and brings its schema up to
 * date. Returns 0 and *out, or -1 with a reason in err. A store written by a
 * newer daemon is refused rather than damaged. The store is locked for one
 * daemon (an flock on "<path>-lock", held until store_close): while another
 * holds it, opening fails with a reason naming the store. The database and its
 * -wal and -shm files are readable by their owner only (0600).
 */
int store_open(struct store **out, const char *path, char *err, size_t errlen) MUST_USE;

/* Writes the lazy values, then closes the store; s may be NULL. */
void store_close(struct store *s);

/* Transactions. Each returns 0, or -1 (logged). Nested begins are an error. */
int store_begin(struct store *s) MUST_USE;
int store_commit(struct store *s) MUST_USE;
void store_rollback(struct store *s);

/* Inserts or replaces a game's row: its platform, table, finished flag,
 * record (a JSON text the caller owns) and image (image_len bytes, see
 * bot/image.h; NULL: none) all take the values given. */
int store_game_put(struct store *s, const char *id, const char *platform, const char *table,
                   int finished, const char *record, const void *image, size_t image_len) MUST_USE;

/* Sets the image of an unfinished game's row (image_len bytes), its record
 * and the rest as they are; a finished game or none: nothing happens.
 * Returns 0 or -1. */
int store_game_image(struct store *s, const char *id, const void *image, size_t image_len) MUST_USE;

/* Deletes a game's row, in the open transaction (none: nothing happens).
 * Returns 0 or -1. */
int store_game_delete(struct store *s, const char *id) MUST_USE;

/* A game's row as a walk hands it over: valid during the call only. */
struct store_game_row {
    const char *id, *platform, *table, *record;
    const void *image; /* NULL: none */
    size_t image_len;
};

/* Called for each game; returning non-zero stops the walk and is returned. */
typedef int (*store_game_fn)(void *arg, const struct store_game_row *row);

/* Walks every game not finished, oldest first (a start's read: the page
 * cache it filled is given back after it). Returns 0, the callback's
 * non-zero value, or -1 on a database error. */
int store_games_active(struct store *s, store_game_fn fn, void *arg);

/* Reads a game's record by id, finished or not. Returns a malloc'd string the
 * caller frees, or NULL when there is none. */
char *store_game_get(struct store *s, const char *id);

/* Reads the record of the game that finished last at a table. Returns a
 * malloc'd string the caller frees, or NULL when there is none (or the read
 * failed, which is logged). */
char *store_game_last_finished(struct store *s, const char *platform, const char *table);

/* One player's result of a finished game (strings the caller owns). */
struct store_result {
    const char *platform, *community, *game, *user, *name;
    const char *event; /* the event the game was played in, or NULL */
    int score, rank;
    bool won, tally;    /* tally: the one thing its game counts (rules_result) */
    const char *module; /* the game's rules module ("illegal") */
    unsigned computers; /* seats a computer played at the game's end (bot/computers.h) */
    const char *level;  /* a computer's own seat: its level; NULL or "" for a person's */
};

/* The id the statistics give a level's rows, before its name: "computer:normal". */
#define STORE_COMPUTER_ROW "computer:"

/* Keeps a result for the statistics, in the open transaction; writing the
 * same game and player again replaces it. Returns 0 or -1. */
int store_result_put(struct store *s, const struct store_result *r) MUST_USE;

/* A player's totals in one community. */
struct store_stats {
    char user[64], name[64]; /* their id, and the name of their latest game */
    unsigned games, wins, tally;
    long long score_sum;
    unsigned with_computers; /* of the games, those with computer players */
};

/* Reads the totals of `who` (a user id, or a name in any case) in platform's
 * community ("" when it has none), or, when event is not NULL, in that
 * event's games; of one game's results (module, "illegal"), or of every
 * game's when module is NULL. Returns 1 with *out, 0 when they have no
 * finished game there, -1 on a database error (logged). */
int store_stats(struct store *s, const char *platform, const char *community, const char *event,
                const char *module, const char *who, struct store_stats *out);

typedef void (*store_stats_fn)(void *arg, const struct store_stats *row);

/* Calls fn for at most limit players of a community (or, when event is not
 * NULL, of that event's games) in one game (module; NULL: every game), the
 * best first: most wins, then the best
 * average score, then most games. People only, unless `computers`: then
 * each level of computer player is one more row (STORE_COMPUTER_ROW and its
 * level as user). Returns how many, or -1 on a database error (logged). */
int store_leaderboard(struct store *s, const char *platform, const char *community,
                      const char *event, const char *module, bool computers, unsigned limit,
                      store_stats_fn fn, void *arg);

/* The game (a module id) `new` opens where none is named, as set for a table
 * (kind "table") or a community (kind "community") of platform, into out.
 * Returns 1, 0 when none is set, -1 on a database error (logged). */
int store_default_game_get(struct store *s, const char *platform, const char *kind, const char *id,
                           char *out, size_t len);

/* Sets it (game NULL: clears it), in the open transaction. Returns 0 or -1. */
int store_default_game_put(struct store *s, const char *platform, const char *kind, const char *id,
                           const char *game) MUST_USE;

/* Keeps the language a table (kind "table") or a player (kind "user") of
 * platform reads, in the open transaction; chosen: the player picked it.
 * Returns 0 or -1 (logged). */
int store_language_put(struct store *s, const char *platform, const char *kind, const char *id,
                       const char *language, bool chosen) MUST_USE;

/* Reads what store_language_put() kept into out (len bytes) and *chosen.
 * Returns 1, 0 when nothing is kept, -1 on a database error (logged). */
int store_language_get(struct store *s, const char *platform, const char *kind, const char *id,
                       char *out, size_t len, bool *chosen) MUST_USE;

/* Inserts or replaces an event's row (bot/event.h), its record a JSON text
 * the caller owns. Returns 0 or -1. */
int store_event_put(struct store *s, const char *id, const char *platform, const char *community,
                    int closed, const char *record) MUST_USE;

/* Called for each event; returning non-zero stops the walk and is returned. */
typedef int (*store_event_fn)(void *arg, const char *id, const char *platform, const char *record);

/* Walks every event not closed, oldest first. Returns 0, the callback's
 * non-zero value, or -1 on a database error (logged). */
int store_events_open(struct store *s, store_event_fn fn, void *arg);

/* Reads a meta value: a malloc'd string the caller frees, or NULL if unset. */
char *store_meta_get(struct store *s, const char *key);

/* Sets a meta value. Returns 0 or -1. */
int store_meta_set(struct store *s, const char *key, const char *value) MUST_USE;

/* Deletes a meta value; deleting one that is unset is not an error. Returns 0 or -1. */
int store_meta_delete(struct store *s, const char *key) MUST_USE;

/* Calls fn with every meta key that starts with prefix and its value (lazy
 * values included), in no particular order. fn must not change the store.
 * Returns 0, or -1 on a database error (logged). */
int store_meta_each(struct store *s, const char *prefix,
                    void (*fn)(void *arg, const char *key, const char *value), void *arg);

/*
 * Lazy meta values, for data a replay makes good (a gateway's resume
 * position), which should not cost a disk flush each: a lazy value is kept in
 * memory and written inside the next store_commit(), or by store_flush_lazy()
 * (the dispatcher calls it about once a second). store_meta_get() sees it at
 * once; a later store_meta_set() or store_meta_delete() of the key replaces
 * it. A crash loses at most the lazy values not yet written, never a commit.
 */

/* Sets key to a copy of value lazily; an empty value deletes the key, lazily,
 * in the same commit as what was set or sent before it. Returns 0, or -1 on
 * no memory. */
int store_meta_set_lazy(struct store *s, const char *key, const char *value) MUST_USE;

/*
 * A followed meta value: one that moves with every event (a gateway's resume
 * position), which the store reads when it writes the lazy values instead of
 * being handed each new value. *version grows whenever the value changes; at
 * each store_commit() and store_flush_lazy(), when it differs from the version
 * last written, text(arg, out, cap) writes the value, NUL-ended, into out and
 * the store writes it in that transaction, as it writes a lazy value (false:
 * nothing to write). A store_meta_get() of the key reads what was written.
 * text NULL stops following key; the caller does so before version or arg go
 * away. Returns 0, or -1 on no memory.
 */
int store_meta_follow(struct store *s, const char *key, const uint64_t *version,
                      bool (*text)(void *arg, char *out, size_t cap), void *arg) MUST_USE;

/* Whether lazy values wait to be written. */
bool store_lazy_pending(const struct store *s);

/* Writes the lazy values in a transaction of their own. Returns 0, or -1
 * (logged; they stay pending). */
int store_flush_lazy(struct store *s) MUST_USE;

/*
 * The outbox: each message about a change is written in the transaction of
 * the change, for platforms that confirm delivery, and deleted once its
 * platform has delivered it (or never can). Whatever a crash left in it is
 * sent again at the next start.
 */

/* Adds a message (a JSON text) for platform inside the open transaction; its
 * id (never given twice) goes to *id. Returns 0 or -1. */
int store_outbox_add(struct store *s, const char *platform, const char *message,
                     int64_t *id) MUST_USE;

/* Calls fn for each message of platform, oldest first, until it returns
 * nonzero (which is returned). Returns 0, or -1 when the read failed. */
typedef int (*store_outbox_fn)(void *arg, int64_t id, const char *message);
int store_outbox_each(struct store *s, const char *platform, store_outbox_fn fn, void *arg);

/* Notes message id as delivered: it is deleted lazily, like a lazy meta
 * value (a crash before that sends it again). Returns 0, or -1 on no memory. */
int store_outbox_sent(struct store *s, int64_t id) MUST_USE;

/* Checks that the database file can be written. Returns 0 or -1. */
int store_writable(struct store *s) MUST_USE;

#endif
