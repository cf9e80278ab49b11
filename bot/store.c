/*
 * store.c - SQLite persistence with versioned migrations.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "store.h"
#include "util/map.h"

/* The store holds every running game's secrets: its files are the daemon's only. */
#define STORE_FILE_MODE 0600

/* Kept languages remembered at once: past this the memory starts again empty,
 * so it stays bounded however many readers write (see struct store). */
#define LANGUAGES_KNOWN_MAX 4096
#define LANGUAGE_KEY_MAX    320 /* "platform\nkind\nid": an id of up to about 300 bytes */

struct store {
    int lock; /* the flock()ed "<path>-lock" file, held while the store is open */
    sqlite3 *db;
    /* Kept prepared once compiled, each at its first use (kept()): an idle
     * daemon holds only those it ran, 1.3 to 8.8 KB each. */
    sqlite3_stmt *game_put, *game_get, *meta_get, *meta_set, *meta_delete;
    sqlite3_stmt *outbox_add, *outbox_delete;
    struct map lazy; /* meta key -> value (owned strings) not yet written: see store.h */
    int64_t *sent;   /* outbox ids delivered, to delete with the next commit */
    size_t nsent, capsent;
    bool lazy_failed;       /* a lazy value could not be written into this commit */
    struct follow *follows; /* store_meta_follow()'s values */
    size_t nfollows;
    /* also prepared at their first use */
    sqlite3_stmt *language_get, *language_put, *game_delete, *game_image;
    /* What store_language_get() read, "platform\nkind\nid" -> "" (nothing
     * kept) or "0en"/"1en" (chosen, language): every answer to a reader asks,
     * and a read transaction of its own costs two locks of the file. The
     * daemon is the store's only writer: a put forgets its key, a rollback
     * everything. */
    struct map languages;
};

struct follow {
    char *key;
    const uint64_t *version;
    uint64_t written, writing; /* the version on disk; the one this commit writes */
    bool (*text)(void *arg, char *out, size_t cap);
    void *arg;
};

#define FOLLOW_TEXT_MAX 1024 /* a followed value's room: a gateway session is about 200 bytes */

/* Migration i brings the schema from version i to i + 1. Append only. */
static const char *const migrations[] = {
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "CREATE TABLE games ("
    "  id TEXT PRIMARY KEY,"
    "  platform TEXT NOT NULL,"
    "  table_id TEXT NOT NULL,"
    "  finished INTEGER NOT NULL DEFAULT 0,"
    "  record TEXT NOT NULL,"
    "  created INTEGER NOT NULL DEFAULT (strftime('%s','now')),"
    "  updated INTEGER NOT NULL DEFAULT (strftime('%s','now')));"
    "CREATE INDEX games_active ON games (finished, platform, table_id);",
    /* AUTOINCREMENT: an id is never given twice, so platforms can make it a
     * message's idempotency key. */
    "CREATE TABLE outbox ("
    "  id INTEGER PRIMARY KEY AUTOINCREMENT,"
    "  platform TEXT NOT NULL,"
    "  message TEXT NOT NULL);",
    /* One row per player of each finished game: the statistics, kept after
     * the game (its record may go; these stay). */
    "CREATE TABLE results ("
    "  platform TEXT NOT NULL,"
    "  community TEXT NOT NULL,"
    "  game TEXT NOT NULL,"
    "  user TEXT NOT NULL,"
    "  name TEXT NOT NULL,"
    "  score INTEGER NOT NULL,"
    "  rank INTEGER NOT NULL,"
    "  won INTEGER NOT NULL,"
    "  found INTEGER NOT NULL,"
    "  at INTEGER NOT NULL DEFAULT (strftime('%s','now')),"
    "  PRIMARY KEY (platform, game, user));"
    "CREATE INDEX results_community ON results (platform, community, user);",
    /* Events (bot/event.h), and which event each result was played in. */
    "CREATE TABLE events ("
    "  id TEXT PRIMARY KEY,"
    "  platform TEXT NOT NULL,"
    "  community TEXT NOT NULL,"
    "  closed INTEGER NOT NULL,"
    "  record TEXT NOT NULL);"
    "ALTER TABLE results ADD COLUMN event TEXT NOT NULL DEFAULT '';"
    "CREATE INDEX results_event ON results (platform, event, user);",
    /* The language a table and a player read, kept from their last game, so
     * answers after it speak it (kind "table" or "user"; chosen: the player
     * picked it, rather than reading the table's). */
    "CREATE TABLE languages ("
    "  platform TEXT NOT NULL,"
    "  kind TEXT NOT NULL,"
    "  id TEXT NOT NULL,"
    "  language TEXT NOT NULL,"
    "  chosen INTEGER NOT NULL DEFAULT 0,"
    "  PRIMARY KEY (platform, kind, id));"
    /* Lobbies that closed without a game were kept as finished games: they
     * are no longer (turn.c, T8), and those a flood left go. */
    "DELETE FROM games WHERE finished = 1 AND json_extract(record, '$.started') = 0;",
    /* Games with computer players: how many seats a computer played at the
     * end (each row of the game says it), and the level of a computer's own
     * row ('' for a person), which the rankings leave out by default. */
    ("ALTER TABLE results ADD COLUMN computers INTEGER NOT NULL DEFAULT 0;"
     "ALTER TABLE results ADD COLUMN level TEXT NOT NULL DEFAULT '';"), /* one migration */
    /* The games a start restores, in the order they were opened, read
     * without sorting every record first (a sort of 400 MB at 100,000
     * games) and without passing over the finished ones. */
    "CREATE INDEX IF NOT EXISTS games_unfinished ON games (finished) WHERE finished = 0;",
    /* An unfinished game's image (bot/image.h), written with its record, so
     * that a start copies it instead of parsing the record; NULL (every row
     * of an older store) until the game's next change. */
    "ALTER TABLE games ADD COLUMN image BLOB;",
    /* More than one game: which one each result is of (every older one is
     * Illegal's), and the game `new` opens where none is named, set for a
     * table or a community (kind "table" or "community"). */
    ("ALTER TABLE results ADD COLUMN module TEXT NOT NULL DEFAULT 'illegal';"
     "CREATE TABLE default_games ("
     "  platform TEXT NOT NULL,"
     "  kind TEXT NOT NULL,"
     "  id TEXT NOT NULL,"
     "  game TEXT NOT NULL,"
     "  PRIMARY KEY (platform, kind, id));"), /* one migration */
};

#define SCHEMA_VERSION ((int)(sizeof migrations / sizeof migrations[0]))

/* The statements of struct store's kept fields. */
#define SQL_GAME_PUT                                                                               \
    "INSERT INTO games (id, platform, table_id, finished, record, image) "                         \
    "VALUES (?,?,?,?,?,?) "                                                                        \
    "ON CONFLICT(id) DO UPDATE SET platform = excluded.platform, "                                 \
    "table_id = excluded.table_id, finished = excluded.finished, "                                 \
    "record = excluded.record, image = excluded.image, "                                           \
    "updated = strftime('%s','now')"
#define SQL_GAME_GET      "SELECT record FROM games WHERE id = ?"
#define SQL_META_GET      "SELECT value FROM meta WHERE key = ?"
#define SQL_META_DELETE   "DELETE FROM meta WHERE key = ?"
#define SQL_OUTBOX_ADD    "INSERT INTO outbox (platform, message) VALUES (?, ?)"
#define SQL_OUTBOX_DELETE "DELETE FROM outbox WHERE id = ?"
#define SQL_META_SET                                                                               \
    "INSERT INTO meta (key, value) VALUES (?, ?) "                                                 \
    "ON CONFLICT(key) DO UPDATE SET value = excluded.value"

static int exec(struct store *s, const char *sql)
{
    char *msg = NULL;
    if (sqlite3_exec(s->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        log_error("store", NULL, "%s", msg ? msg : sqlite3_errmsg(s->db));
        sqlite3_free(msg);
        return -1;
    }
    return 0;
}

static int user_version(struct store *s)
{
    sqlite3_stmt *st;
    int v = -1;
    if (sqlite3_prepare_v2(s->db, "PRAGMA user_version", -1, &st, NULL) != SQLITE_OK)
        return -1;
    if (sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return v;
}

static int migrate(struct store *s, char *err, size_t errlen)
{
    int v = user_version(s);
    if (v < 0) {
        snprintf(err, errlen, "cannot read the schema version: %s", sqlite3_errmsg(s->db));
        return -1;
    }
    if (v > SCHEMA_VERSION) {
        snprintf(err, errlen, "schema version %d is newer than this daemon's %d; upgrade illegald",
                 v, SCHEMA_VERSION);
        return -1;
    }
    int from = v;
    for (; v < SCHEMA_VERSION; v++) {
        char pragma[64];
        snprintf(pragma, sizeof pragma, "PRAGMA user_version = %d;", v + 1);
        if (exec(s, "BEGIN IMMEDIATE") < 0 || exec(s, migrations[v]) < 0 || exec(s, pragma) < 0 ||
            exec(s, "COMMIT") < 0) {
            exec(s, "ROLLBACK");
            snprintf(err, errlen, "migration to schema version %d failed", v + 1);
            return -1;
        }
        /* a new store is made, not upgraded: one line says so */
        if (from > 0)
            log_info("store", NULL, "schema upgraded to version %d", v + 1);
    }
    if (from == 0)
        log_info("store", NULL, "new store, schema version %d", SCHEMA_VERSION);
    return 0;
}

static int prepare(struct store *s, sqlite3_stmt **st, const char *sql)
{
    if (sqlite3_prepare_v3(s->db, sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL) != SQLITE_OK) {
        log_error("store", NULL, "prepare: %s", sqlite3_errmsg(s->db));
        return -1;
    }
    return 0;
}

/* *st, compiled at its first use and kept; NULL when it cannot be (logged). */
static sqlite3_stmt *kept(struct store *s, sqlite3_stmt **st, const char *sql)
{
    if (!*st && prepare(s, st, sql) < 0)
        return NULL;
    return *st;
}

/*
 * Takes the store's lock: an exclusive flock() on "<path>-lock", held until
 * store_close() (or the process's death, so kill -9 never leaves it stale).
 * SQLite's own locks only serialise transactions; two daemons would each
 * hand out the same game ids and overwrite each other's games. A lock file
 * rather than locking_mode=EXCLUSIVE keeps WAL's shared index, so an online
 * backup with the sqlite3 shell still works while the daemon runs.
 */
static int take_lock(struct store *s, const char *path, char *err, size_t errlen)
{
    char name[4096], pid[32] = "";
    if ((size_t)snprintf(name, sizeof name, "%s-lock", path) >= sizeof name) {
        snprintf(err, errlen, "store path too long: %s", path);
        return -1;
    }
    s->lock = open(name, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, STORE_FILE_MODE);
    if (s->lock < 0) {
        snprintf(err, errlen, "cannot open %s: %s", name, strerror(errno));
        return -1;
    }
    if (flock(s->lock, LOCK_EX | LOCK_NB) < 0) {
        int e = errno;
        ssize_t n = e == EWOULDBLOCK ? pread(s->lock, pid, sizeof pid - 1, 0) : -1;
        pid[n > 0 ? n : 0] = '\0';
        pid[strcspn(pid, "\n")] = '\0';
        if (e == EWOULDBLOCK)
            snprintf(err, errlen,
                     "the store %s is in use by another illegald (pid %s); stop it, or give "
                     "this one its own [store] path",
                     path, pid[0] ? pid : "unknown");
        else
            snprintf(err, errlen, "cannot lock %s: %s", name, strerror(e));
        return -1;
    }
    int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
    if (ftruncate(s->lock, 0) < 0 || pwrite(s->lock, pid, (size_t)n, 0) != n)
        log_warn("store", NULL, "cannot write the pid into %s", name);
    return 0;
}

/*
 * Creates the database file with STORE_FILE_MODE before SQLite opens it, and
 * takes group and other access away from one that exists. SQLite gives the
 * -wal and -shm files it creates the database file's permissions.
 */
static int restrict_files(const char *path, char *err, size_t errlen)
{
    static const char *const suffixes[] = {"-wal", "-shm"};
    char name[4096];
    struct stat st;
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, STORE_FILE_MODE);
    if (fd < 0) {
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    if (fstat(fd, &st) == 0 && (st.st_mode & 077) && fchmod(fd, st.st_mode & 0700) < 0)
        log_warn("store", NULL, "cannot restrict %s to its owner: %s", path, strerror(errno));
    close(fd);
    for (size_t i = 0; i < sizeof suffixes / sizeof *suffixes; i++)
        if ((size_t)snprintf(name, sizeof name, "%s%s", path, suffixes[i]) < sizeof name &&
            stat(name, &st) == 0 && (st.st_mode & 077))
            chmod(name, st.st_mode & 0700);
    return 0;
}

int store_open(struct store **out, const char *path, char *err, size_t errlen)
{
    struct store *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    s->lock = -1;
    if (take_lock(s, path, err, errlen) < 0 || restrict_files(path, err, errlen) < 0) {
        store_close(s);
        return -1;
    }
    if (sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
        SQLITE_OK) {
        snprintf(err, errlen, "cannot open %s: %s", path,
                 s->db ? sqlite3_errmsg(s->db) : "out of memory");
        store_close(s);
        return -1;
    }
    sqlite3_busy_timeout(s->db, 5000);
    /* WAL keeps readers off the writer's back; FULL sync makes every commit
     * survive a power cut, which is what "acknowledged" promises. */
    if (exec(s, "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;") <
            0 ||
        migrate(s, err, errlen) < 0) {
        if (!err[0])
            snprintf(err, errlen, "cannot set up %s: %s", path, sqlite3_errmsg(s->db));
        store_close(s);
        return -1;
    }
    *out = s;
    return 0;
}

void store_close(struct store *s)
{
    if (!s)
        return;
    if (s->db && store_flush_lazy(s) < 0)
        log_warn("store", NULL, "closing without the last platform state");
    sqlite3_finalize(s->game_put);
    sqlite3_finalize(s->game_get);
    sqlite3_finalize(s->meta_get);
    sqlite3_finalize(s->meta_set);
    sqlite3_finalize(s->meta_delete);
    sqlite3_finalize(s->outbox_add);
    sqlite3_finalize(s->outbox_delete);
    sqlite3_finalize(s->language_get);
    sqlite3_finalize(s->language_put);
    sqlite3_finalize(s->game_delete);
    sqlite3_finalize(s->game_image);
    map_clear(&s->lazy, free);
    for (size_t i = 0; i < s->nfollows; i++)
        free(s->follows[i].key);
    free(s->follows);
    map_clear(&s->languages, free);
    free(s->sent);
    sqlite3_close(s->db);
    if (s->lock >= 0)
        close(s->lock); /* releases the flock */
    free(s);
}

int store_begin(struct store *s)
{
    return exec(s, "BEGIN IMMEDIATE");
}

static int write_meta(struct store *s, const char *key, const char *value);
static int delete_meta(struct store *s, const char *key);

static void write_lazy_one(const char *key, void *value, void *arg)
{
    struct store *s = arg;
    const char *v = value;
    if ((*v ? write_meta(s, key, v) : delete_meta(s, key)) < 0)
        s->lazy_failed = true;
}

static int step_done(struct store *s, sqlite3_stmt *st);

/* The followed values that changed since they were last written. */
static void write_follows(struct store *s)
{
    char text[FOLLOW_TEXT_MAX];
    for (size_t i = 0; i < s->nfollows && !s->lazy_failed; i++) {
        struct follow *f = &s->follows[i];
        f->writing = *f->version;
        if (f->writing != f->written && f->text(f->arg, text, sizeof(text)) &&
            write_meta(s, f->key, text) < 0)
            s->lazy_failed = true;
    }
}

int store_commit(struct store *s)
{
    s->lazy_failed = false;
    write_follows(s);
    map_each(&s->lazy, write_lazy_one, s);
    sqlite3_stmt *del = s->nsent ? kept(s, &s->outbox_delete, SQL_OUTBOX_DELETE) : NULL;
    if (s->nsent && !del)
        s->lazy_failed = true;
    for (size_t i = 0; i < s->nsent && !s->lazy_failed; i++) {
        sqlite3_bind_int64(del, 1, s->sent[i]);
        s->lazy_failed = step_done(s, del) < 0;
    }
    if (s->lazy_failed || exec(s, "COMMIT") < 0)
        return -1; /* the caller rolls back; the lazy values stay to be written */
    map_clear(&s->lazy, free);
    for (size_t i = 0; i < s->nfollows; i++)
        s->follows[i].written = s->follows[i].writing;
    s->nsent = 0;
    return 0;
}

void store_rollback(struct store *s)
{
    map_clear(&s->languages, free); /* it may hold what a put of the undone turn forgot */
    if (!sqlite3_get_autocommit(s->db))
        exec(s, "ROLLBACK");
}

/* Runs a bound statement that returns no rows, and resets it. */
static int step_done(struct store *s, sqlite3_stmt *st)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    if (rc != SQLITE_DONE) {
        log_error("store", NULL, "write failed: %s", sqlite3_errmsg(s->db));
        return -1;
    }
    return 0;
}

int store_game_put(struct store *s, const char *id, const char *platform, const char *table,
                   int finished, const char *record, const void *image, size_t image_len)
{
    sqlite3_stmt *st = kept(s, &s->game_put, SQL_GAME_PUT);
    if (!st)
        return -1;
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, platform, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, table, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 4, finished);
    sqlite3_bind_text(st, 5, record, -1, SQLITE_STATIC);
    if (image && image_len <= INT_MAX)
        sqlite3_bind_blob(st, 6, image, (int)image_len, SQLITE_STATIC);
    else
        sqlite3_bind_null(st, 6);
    return step_done(s, st);
}

int store_game_image(struct store *s, const char *id, const void *image, size_t image_len)
{
    if (image_len > INT_MAX ||
        (!s->game_image && prepare(s, &s->game_image,
                                   "UPDATE games SET image = ? WHERE id = ? AND finished = 0") < 0))
        return -1;
    sqlite3_bind_blob(s->game_image, 1, image, (int)image_len, SQLITE_STATIC);
    sqlite3_bind_text(s->game_image, 2, id, -1, SQLITE_STATIC);
    return step_done(s, s->game_image);
}

int store_game_delete(struct store *s, const char *id)
{
    if (!s->game_delete && prepare(s, &s->game_delete, "DELETE FROM games WHERE id = ?") < 0)
        return -1;
    sqlite3_bind_text(s->game_delete, 1, id, -1, SQLITE_STATIC);
    return step_done(s, s->game_delete);
}

int store_result_put(struct store *s, const struct store_result *r)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db,
                           "INSERT OR REPLACE INTO results (platform, community, game, user, "
                           "name, score, rank, won, found, event, computers, level, module) "
                           "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                           -1, &st, NULL) != SQLITE_OK) {
        log_error("store", NULL, "cannot write a result: %s", sqlite3_errmsg(s->db));
        return -1;
    }
    sqlite3_bind_text(st, 1, r->platform, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, r->community, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, r->game, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, r->user, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 5, r->name, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 6, r->score);
    sqlite3_bind_int(st, 7, r->rank);
    sqlite3_bind_int(st, 8, r->won);
    sqlite3_bind_int(st, 9, r->tally);
    sqlite3_bind_text(st, 10, r->event ? r->event : "", -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 11, (int)r->computers);
    sqlite3_bind_text(st, 12, r->level ? r->level : "", -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 13, r->module, -1, SQLITE_STATIC);
    int rc = step_done(s, st);
    sqlite3_finalize(st);
    return rc;
}

/* A player's totals: who (their user id, or for a computer's rows
 * STORE_COMPUTER_ROW and its level), latest name, games, wins, tally (the
 * column keeps its first name, found), score sum, games with computers. */
#define STATS_COLUMNS                                                                              \
    "SELECT CASE level WHEN '' THEN user ELSE '" STORE_COMPUTER_ROW "' || level END AS who, "      \
    "(SELECT name FROM results n WHERE n.platform = r.platform AND "                               \
    "n.community = r.community AND n.user = r.user ORDER BY at DESC, rowid DESC LIMIT 1), "        \
    "COUNT(*), SUM(won), SUM(found), SUM(score), SUM(computers > 0) FROM results r "

static void stats_row(sqlite3_stmt *st, struct store_stats *out)
{
    const unsigned char *user = sqlite3_column_text(st, 0), *name = sqlite3_column_text(st, 1);
    snprintf(out->user, sizeof out->user, "%s", user ? (const char *)user : "");
    snprintf(out->name, sizeof out->name, "%s", name ? (const char *)name : out->user);
    out->games = (unsigned)sqlite3_column_int(st, 2);
    out->wins = (unsigned)sqlite3_column_int(st, 3);
    out->tally = (unsigned)sqlite3_column_int(st, 4);
    out->score_sum = sqlite3_column_int64(st, 5);
    out->with_computers = (unsigned)sqlite3_column_int(st, 6);
}

/* The scope of statistics: a platform's community (?2) or event (?2), and
 * one game's results (?3), or every game's when ?3 is NULL. */
#define IN_COMMUNITY "WHERE platform = ?1 AND community = ?2 AND (?3 IS NULL OR module = ?3)"
#define IN_EVENT     "WHERE platform = ?1 AND event = ?2 AND (?3 IS NULL OR module = ?3)"

/* A person's rows (?4: their id or name): a computer's own have no
 * statistics of a player. */
#define STATS_OF_ONE                                                                               \
    " AND level = '' AND (user = ?4 OR name = ?4 COLLATE NOCASE) GROUP BY user "                   \
    "ORDER BY COUNT(*) DESC LIMIT 1"

int store_stats(struct store *s, const char *platform, const char *community, const char *event,
                const char *module, const char *who, struct store_stats *out)
{
    sqlite3_stmt *st;
    int rc = -1;
    const char *sql =
        event ? STATS_COLUMNS IN_EVENT STATS_OF_ONE : STATS_COLUMNS IN_COMMUNITY STATS_OF_ONE;
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
        goto fail;
    sqlite3_bind_text(st, 1, platform, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, event ? event : community, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, module, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, who, -1, SQLITE_STATIC);
    int step = sqlite3_step(st);
    if (step == SQLITE_ROW) {
        stats_row(st, out);
        rc = 1;
    } else if (step == SQLITE_DONE) {
        rc = 0;
    }
fail:
    if (rc < 0)
        log_error("store", NULL, "cannot read statistics: %s", sqlite3_errmsg(s->db));
    sqlite3_finalize(st);
    return rc;
}

/* Computers' rows (?4) are one per level, and only when asked for; at most
 * ?5 rows. */
#define LEADERBOARD_ORDER                                                                          \
    " AND (?4 OR level = '') GROUP BY who ORDER BY SUM(won) DESC, 1.0 * SUM(score) / COUNT(*) "    \
    "DESC, COUNT(*) DESC, who LIMIT ?5"

int store_leaderboard(struct store *s, const char *platform, const char *community,
                      const char *event, const char *module, bool computers, unsigned limit,
                      store_stats_fn fn, void *arg)
{
    sqlite3_stmt *st;
    int n = 0, step = SQLITE_ERROR;
    const char *sql = event ? STATS_COLUMNS IN_EVENT LEADERBOARD_ORDER
                            : STATS_COLUMNS IN_COMMUNITY LEADERBOARD_ORDER;
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_text(st, 1, platform, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, event ? event : community, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, module, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 4, computers);
        sqlite3_bind_int(st, 5, (int)limit);
        while ((step = sqlite3_step(st)) == SQLITE_ROW) {
            struct store_stats row;
            stats_row(st, &row);
            fn(arg, &row);
            n++;
        }
    }
    sqlite3_finalize(st);
    if (step != SQLITE_DONE) {
        log_error("store", NULL, "cannot read the leaderboard: %s", sqlite3_errmsg(s->db));
        return -1;
    }
    return n;
}

/* Default games are read only where `new` names none: no statement kept. */
int store_default_game_get(struct store *s, const char *platform, const char *kind, const char *id,
                           char *out, size_t len)
{
    sqlite3_stmt *st;
    int rc = -1;
    if (sqlite3_prepare_v2(s->db,
                           "SELECT game FROM default_games WHERE platform = ? AND kind = ? AND "
                           "id = ?",
                           -1, &st, NULL) != SQLITE_OK)
        goto fail;
    sqlite3_bind_text(st, 1, platform, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, kind, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, id, -1, SQLITE_STATIC);
    int step = sqlite3_step(st);
    if (step == SQLITE_ROW) {
        const unsigned char *game = sqlite3_column_text(st, 0);
        snprintf(out, len, "%s", game ? (const char *)game : "");
        rc = 1;
    } else if (step == SQLITE_DONE) {
        rc = 0;
    }
fail:
    if (rc < 0)
        log_error("store", NULL, "cannot read a default game: %s", sqlite3_errmsg(s->db));
    sqlite3_finalize(st);
    return rc;
}

int store_default_game_put(struct store *s, const char *platform, const char *kind, const char *id,
                           const char *game)
{
    sqlite3_stmt *st;
    const char *sql = game ? "INSERT OR REPLACE INTO default_games (platform, kind, id, game) "
                             "VALUES (?,?,?,?)"
                           : "DELETE FROM default_games WHERE platform = ? AND kind = ? AND id = ?";
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK) {
        log_error("store", NULL, "cannot write a default game: %s", sqlite3_errmsg(s->db));
        return -1;
    }
    sqlite3_bind_text(st, 1, platform, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, kind, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, id, -1, SQLITE_STATIC);
    if (game)
        sqlite3_bind_text(st, 4, game, -1, SQLITE_STATIC);
    int rc = step_done(s, st);
    sqlite3_finalize(st);
    return rc;
}

/* Runs a one-key lookup and returns the first column of its row, copied. */
/* Steps st once: a copy of the first column of its row (the caller frees
 * it), or NULL when there is no row or the read failed (logged). */
static char *first_text(struct store *s, sqlite3_stmt *st)
{
    char *value = NULL;
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        const unsigned char *text = sqlite3_column_text(st, 0);
        value = strdup(text ? (const char *)text : "");
        if (!value)
            log_error("store", NULL, "out of memory");
    } else if (rc != SQLITE_DONE) {
        log_error("store", NULL, "read failed: %s", sqlite3_errmsg(s->db));
    }
    return value;
}

/* st NULL: it could not be compiled (logged), no value. */
static char *lookup_text(struct store *s, sqlite3_stmt *st, const char *key)
{
    if (!st)
        return NULL;
    sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    char *value = first_text(s, st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return value;
}

char *store_game_get(struct store *s, const char *id)
{
    return lookup_text(s, kept(s, &s->game_get, SQL_GAME_GET), id);
}

char *store_game_last_finished(struct store *s, const char *platform, const char *table)
{
    /* Rare (a rematch): prepared when asked, not kept. */
    sqlite3_stmt *st = NULL;
    char *value = NULL;
    if (sqlite3_prepare_v2(s->db,
                           "SELECT record FROM games WHERE finished = 1 AND platform = ? AND "
                           "table_id = ? ORDER BY updated DESC, rowid DESC LIMIT 1",
                           -1, &st, NULL) != SQLITE_OK) {
        log_error("store", NULL, "read failed: %s", sqlite3_errmsg(s->db));
        return NULL;
    }
    sqlite3_bind_text(st, 1, platform, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, table, -1, SQLITE_STATIC);
    value = first_text(s, st);
    sqlite3_finalize(st);
    return value;
}

/* Ends a walk over the rows of st: a read error (unless fn stopped the walk)
 * is logged and becomes -1; st is reset for the next walk. */
static int walk_end(struct store *s, sqlite3_stmt *st, int rc, int result)
{
    if (!result && rc != SQLITE_DONE) {
        log_error("store", NULL, "read failed: %s", sqlite3_errmsg(s->db));
        result = -1;
    }
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return result;
}

int store_games_active(struct store *s, store_game_fn fn, void *arg)
{
    /* A start's walk, once: prepared when asked, not kept. */
    sqlite3_stmt *st = NULL;
    if (prepare(s, &st,
                "SELECT id, platform, table_id, record, image FROM games WHERE finished = 0 "
                "ORDER BY rowid") < 0)
        return -1;
    int rc, result = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const struct store_game_row row = {.id = (const char *)sqlite3_column_text(st, 0),
                                           .platform = (const char *)sqlite3_column_text(st, 1),
                                           .table = (const char *)sqlite3_column_text(st, 2),
                                           .record = (const char *)sqlite3_column_text(st, 3),
                                           .image = sqlite3_column_blob(st, 4),
                                           .image_len = (size_t)sqlite3_column_bytes(st, 4)};
        result = fn(arg, &row);
        if (result)
            break;
    }
    result = walk_end(s, st, rc, result);
    sqlite3_finalize(st);
    /* The page cache now holds the last of every record read (up to its 2 MB
     * at 100,000 games), which the running daemon reads again only as each
     * game changes: given back, and read again page by page when needed. */
    sqlite3_db_release_memory(s->db);
    return result;
}

int store_event_put(struct store *s, const char *id, const char *platform, const char *community,
                    int closed, const char *record)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(
            s->db,
            "INSERT OR REPLACE INTO events (id, platform, community, closed, record) "
            "VALUES (?,?,?,?,?)",
            -1, &st, NULL) != SQLITE_OK) {
        log_error("store", id, "cannot write the event: %s", sqlite3_errmsg(s->db));
        return -1;
    }
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, platform, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, community, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 4, closed);
    sqlite3_bind_text(st, 5, record, -1, SQLITE_STATIC);
    int rc = step_done(s, st);
    sqlite3_finalize(st);
    return rc;
}

int store_events_open(struct store *s, store_event_fn fn, void *arg)
{
    sqlite3_stmt *st;
    int rc, result = 0;
    if (sqlite3_prepare_v2(
            s->db, "SELECT id, platform, record FROM events WHERE closed = 0 ORDER BY rowid", -1,
            &st, NULL) != SQLITE_OK) {
        log_error("store", NULL, "cannot read the events: %s", sqlite3_errmsg(s->db));
        return -1;
    }
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        result =
            fn(arg, (const char *)sqlite3_column_text(st, 0),
               (const char *)sqlite3_column_text(st, 1), (const char *)sqlite3_column_text(st, 2));
        if (result)
            break;
    }
    result = walk_end(s, st, rc, result);
    sqlite3_finalize(st);
    return result;
}

char *store_meta_get(struct store *s, const char *key)
{
    const char *lazy = map_get(&s->lazy, key);
    if (lazy)
        return *lazy ? strdup(lazy) : NULL; /* "": deleted, lazily */
    return lookup_text(s, kept(s, &s->meta_get, SQL_META_GET), key);
}

static int write_meta(struct store *s, const char *key, const char *value)
{
    sqlite3_stmt *st = kept(s, &s->meta_set, SQL_META_SET);
    if (!st)
        return -1;
    sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, value, -1, SQLITE_STATIC);
    return step_done(s, st);
}

int store_meta_set(struct store *s, const char *key, const char *value)
{
    if (write_meta(s, key, value) < 0)
        return -1;
    free(map_del(&s->lazy, key)); /* written now: an older lazy value must not follow it */
    return 0;
}

struct lazy_walk {
    struct store *s;
    const char *prefix;
    void (*fn)(void *arg, const char *key, const char *value);
    void *arg;
};

/* A lazy value under the prefix that the table has no row for yet. */
static void lazy_only(const char *key, void *val, void *arg)
{
    struct lazy_walk *w = arg;
    if (strncmp(key, w->prefix, strlen(w->prefix)) != 0 || !*(const char *)val)
        return;
    char *stored = lookup_text(w->s, kept(w->s, &w->s->meta_get, SQL_META_GET), key);
    if (!stored)
        w->fn(w->arg, key, val);
    free(stored);
}

int store_meta_each(struct store *s, const char *prefix,
                    void (*fn)(void *arg, const char *key, const char *value), void *arg)
{
    /* Rare (an adapter's start): prepared when asked, not kept. The keys
     * under the prefix are those from it up to it with its last byte + 1. */
    size_t n = strlen(prefix);
    char *end = n ? strdup(prefix) : NULL;
    sqlite3_stmt *st = NULL;
    if (!end || (unsigned char)end[n - 1] == 0xff ||
        sqlite3_prepare_v2(s->db, "SELECT key, value FROM meta WHERE key >= ? AND key < ?", -1, &st,
                           NULL) != SQLITE_OK) {
        log_error("store", NULL, "cannot list %s: %s", prefix, sqlite3_errmsg(s->db));
        free(end);
        return -1;
    }
    end[n - 1]++;
    sqlite3_bind_text(st, 1, prefix, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, end, -1, SQLITE_STATIC);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *key = (const char *)sqlite3_column_text(st, 0);
        const char *value = (const char *)sqlite3_column_text(st, 1);
        const char *lazy = key ? map_get(&s->lazy, key) : NULL;
        if (key && (lazy ? *lazy : value != NULL)) /* a lazy "" is a delete not written yet */
            fn(arg, key, lazy ? lazy : value);
    }
    sqlite3_finalize(st);
    free(end);
    if (rc != SQLITE_DONE) {
        log_error("store", NULL, "cannot list %s: %s", prefix, sqlite3_errmsg(s->db));
        return -1;
    }
    struct lazy_walk w = {s, prefix, fn, arg};
    map_each(&s->lazy, lazy_only, &w);
    return 0;
}

static int delete_meta(struct store *s, const char *key)
{
    sqlite3_stmt *st = kept(s, &s->meta_delete, SQL_META_DELETE);
    if (!st)
        return -1;
    sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    return step_done(s, st);
}

int store_meta_delete(struct store *s, const char *key)
{
    if (delete_meta(s, key) < 0)
        return -1;
    free(map_del(&s->lazy, key));
    return 0;
}

int store_meta_set_lazy(struct store *s, const char *key, const char *value)
{
    /* a value no longer than the one waiting is written over it: a gateway's
     * sequence number is set twice a command, a copy and a free each time */
    char *waiting = map_get(&s->lazy, key);
    size_t n = strlen(value);
    if (waiting && strlen(waiting) >= n) {
        memcpy(waiting, value, n + 1);
        return 0;
    }
    return map_set_str(&s->lazy, key, value);
}

int store_meta_follow(struct store *s, const char *key, const uint64_t *version,
                      bool (*text)(void *arg, char *out, size_t cap), void *arg)
{
    size_t i = 0;
    while (i < s->nfollows && strcmp(s->follows[i].key, key) != 0)
        i++;
    if (!text) {
        if (i < s->nfollows) {
            free(s->follows[i].key);
            s->follows[i] = s->follows[--s->nfollows];
        }
        return 0;
    }
    if (i == s->nfollows) {
        struct follow *v = realloc(s->follows, (s->nfollows + 1) * sizeof(*v));
        char *k = strdup(key);
        if (v)
            s->follows = v;
        if (!v || !k) {
            free(k);
            return -1;
        }
        s->follows[s->nfollows++] = (struct follow){.key = k};
    }
    struct follow *f = &s->follows[i];
    /* what is on disk is the value as it stands: nothing to write until it moves */
    f->version = version;
    f->written = f->writing = *version;
    f->text = text;
    f->arg = arg;
    return 0;
}

bool store_lazy_pending(const struct store *s)
{
    for (size_t i = 0; i < s->nfollows; i++)
        if (*s->follows[i].version != s->follows[i].written)
            return true;
    return map_count(&s->lazy) > 0 || s->nsent > 0;
}

int store_outbox_add(struct store *s, const char *platform, const char *message, int64_t *id)
{
    sqlite3_stmt *st = kept(s, &s->outbox_add, SQL_OUTBOX_ADD);
    if (!st)
        return -1;
    sqlite3_bind_text(st, 1, platform, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, message, -1, SQLITE_STATIC);
    if (step_done(s, st) < 0)
        return -1;
    *id = sqlite3_last_insert_rowid(s->db);
    return 0;
}

int store_outbox_each(struct store *s, const char *platform, store_outbox_fn fn, void *arg)
{
    /* A platform's start, once: prepared when asked, not kept. */
    sqlite3_stmt *st = NULL;
    if (prepare(s, &st, "SELECT id, message FROM outbox WHERE platform = ? ORDER BY id") < 0)
        return -1;
    int rc, result = 0;
    sqlite3_bind_text(st, 1, platform, -1, SQLITE_STATIC);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        result = fn(arg, sqlite3_column_int64(st, 0), (const char *)sqlite3_column_text(st, 1));
        if (result)
            break;
    }
    result = walk_end(s, st, rc, result);
    sqlite3_finalize(st);
    return result;
}

int store_outbox_sent(struct store *s, int64_t id)
{
    if (s->nsent == s->capsent) {
        size_t cap = s->capsent ? s->capsent * 2 : 64;
        int64_t *v = realloc(s->sent, cap * sizeof *v);
        if (!v)
            return -1;
        s->sent = v;
        s->capsent = cap;
    }
    s->sent[s->nsent++] = id;
    return 0;
}

int store_flush_lazy(struct store *s)
{
    if (!store_lazy_pending(s))
        return 0;
    if (store_begin(s) < 0)
        return -1;
    if (store_commit(s) < 0) {
        store_rollback(s);
        return -1;
    }
    return 0;
}

int store_writable(struct store *s)
{
    return sqlite3_db_readonly(s->db, "main") == 0 && exec(s, "BEGIN IMMEDIATE; COMMIT") == 0 ? 0
                                                                                              : -1;
}

/* The key of a kept language in s->languages; false when it does not fit
 * (that reader is then read from the store each time). */
static bool language_key(char *key, size_t len, const char *platform, const char *kind,
                         const char *id)
{
    /* by hand: snprintf cost 1,200 instructions, and every answer asks */
    const char *const parts[] = {platform, "\n", kind, "\n", id};
    size_t o = 0;
    for (size_t i = 0; i < sizeof parts / sizeof *parts; i++) {
        size_t n = strlen(parts[i]);
        if (n >= len - o)
            return false;
        memcpy(key + o, parts[i], n);
        o += n;
    }
    key[o] = '\0';
    return true;
}

/* s copied into out (len bytes), cut as snprintf would cut it. */
static void copy_cut(char *out, size_t len, const char *s)
{
    if (!len)
        return;
    size_t n = strlen(s);
    if (n >= len)
        n = len - 1;
    memcpy(out, s, n);
    out[n] = '\0';
}

/* Remembers what the store keeps for key: language (NULL: nothing) and chosen.
 * Without memory it is simply not remembered. */
static void remember_language(struct store *s, const char *key, const char *language, bool chosen)
{
    char value[32] = "";
    int n = language ? snprintf(value, sizeof value, "%c%s", chosen ? '1' : '0', language) : 0;
    if (n < 0 || (size_t)n >= sizeof value)
        return;
    if (map_count(&s->languages) >= LANGUAGES_KNOWN_MAX)
        map_clear(&s->languages, free);
    if (map_set_str(&s->languages, key, value) < 0)
        return; /* not remembered: the next read asks the store */
}

int store_language_put(struct store *s, const char *platform, const char *kind, const char *id,
                       const char *language, bool chosen)
{
    if (!s->language_put &&
        prepare(s, &s->language_put,
                "INSERT INTO languages (platform, kind, id, language, chosen) VALUES (?,?,?,?,?) "
                "ON CONFLICT(platform, kind, id) DO UPDATE SET language = excluded.language, "
                "chosen = excluded.chosen") < 0)
        return -1;
    char key[LANGUAGE_KEY_MAX];
    if (language_key(key, sizeof key, platform, kind, id))
        free(map_del(&s->languages, key));
    sqlite3_stmt *st = s->language_put;
    sqlite3_bind_text(st, 1, platform, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, kind, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, id, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, language, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 5, chosen);
    return step_done(s, st);
}

int store_language_get(struct store *s, const char *platform, const char *kind, const char *id,
                       char *out, size_t len, bool *chosen)
{
    char key[LANGUAGE_KEY_MAX];
    bool keyed = language_key(key, sizeof key, platform, kind, id);
    const char *known = keyed ? map_get(&s->languages, key) : NULL;
    if (known) {
        if (!*known)
            return 0;
        *chosen = known[0] == '1';
        copy_cut(out, len, known + 1);
        return 1;
    }
    if (!s->language_get &&
        prepare(s, &s->language_get,
                "SELECT language, chosen FROM languages WHERE platform = ? AND kind = ? AND "
                "id = ?") < 0)
        return -1;
    sqlite3_stmt *st = s->language_get;
    sqlite3_bind_text(st, 1, platform, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, kind, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, id, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st), found = 0;
    if (rc == SQLITE_ROW) {
        const char *text = (const char *)sqlite3_column_text(st, 0);
        copy_cut(out, len, text ? text : "");
        *chosen = sqlite3_column_int(st, 1) != 0;
        found = 1;
        if (keyed)
            remember_language(s, key, text ? text : "", *chosen);
    } else if (rc == SQLITE_DONE) {
        if (keyed)
            remember_language(s, key, NULL, false);
    } else {
        log_error("store", NULL, "read failed: %s", sqlite3_errmsg(s->db));
        found = -1;
    }
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return found;
}
