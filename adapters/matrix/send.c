/*
 * send.c - the outbox: every event the bot sends, in order, exactly once.
 *
 * Each item gets a transaction id when it is queued, and the queue and the
 * id counter are written to the store before the item is sent. A PUT
 * /rooms/{roomId}/send/{eventType}/{txnId} repeated with the same id is
 * idempotent on the homeserver, so a timeout, a 5xx, a rate limit or a crash
 * followed by a restart sends the same item again without doubling it.
 *
 * One item is in flight at a time, which keeps the order of messages in
 * every room (the hand edit after the hand, the drop reactions after the
 * drop, the poll end before the verdict).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
#include <string.h>

#include <json-c/json.h>

#include "../../bot/log.h"
#include "client.h"
#include "crypto.h"
#include "core/catalog.h"
#include "core/text.h"
#include "bot/util/buf.h"
#include "mx.h"

#define MOD              "matrix"
#define MX_BALLOT_MAX    (16u << 10)        /* a DM ballot: the question and one line per choice */
#define MX_RESULT_MAX    (16u << 10)        /* a result and its "play again" line */
#define MX_REMATCH_EMOJI "\xf0\x9f\x94\x81" /* U+1F501, the repeat sign */

/*
 * The outbox in the store: one key per item, "out/<n>" for the item with
 * transaction number n, so queueing, changing or finishing an item writes one
 * small value whatever the length of the queue. A finished item's key holds
 * "" until "out/head", the lowest number that may still be waiting, passes
 * it; then the key is deleted. A restart
 * reads from there up to the first key never written, which also gives back
 * the transaction counter. Items are sent in the order of their "seq".
 */
static int64_t item_n(struct json_object *item)
{
    return jget_int64_or(item, "n", 0);
}

static void item_save(struct mx *m, struct json_object *item)
{
    char k[40];
    snprintf(k, sizeof(k), "out/%" PRId64, item_n(item));
    mx_state_set_json(m, k, item);
}

/* The lowest item number still waiting becomes the head; the keys below it are deleted. */
static void head_advance(struct mx *m)
{
    char k[40];
    int64_t head = (int64_t)m->txn + 1;
    for (size_t i = 0; i < json_object_array_length(m->outbox); i++) {
        int64_t o = item_n(json_object_array_get_idx(m->outbox, i));
        if (o > 0 && o < head)
            head = o;
    }
    int64_t old_head = m->out_head;
    m->out_head = head;
    char v[24];
    snprintf(v, sizeof(v), "%" PRId64, head);
    mx_state_set(m, "out/head", v);
    /* Everything below the head is finished: those keys are no longer read. */
    for (int64_t o = old_head; o < head; o++) {
        snprintf(k, sizeof(k), "out/%" PRId64, o);
        mx_state_del(m, k);
    }
}

/* Tells the bot that its stored message outbox_id (0: none) is delivered or never can be: it
 * leaves the bot's outbox, which sends it again at start until then. */
static void confirm(struct mx *m, int64_t outbox_id)
{
    const struct platform_host *h = m->base.host;
    if (outbox_id && h->sent)
        h->sent(h->ctx, &m->base, outbox_id);
}

/*
 * The bot forgets a confirmed message with its next commit, not at once: a kill -9 in between
 * leaves it in the bot's outbox, and the bot sends it again at start, when this outbox no longer
 * has it. Sent again, it would redo what its landing did, after whatever came since: new
 * reactions under new transaction ids, a DM's votes pointed back at an older ballot (whose
 * reactions then vote in the current case, while the current ballot's are ignored). So the
 * adapter writes "sent/<outbox id>" before it confirms, and forgets the key with a deferred
 * write after it, which reaches the disk with the bot's deletion or later, never before.
 */
static void sent_key(char *k, size_t len, int64_t outbox_id)
{
    snprintf(k, len, "sent/%" PRId64, outbox_id);
}

/* Confirms the bot's message outbox_id (not 0) as delivered, remembered until the bot forgot it. */
static void confirm_sent(struct mx *m, int64_t outbox_id)
{
    char k[40];
    sent_key(k, sizeof k, outbox_id);
    mx_state_set(m, k, "1");
    confirm(m, outbox_id);
    mx_state_defer(m, k, "");
    json_object_object_del(m->sent, k + 5);
}

static void sent_load_one(void *arg, const char *key, const char *value)
{
    struct mx *m = arg;
    if (*value && strncmp(key, "sent/", 5) == 0)
        json_object_object_add(m->sent, key + 5, json_object_new_boolean(1));
}

/* Whether the bot's message outbox_id was delivered before a restart that kept it in the bot's
 * outbox. */
static bool sent_before(struct mx *m, int64_t outbox_id)
{
    char k[40];
    sent_key(k, sizeof k, outbox_id);
    return outbox_id && json_object_object_get_ex(m->sent, k + 5, NULL);
}

/* Confirms the bot's message the item at idx came from, then removes the item and marks it
 * finished in the store: a crash in between leaves it queued, to go again under its
 * transaction id. */
static void item_done(struct mx *m, size_t idx)
{
    struct json_object *item = json_object_array_get_idx(m->outbox, idx);
    int64_t n = item_n(item);
    int64_t oid = jget_int64_or(item, "oid", 0);
    char k[40];
    snprintf(k, sizeof(k), "out/%" PRId64, n);
    if (oid)
        confirm_sent(m, oid);
    mx_state_set(m, k, "");
    json_object_array_del_idx(m->outbox, idx, 1);
    if (n == m->out_head)
        head_advance(m);
}

/* Queues an item and stores it. Takes item. Its transaction id is the one it has (from the
 * bot's message: the same after a crash, so the homeserver posts it once), or a new one. */
static void outbox_add(struct mx *m, struct json_object *item)
{
    char txn[48];
    m->txn++;
    snprintf(txn, sizeof(txn), "ild.%" PRIu64, m->txn);
    if (!jget_str(item, "txn"))
        json_object_object_add(item, "txn", json_object_new_string(txn));
    json_object_object_add(item, "n", json_object_new_int64((int64_t)m->txn));
    json_object_object_add(item, "seq", json_object_new_double((double)m->txn));
    json_object_array_add(m->outbox, item);
    item_save(m, item);
}

static double item_seq(struct json_object *item)
{
    double seq;
    return jget_double(item, "seq", &seq) == 0 ? seq : 0;
}

static int by_seq(const void *a, const void *b)
{
    double x = item_seq(*(struct json_object *const *)a);
    double y = item_seq(*(struct json_object *const *)b);
    return x < y ? -1 : x > y;
}

void mx_outbox_load(struct mx *m)
{
    char *h = mx_state_get(m, "out/head");
    int64_t head = h ? strtoll(h, NULL, 10) : (int64_t)m->txn + 1;
    free(h);
    if (head < 1)
        head = 1;
    m->out_head = head;
    if ((uint64_t)head - 1 > m->txn) /* every number below head was used */
        m->txn = (uint64_t)head - 1;
    for (int64_t n = head;; n++) {
        char k[40];
        snprintf(k, sizeof(k), "out/%" PRId64, n);
        char *v = mx_state_get(m, k);
        if (!v)
            break;
        if ((uint64_t)n > m->txn)
            m->txn = (uint64_t)n;
        struct json_object *item = *v ? json_tokener_parse(v) : NULL;
        free(v);
        if (item && json_object_is_type(item, json_type_object) && item_n(item) == n)
            json_object_array_add(m->outbox, item);
        else
            json_object_put(item);
    }
    /* An outbox kept as one array by an older version: queue its items under new numbers. */
    struct json_object *old = mx_state_get_json(m, "outbox");
    if (old && json_object_is_type(old, json_type_array) && json_object_array_length(old) > 0) {
        for (size_t i = 0; i < json_object_array_length(old); i++) {
            struct json_object *it = json_object_get(json_object_array_get_idx(old, i));
            const char *txn = jget_str(it, "txn");
            char *keep = txn ? strdup(txn) : NULL;
            outbox_add(m, it);
            if (keep) /* the same transaction id: a resend stays idempotent */
                json_object_object_add(it, "txn", json_object_new_string(keep));
            free(keep);
            item_save(m, it);
        }
        mx_state_set(m, "outbox", "[]");
    }
    json_object_put(old);
    mx_state_each(m, "sent/", sent_load_one, m);
    size_t n = json_object_array_length(m->outbox);
    if (n > 1) {
        struct json_object **v = calloc(n, sizeof(*v));
        if (v) {
            for (size_t i = 0; i < n; i++)
                v[i] = json_object_get(json_object_array_get_idx(m->outbox, i));
            qsort(v, n, sizeof(*v), by_seq);
            json_object_put(m->outbox);
            m->outbox = json_object_new_array();
            for (size_t i = 0; i < n; i++)
                json_object_array_add(m->outbox, v[i]);
            free(v);
        }
    }
}

void mx_outbox_push(struct mx *m, struct json_object *item)
{
    outbox_add(m, item);
    mx_pump(m);
}

static struct json_object *item_new(const char *room, const char *user, const char *type,
                                    struct json_object *content)
{
    struct json_object *it = json_object_new_object();
    if (room)
        json_object_object_add(it, "room", json_object_new_string(room));
    if (user)
        json_object_object_add(it, "user", json_object_new_string(user));
    json_object_object_add(it, "type", json_object_new_string(type));
    json_object_object_add(it, "content", content);
    return it;
}

/* The record of the message last sent under key: {"e","room","r"}, or NULL. */
static struct json_object *key_record(struct mx *m, const char *key)
{
    struct json_object *rec = jget_obj(m->keys, key);
    if (rec)
        return rec;
    char sk[512];
    snprintf(sk, sizeof(sk), "key/%s", key);
    rec = mx_state_get_json(m, sk);
    if (!rec)
        return NULL;
    if (!json_object_is_type(rec, json_type_object) || !jget_str(rec, "e")) {
        json_object_put(rec);
        return NULL;
    }
    json_object_object_add(m->keys, key, rec);
    return rec;
}

static void key_save(struct mx *m, const char *key, struct json_object *rec)
{
    char sk[512];
    snprintf(sk, sizeof(sk), "key/%s", key);
    mx_state_set_json(m, sk, rec);
}

char *mx_key_for_event(struct mx *m, const char *event_id)
{
    char sk[512];
    snprintf(sk, sizeof(sk), "event/%s", event_id);
    return mx_state_get(m, sk);
}

static void polls_save(struct mx *m)
{
    mx_state_set_json(m, "polls", m->polls);
}

/* Queues the end of one open poll and forgets it. */
static void poll_end(struct mx *m, const char *event_id)
{
    struct json_object *p = jget_obj(m->polls, event_id);
    if (!p)
        return;
    const char *room = jget_str(p, "room");
    if (room) {
        const char *lang = jget_str(p, "lang");
        struct json_object *c = mx_render_poll_end(
            event_id, catalog_text(lang ? lang : m->language, "matrix.poll-closed"));
        outbox_add(m, item_new(room, NULL, "org.matrix.msc3381.poll.end", c));
    }
    json_object_object_del(m->polls, event_id);
}

/* Ends every poll for which match() holds. Returns whether any ended. */
static bool end_polls(struct mx *m, bool (*match)(struct json_object *poll, const void *arg),
                      const void *arg)
{
    bool changed = false;
    for (;;) {
        const char *hit = NULL;
        json_object_object_foreach(m->polls, id, p)
        {
            if (match(p, arg)) {
                hit = id;
                break;
            }
        }
        if (!hit)
            break;
        char *copy = strdup(hit);
        if (!copy)
            break;
        poll_end(m, copy);
        free(copy);
        changed = true;
    }
    return changed;
}

static bool poll_due(struct json_object *poll, const void *arg)
{
    int64_t d;
    return jget_int64(poll, "deadline", &d) == 0 && (uint64_t)d <= *(const uint64_t *)arg;
}

static bool poll_in_room(struct json_object *poll, const void *arg)
{
    const char *r = jget_str(poll, "room");
    return r && strcmp(r, arg) == 0;
}

static void on_poll_timer(uv_timer_t *t)
{
    struct mx *m = t->data;
    uint64_t now = clock_wall_ms();
    if (end_polls(m, poll_due, &now)) {
        polls_save(m);
        mx_pump(m);
    }
    mx_polls_arm(m);
}

void mx_polls_arm(struct mx *m)
{
    int64_t next = -1;
    json_object_object_foreach(m->polls, id, p)
    {
        (void)id;
        int64_t d;
        if (jget_int64(p, "deadline", &d) == 0 && (next < 0 || d < next))
            next = d;
    }
    uv_timer_stop(&m->poll_timer);
    if (next < 0 || m->phase == MX_STOPPED)
        return;
    uint64_t now = clock_wall_ms();
    uint64_t delay = (uint64_t)next > now ? (uint64_t)next - now : 0;
    uv_timer_start(&m->poll_timer, on_poll_timer, delay, 0);
}

void mx_polls_end_room(struct mx *m, const char *room)
{
    bool changed = false;
    /* Polls still queued end as soon as they are sent. */
    for (size_t i = 0; i < json_object_array_length(m->outbox); i++) {
        struct json_object *it = json_object_array_get_idx(m->outbox, i);
        struct json_object *poll = jget_obj(it, "poll");
        const char *r = jget_str(it, "room");
        if (poll && r && strcmp(r, room) == 0) {
            json_object_object_add(poll, "end_now", json_object_new_boolean(1));
            item_save(m, it);
            changed = true;
        }
    }
    if (end_polls(m, poll_in_room, room))
        changed = true;
    if (changed) {
        polls_save(m);
        mx_polls_arm(m);
    }
}

/* Gives item the transaction id of the bot's message outbox_id (part k of it; 0 the message
 * itself), so that sending it again after a crash posts it once. */
static void pin_txn(struct json_object *item, int64_t outbox_id, size_t k)
{
    char txn[64];
    if (!outbox_id)
        return;
    if (k)
        snprintf(txn, sizeof txn, "ild.o%" PRId64 ".%zu", outbox_id, k);
    else
        snprintf(txn, sizeof txn, "ild.o%" PRId64, outbox_id);
    json_object_object_add(item, "txn", json_object_new_string(txn));
}

/* The index of the queued item of transaction txn, or -1. */
static ssize_t outbox_find(struct mx *m, const char *txn)
{
    for (size_t i = 0; i < json_object_array_length(m->outbox); i++) {
        const char *t = jget_str(json_object_array_get_idx(m->outbox, i), "txn");
        if (t && strcmp(t, txn) == 0)
            return (ssize_t)i;
    }
    return -1;
}

/* Whether the bot's message outbox_id is queued already (sent again by the bot at start). */
static bool queued(struct mx *m, int64_t outbox_id)
{
    for (size_t i = 0; outbox_id && i < json_object_array_length(m->outbox); i++)
        if (jget_int64_or(json_object_array_get_idx(m->outbox, i), "oid", 0) == outbox_id)
            return true;
    return false;
}

/* Whether user may take choice: its "by" lists them, or it has none. */
static bool chooses(const struct json_object *choice, const char *user)
{
    struct json_object *by = jget_arr(choice, "by");
    if (!by)
        return true;
    for (size_t i = 0; i < jarr_len(by); i++)
        if (jarr_str(by, i) && strcmp(jarr_str(by, i), user) == 0)
            return true;
    return false;
}

/* The players the choices name, as {"id","name"}, so that a ballot's text
 * names them as the table's does. A new array. */
static struct json_object *named_players(struct json_object *choices)
{
    struct json_object *list = json_object_new_array();
    for (size_t i = 0; i < jarr_len(choices); i++) {
        struct json_object *c = jarr_at(choices, i);
        const char *id = jget_str(c, "player"), *name = jget_str(c, "label");
        if (!id || !name)
            continue;
        struct json_object *p = json_object_new_object();
        json_object_object_add(p, "id", json_object_new_string(id));
        json_object_object_add(p, "name", json_object_new_string(name));
        json_object_array_add(list, p);
    }
    return list;
}

/* Adds to text a line for each choice user may take, with the reaction that takes it, and maps
 * that reaction to the choice's command in votes. False when text is full. */
static bool ballot_choices(struct json_object *data, struct json_object *choices, const char *user,
                           struct buf *text, struct json_object *votes)
{
    size_t shown = 0;
    for (size_t i = 0; i < jarr_len(choices); i++) {
        struct json_object *choice = jarr_at(choices, i);
        const char *act = jget_str(choice, "command");
        /* what the voter may not choose (their own name) is not on their ballot */
        if (!act || !chooses(choice, user))
            continue;
        const char *emoji = mx_vote_emoji(shown);
        if (!emoji)
            continue;
        shown++;
        char label[256];
        mx_choice_label(data, choice, label, sizeof label);
        if (buf_printf(text, "\n%s %s", emoji, label) < 0)
            return false;
        json_object_object_add(votes, emoji, json_object_new_string(act));
    }
    return true;
}

/* Queues user's ballot in their direct room: text, naming the candidates and mentioning its
 * voter only; votes (taken) maps its reactions to commands; number pins its transaction. */
static void queue_ballot(struct mx *m, const struct outbound *o, const char *user, const char *text,
                         struct json_object *cands, struct json_object *votes, size_t number)
{
    struct json_object *bd = json_object_new_object();
    struct json_object *to = json_object_new_array();
    json_object_array_add(to, json_object_new_string(user));
    json_object_object_add(bd, "candidates", json_object_get(cands));
    json_object_object_add(bd, "mentions", to);
    struct json_object *known = mx_known_names(m, to);
    struct json_object *it = item_new(NULL, user, "m.room.message",
                                      mx_render_message(text, OUT_BALLOT, bd, true, known));
    json_object_put(known);
    json_object_put(bd);
    json_object_object_add(it, "votes", votes);
    pin_txn(it, o->outbox_id, number);
    outbox_add(m, it);
}

/*
 * A ballot at a table that votes in private: each voter (its "mentions")
 * gets a ballot in their direct room, with one reaction per choice they may
 * take (every other player, and abstaining); their reaction there becomes
 * the choice's command. "vote <player>" typed there works too.
 */
static void queue_ballots(struct mx *m, const struct outbound *o, struct json_object *data)
{
    struct json_object *voters = jget_arr(data, "mentions");
    struct json_object *choices = jget_arr(data, "choices");
    if (!voters || !choices)
        return;
    struct json_object *cands = named_players(choices);
    /* The bot words the ballot for a DM; the table's text speaks to the table. */
    const char *ballot = jget_str(data, "ballot") ? jget_str(data, "ballot") : o->text;
    for (size_t c = 0; c < jarr_len(voters); c++) {
        const char *user = jarr_str(voters, c);
        if (!user || user[0] != '@')
            continue;
        /* a voter who reads another language than the table's has their own */
        const char *own = jget_str(jget_obj(data, "ballot_for"), user);
        struct buf text;
        buf_init(&text, MX_BALLOT_MAX);
        struct json_object *votes = json_object_new_object();
        if (buf_puts(&text, own ? own : ballot) == 0 &&
            ballot_choices(data, choices, user, &text, votes)) {
            queue_ballot(m, o, user, text.data, cands, votes, c + 1);
        } else {
            json_object_put(votes);
            /* the voter can still type "vote <player>" in their room */
            log_error(MOD, NULL, "no memory for the ballot of %s; not sent", user);
        }
        buf_free(&text);
    }
    json_object_put(cands);
}

/* A ballot as a native poll: its item, or NULL without choices or memory. */
static struct json_object *poll_item(const struct outbound *o, struct json_object *data)
{
    struct json_object *answers = NULL;
    struct json_object *c = mx_render_poll(o->text, data, &answers);
    if (!c)
        return NULL;
    struct json_object *item = item_new(o->channel, NULL, "org.matrix.msc3381.poll.start", c);
    struct json_object *poll = json_object_new_object();
    json_object_object_add(poll, "answers", answers);
    int64_t d;
    if (jget_int64(data, "deadline", &d) == 0)
        json_object_object_add(poll, "deadline", json_object_new_int64(d));
    if (catalog_has_language(jget_str(data, "lang"))) /* its end speaks the same */
        json_object_object_add(poll, "lang", json_object_new_string(jget_str(data, "lang")));
    json_object_object_add(item, "poll", poll);
    return item;
}

/*
 * What makes the choices of a message on item: in a room, a reaction per
 * choice that has an emoji (a drop's cards: the first to react takes one);
 * a ballot to one player, a numbered reaction per choice, which becomes its
 * command ("votes").
 */
static void add_choices(struct json_object *item, const struct outbound *o,
                        struct json_object *data)
{
    struct json_object *choices = jget_arr(data, "choices");
    struct json_object *list = NULL, *votes = NULL;
    for (size_t i = 0; i < jarr_len(choices); i++) {
        const char *emoji = jget_str(jarr_at(choices, i), "emoji");
        if (emoji && o->key && o->kind != OUT_BALLOT) {
            if (!list)
                list = json_object_new_array();
            json_object_array_add(list, json_object_new_string(emoji));
        }
    }
    if (list)
        json_object_object_add(item, "reactions", list);
    if (o->kind != OUT_BALLOT || !o->user || !choices)
        return;
    votes = json_object_new_object();
    for (size_t i = 0; i < jarr_len(choices); i++) {
        const char *emoji = mx_vote_emoji(i);
        const char *act = jget_str(jarr_at(choices, i), "command");
        if (emoji && act)
            json_object_object_add(votes, emoji, json_object_new_string(act));
    }
    json_object_object_add(item, "votes", votes);
}

/* Whether data.actions holds action. */
static bool offers(struct json_object *data, const char *action)
{
    struct json_object *actions = jget_arr(data, "actions");
    for (size_t i = 0; i < jarr_len(actions); i++)
        if (jarr_str(actions, i) && strcmp(jarr_str(actions, i), action) == 0)
            return true;
    return false;
}

/* Whether the bot's message o needs nothing from this outbox: queued already, delivered before
 * a crash (only its confirmation was lost), or not for people to read. */
static bool handled_already(struct mx *m, const struct outbound *o)
{
    if (queued(m, o->outbox_id))
        return true; /* the bot's outbox after a crash: this outbox has it already */
    if (sent_before(m, o->outbox_id)) {
        confirm_sent(m, o->outbox_id);
        return true;
    }
    if (o->kind == OUT_GAME_OVER) {
        confirm(m, o->outbox_id);
        return true; /* machine-readable; people read the OUT_RESULT just before it */
    }
    return false;
}

/* A result's "Play again" is a reaction on it, explained in a line added to its text (into
 * result). Returns that reaction's command by emoji, or NULL when the result offers none. */
static struct json_object *play_again(struct mx *m, const struct outbound *o,
                                      struct json_object *data, struct buf *result)
{
    if (o->kind != OUT_RESULT || !o->channel || !offers(data, OUT_ACTION_REMATCH))
        return NULL;
    const char *lang = jget_str(data, "lang");
    const char *vars[] = {"emoji", MX_REMATCH_EMOJI, NULL};
    char line[256];
    text_fill(line, sizeof line, catalog_has_language(lang) ? lang : m->language,
              "matrix.play-again", vars);
    struct json_object *again = NULL;
    if (buf_printf(result, "%s\n\n%s", o->text, line) == 0 && (again = json_object_new_object()))
        json_object_object_add(again, MX_REMATCH_EMOJI, json_object_new_string(OUT_ACTION_REMATCH));
    return again;
}

/* The message item of o (a notice, a ping, an edit). NULL if it cannot be rendered. */
static struct json_object *message_item(struct mx *m, const struct outbound *o,
                                        struct json_object *data)
{
    /* A ping asks the players it mentions to act, and notifies them. At a table that votes in
     * private, the vote's announcement is no ping: each voter's own ballot is. */
    bool ping = jarr_len(jget_arr(data, "mentions")) > 0 &&
                !(o->kind == OUT_BALLOT && o->channel && !jget_true(data, "poll"));
    struct buf result;
    buf_init(&result, MX_RESULT_MAX);
    struct json_object *again = play_again(m, o, data, &result);
    struct json_object *known = ping ? mx_known_names(m, jget_arr(data, "mentions")) : NULL;
    struct json_object *c =
        mx_render_message(again ? result.data : o->text, o->kind, data, ping, known);
    json_object_put(known);
    buf_free(&result);
    if (!c) {
        json_object_put(again);
        return NULL;
    }
    struct json_object *item = item_new(o->channel, o->user, "m.room.message", c);
    if (o->replace && o->key)
        json_object_object_add(item, "edit", json_object_new_boolean(1));
    add_choices(item, o, data);
    if (again) /* a reaction there becomes the command, as on a ballot */
        json_object_object_add(item, "votes", again);
    return item;
}

int mx_send_outbound(struct mx *m, const struct outbound *o)
{
    if ((!o->channel) == (!o->user) || !o->text)
        return -1;
    if (handled_already(m, o))
        return 0;
    struct json_object *data = (struct json_object *)o->data;
    if (o->channel && (o->kind == OUT_BALLOT || o->kind == OUT_RESULT))
        mx_polls_end_room(m, o->channel);
    struct json_object *item = NULL;
    if (o->kind == OUT_BALLOT && o->channel && jget_true(data, "poll"))
        item = poll_item(o, data);
    if (!item)
        item = message_item(m, o, data);
    if (!item)
        return -1;
    if (o->key)
        json_object_object_add(item, "key", json_object_new_string(o->key));
    if (o->outbox_id) /* confirmed to the bot when done (item_done) */
        json_object_object_add(item, "oid", json_object_new_int64(o->outbox_id));
    pin_txn(item, o->outbox_id, 0);
    bool poll = jget_obj(item, "poll") != NULL;
    outbox_add(m, item);
    if (o->kind == OUT_BALLOT && o->channel && !poll)
        queue_ballots(m, o, data);
    mx_pump(m);
    return 0;
}

void mx_send_plain_notice(struct mx *m, const char *room, const char *text)
{
    struct json_object *c = json_object_new_object();
    json_object_object_add(c, "msgtype", json_object_new_string("m.notice"));
    json_object_object_add(c, "body", json_object_new_string(text));
    mx_outbox_push(m, item_new(room, NULL, "m.room.message", c));
}

/*
 * Queues one m.annotation per emoji not yet on the message of record rec. Each reaction's
 * transaction id is its message item's (txn) and its place in emojis, under tag ('r' for a
 * drop's cards, 'v' for the choices of a ballot): a kill -9 after they were queued and before
 * their message was marked done sends the message again, under its own transaction id, and
 * queues the same reactions again; they must come out the same, so the homeserver posts each
 * once, and one already queued is not queued twice.
 */
static void add_reactions(struct mx *m, const char *room, const char *event_id,
                          struct json_object *emojis, struct json_object *rec, const char *txn,
                          char tag)
{
    struct json_object *done = jget_arr(rec, "r");
    for (size_t i = 0; i < jarr_len(emojis); i++) {
        const char *e = jarr_str(emojis, i);
        if (!e)
            continue;
        bool have = false;
        for (size_t j = 0; j < jarr_len(done); j++)
            if (jarr_str(done, j) && strcmp(jarr_str(done, j), e) == 0)
                have = true;
        if (have)
            continue;
        if (done)
            json_object_array_add(done, json_object_new_string(e));
        char rtxn[160];
        snprintf(rtxn, sizeof rtxn, "%s.%c%zu", txn, tag, i);
        if (outbox_find(m, rtxn) >= 0)
            continue; /* queued before the crash that sends its message again */
        struct json_object *it =
            item_new(room, NULL, "m.reaction", mx_render_reaction(event_id, e));
        json_object_object_add(it, "txn", json_object_new_string(rtxn));
        outbox_add(m, it);
    }
}

/* The message keyed `key` now exists as event_id: its record, found again by
 * the event's id. Returns the record (owned by m->keys). */
static struct json_object *record_new_key(struct mx *m, const char *key, const char *room,
                                          const char *event_id)
{
    struct json_object *rec = json_object_new_object();
    json_object_object_add(rec, "e", json_object_new_string(event_id));
    json_object_object_add(rec, "room", json_object_new_string(room));
    json_object_object_add(rec, "r", json_object_new_array());
    json_object_object_add(m->keys, key, rec);
    char sk[512];
    snprintf(sk, sizeof(sk), "event/%s", event_id);
    mx_state_set(m, sk, key);
    return rec;
}

/* Moves the outbox's last item, which is to go before the `before` items
 * queued ahead of it, to the front. */
static void outbox_last_first(struct mx *m, size_t before)
{
    struct json_object *end = json_object_array_get_idx(m->outbox, before);
    double first = item_seq(json_object_array_get_idx(m->outbox, 0));
    json_object_object_add(end, "seq", json_object_new_double(first - 1));
    item_save(m, end);
    struct json_object *nb = json_object_new_array();
    json_object_array_add(nb, json_object_get(end));
    for (size_t i = 0; i < before; i++)
        json_object_array_add(nb, json_object_get(json_object_array_get_idx(m->outbox, i)));
    json_object_put(m->outbox);
    m->outbox = nb;
}

/* A poll was sent as event_id: kept until its deadline ends it. */
static void poll_sent(struct mx *m, struct json_object *poll, const char *room,
                      const char *event_id)
{
    struct json_object *p = json_object_new_object();
    json_object_object_add(p, "room", json_object_new_string(room));
    static const char *const kept[] = {"answers", "deadline", "lang"};
    for (size_t i = 0; i < sizeof kept / sizeof kept[0]; i++) {
        struct json_object *v = jget(poll, kept[i]);
        if (v)
            json_object_object_add(p, kept[i], json_object_get(v));
    }
    json_object_object_add(m->polls, event_id, p);
    if (jget_type(poll, "end_now", json_type_boolean)) {
        /* The verdict is already queued behind this poll: end it first, and
         * put the end before anything queued for that room. */
        size_t before = json_object_array_length(m->outbox);
        poll_end(m, event_id);
        if (json_object_array_length(m->outbox) == before + 1 && before >= 1)
            outbox_last_first(m, before);
    }
    polls_save(m);
    mx_polls_arm(m);
}

/* A ballot was sent in a DM as event_id: it replaces the room's older ones,
 * and gets a reaction a choice. */
static void ballot_sent(struct mx *m, struct json_object *votes, const char *room,
                        const char *event_id, const char *txn)
{
    for (;;) {
        const char *old = NULL;
        json_object_object_foreach(m->votes, id, v)
        {
            const char *r = jget_str(v, "room");
            if (r && strcmp(r, room) == 0) {
                old = id;
                break;
            }
        }
        if (!old)
            break;
        json_object_object_del(m->votes, old);
    }
    struct json_object *v = json_object_new_object();
    json_object_object_add(v, "room", json_object_new_string(room));
    json_object_object_add(v, "map", json_object_get(votes));
    json_object_object_add(m->votes, event_id, v);
    mx_state_set_json(m, "votes", m->votes);
    struct json_object *list = json_object_new_array();
    json_object_object_foreach(votes, emoji, act)
    {
        (void)act;
        json_object_array_add(list, json_object_new_string(emoji));
    }
    struct json_object *none = json_object_new_object();
    json_object_object_add(none, "r", json_object_new_array());
    add_reactions(m, room, event_id, list, none, txn, 'v');
    json_object_put(none);
    json_object_put(list);
}

/* The first item is sent: record what it created, then drop it. */
static void item_sent(struct mx *m, struct json_object *item, const char *room,
                      const char *event_id, bool was_edit)
{
    const char *key = jget_str(item, "key");
    struct json_object *rec = key ? key_record(m, key) : NULL;
    if (key && !was_edit)
        rec = record_new_key(m, key, room, event_id);
    const char *txn = jget_str(item, "txn");
    struct json_object *reactions = jget_arr(item, "reactions");
    if (reactions && rec)
        add_reactions(m, room, jget_str(rec, "e"), reactions, rec, txn, 'r');
    if (rec && key)
        key_save(m, key, rec);
    struct json_object *poll = jget_obj(item, "poll");
    if (poll)
        poll_sent(m, poll, room, event_id);
    struct json_object *votes = jget_obj(item, "votes");
    if (votes)
        ballot_sent(m, votes, room, event_id, txn);
}

static void lane_free(struct mx_lane *l)
{
    l->call = NULL;
    free(l->txn);
    free(l->target);
    l->txn = l->target = NULL;
}

/* The item of transaction txn is in its room as event_id: what it leads to is queued and stored
 * before it is marked done, so a crash in between sends it again (harmless: the same txn)
 * rather than losing it. event_id may point into the answer that names it. */
static void item_landed(struct mx *m, struct json_object *item, const char *txn,
                        const char *event_id)
{
    json_object_get(item);
    char *ev = strdup(event_id);
    const char *room = jget_str(item, "room");
    if (ev)
        item_sent(m, item, room ? room : "", ev,
                  jget_type(item, "sent_as_edit", json_type_boolean) != NULL);
    free(ev);
    ssize_t idx = outbox_find(m, txn);
    if (idx >= 0)
        item_done(m, (size_t)idx);
    json_object_put(item);
}

/* What identifies the access token a send used, without the token: the start of its SHA-256. */
static char *token_mark(struct mx *m)
{
    char *h = m->token ? mxc_sha256(m->token, strlen(m->token)) : NULL;
    if (h && strlen(h) > 16)
        h[16] = '\0';
    return h;
}

/* Whether the two m.relates_to objects are the same annotation (the event and the key). */
static bool same_annotation(struct json_object *a, struct json_object *b)
{
    const char *ta = jget_str(a, "rel_type"), *tb = jget_str(b, "rel_type");
    const char *ea = jget_str(a, "event_id"), *eb = jget_str(b, "event_id");
    const char *ka = jget_str(a, "key"), *kb = jget_str(b, "key");
    return ta && tb && ea && eb && ka && kb && strcmp(ta, "m.annotation") == 0 &&
           strcmp(ta, tb) == 0 && strcmp(ea, eb) == 0 && strcmp(ka, kb) == 0;
}

/* Whether ev, read back from the room, is the bot's event of queued item (transaction txn): it
 * carries txn in MX_TXN_MARK, or, for a reaction sent in the clear (whose content is its
 * relation only), it is the bot's reaction with the same relation. A server should refuse a
 * second identical annotation, but need not, so a reaction is never sent again on that hope. */
static bool is_item(struct mx *m, struct json_object *item, const char *txn, struct json_object *ev)
{
    const char *sender = jget_str(ev, "sender");
    if (!sender || strcmp(sender, m->user_id) != 0)
        return false;
    struct json_object *content = jget_obj(ev, "content");
    const char *t = jget_str(content, MX_TXN_MARK);
    if (t)
        return strcmp(t, txn) == 0;
    const char *type = jget_str(ev, "type"), *want = jget_str(item, "type");
    return type && want && strcmp(type, "m.reaction") == 0 && strcmp(want, type) == 0 &&
           same_annotation(jget_obj(content, "m.relates_to"),
                           jget_obj(jget_obj(item, "content"), "m.relates_to"));
}

static enum mx_next on_checked(void *arg, const struct mx_resp *r)
{
    struct mx_lane *lane = arg;
    struct mx *m = lane->m;
    ssize_t idx = outbox_find(m, lane->txn);
    struct json_object *item = idx >= 0 ? json_object_array_get_idx(m->outbox, (size_t)idx) : NULL;
    struct json_object *chunk = jget_arr(r->json, "chunk");
    const char *found = NULL;
    for (size_t i = 0; item && i < jarr_len(chunk); i++) {
        struct json_object *ev = jarr_at(chunk, i);
        if (is_item(m, item, lane->txn, ev))
            found = jget_str(ev, "event_id");
    }
    if (item && found) {
        log_info(MOD, NULL, "a message sent before a new login had landed: not sent again");
        item_landed(m, item, lane->txn, found);
    } else if (item) {
        /* not there (or the room could not be read): send it, under this token from now on */
        char *mark = token_mark(m);
        if (mark)
            json_object_object_add(item, "tok", json_object_new_string(mark));
        free(mark);
        item_save(m, item);
    }
    lane_free(lane);
    mx_pump(m);
    return MX_DONE;
}

static enum mx_next on_sent(void *arg, const struct mx_resp *r)
{
    struct mx_lane *lane = arg;
    struct mx *m = lane->m;
    ssize_t idx = outbox_find(m, lane->txn);
    if (idx < 0) {
        lane_free(lane);
        mx_pump(m);
        return MX_DONE;
    }
    struct json_object *item = json_object_array_get_idx(m->outbox, (size_t)idx);
    const char *room = jget_str(item, "room");
    if (r->status == 200) {
        const char *event_id = jget_str(r->json, "event_id");
        if (!event_id || event_id[0] != '$')
            return MX_RETRY; /* malformed: the same PUT again, after backoff */
        item_landed(m, item, lane->txn, event_id);
    } else if (r->status == 401) {
        lane_free(lane); /* the item stays queued, with its transaction id */
        mx_token_rejected(m, "sending");
        return MX_DONE;
    } else {
        log_warn(MOD, NULL, "send to %s refused: HTTP %ld %s; dropping the message",
                 room ? room : "?", r->status, r->errcode ? r->errcode : "");
        item_done(m, (size_t)idx);
    }
    lane_free(lane);
    mx_pump(m);
    return MX_DONE;
}

/* Starts the PUT of one item on a free lane. Returns 0, or -1 to wait. */
static enum mx_next on_checked(void *arg, const struct mx_resp *r);

/*
 * Transaction ids are scoped to an access token: an item first sent under another token (a new
 * login between runs) may have landed already, and a PUT under the new token would post it again.
 * Every event the bot sends carries its transaction id in MX_TXN_MARK; such an item is first
 * looked for among the bot's recent events of its room, back from a sync token of this run (one
 * stored before a kill -9 may come before what was sent just before it). Returns 0 when the
 * look started, -1 to wait.
 */
static int check_landed(struct mx *m, struct mx_lane *lane, const char *room, const char *txn,
                        const char *target)
{
    if (!m->since_current)
        return -1; /* a stored token may be older than the item: the pump runs after a batch */
    char *er = mx_escape(room), *ef = m->since ? mx_escape(m->since) : NULL;
    char path[2048];
    snprintf(path, sizeof path, "/_matrix/client/v3/rooms/%s/messages?dir=b&limit=100%s%s",
             er ? er : "", ef ? "&from=" : "", ef ? ef : "");
    free(er);
    free(ef);
    lane->m = m;
    lane->txn = strdup(txn);
    lane->target = strdup(target);
    if (lane->txn && lane->target)
        lane->call = mx_http_call(m->http, "GET", path, NULL, MX_CALL_TIMEOUT_MS, MX_CALL_RETRY,
                                  on_checked, lane);
    if (!lane->call) {
        lane_free(lane);
        return -1;
    }
    return 0;
}

/* Whether item was first sent under another access token (a login since):
 * then only the server can say whether it landed. Marks it with this one's. */
static bool sent_under_other_token(struct mx *m, struct json_object *item)
{
    char *mark = token_mark(m);
    const char *was = jget_str(item, "tok");
    bool other = mark && was && strcmp(was, mark) != 0;
    if (mark && !was) {
        json_object_object_add(item, "tok", json_object_new_string(mark));
        item_save(m, item);
    }
    free(mark);
    return other;
}

/* What item sends into room: its content, or an edit of its keyed message
 * when that message is in this room (*edit: a new object the caller puts).
 * Returns -1 when memory runs out. */
static int body_of(struct mx *m, struct json_object *item, const char *room,
                   struct json_object **body, bool *edit)
{
    struct json_object *content = jget_obj(item, "content");
    const char *key = jget_str(item, "key");
    *body = content;
    *edit = false;
    if (jget_type(item, "edit", json_type_boolean) && key) {
        struct json_object *rec = key_record(m, key);
        const char *rroom = jget_str(rec, "room");
        if (rec && rroom && strcmp(rroom, room) == 0) {
            *body = mx_render_edit(json_object_get(content), jget_str(rec, "e"));
            if (!*body)
                return -1;
            *edit = true;
        }
    }
    bool marked = jget_type(item, "sent_as_edit", json_type_boolean) != NULL;
    if (*edit && !marked)
        json_object_object_add(item, "sent_as_edit", json_object_new_boolean(1));
    else if (!*edit && marked)
        json_object_object_del(item, "sent_as_edit");
    if (*edit != marked)
        item_save(m, item);
    return 0;
}

/* In an encrypted room every event goes encrypted (reactions and polls too; a
 * relation stays in the clear), once: a retry sends the same ciphertext under
 * the same transaction id. A room whose state no sync has shown yet may be
 * encrypted: its events wait. Returns 0 with *type and *body what to send (an
 * edit's body put once the ciphertext replaces it), -1 when the item waits. */
static int seal(struct mx *m, struct json_object *item, const char *room, const char **type,
                struct json_object **body, bool *edit)
{
    struct json_object *enc = jget_obj(item, "enc");
    struct mx_room *r = mx_room_get(m, room, false);
    if (!enc && r && !r->state_seen)
        return -1; /* the pump runs again after the next sync batch */
    if (!enc && r && r->encrypted) {
        struct json_object *c = NULL;
        if (mx_e2e_encrypt(m, r, *type, *body, &c) != 0)
            return -1; /* the pump runs again once the room's key reached its members */
        json_object_object_add(item, "enc", c);
        item_save(m, item);
        enc = c;
    }
    if (enc) {
        if (*edit)
            json_object_put(*body);
        *edit = false;
        *body = enc;
        *type = "m.room.encrypted";
    }
    return 0;
}

/* PUTs body as an event of type into room under txn, on lane. Returns -1
 * (lane freed, logged) when the call cannot start. */
static int put_event(struct mx *m, struct mx_lane *lane, const char *room, const char *type,
                     const char *txn, const char *target, struct json_object *body)
{
    char *er = mx_escape(room), *et = mx_escape(type), *ex = mx_escape(txn);
    char *path = NULL;
    if (er && et && ex) {
        size_t n = strlen(er) + strlen(et) + strlen(ex) + 64;
        path = malloc(n);
        if (path)
            snprintf(path, n, "/_matrix/client/v3/rooms/%s/send/%s/%s", er, et, ex);
    }
    free(er);
    free(et);
    free(ex);
    lane->m = m;
    lane->txn = strdup(txn);
    lane->target = strdup(target);
    if (strcmp(type, "m.reaction") != 0) /* a reaction's content is its relation only */
        json_object_object_add(body, MX_TXN_MARK, json_object_new_string(txn));
    const char *text = json_object_to_json_string_ext(body, JSON_C_TO_STRING_PLAIN);
    if (path && lane->txn && lane->target)
        lane->call = mx_http_call(m->http, "PUT", path, text, MX_CALL_TIMEOUT_MS, MX_CALL_RETRY,
                                  on_sent, lane);
    free(path);
    if (!lane->call) {
        lane_free(lane);
        log_error(MOD, NULL, "cannot start a send (out of memory)");
        return -1;
    }
    return 0;
}

static int start_item(struct mx *m, struct mx_lane *lane, struct json_object *item,
                      const char *room, const char *target)
{
    if (sent_under_other_token(m, item))
        return check_landed(m, lane, room, jget_str(item, "txn"), target);
    const char *type = jget_str(item, "type");
    struct json_object *body;
    bool edit;
    if (body_of(m, item, room, &body, &edit) < 0)
        return -1;
    int rc = seal(m, item, room, &type, &body, &edit);
    if (rc == 0)
        rc = put_event(m, lane, room, type, jget_str(item, "txn"), target, body);
    if (edit)
        json_object_put(body);
    return rc;
}

/*
 * Sends what can go now: the oldest item of each room, on up to
 * MX_SEND_LANES connections at once. Items of one room (or to one user
 * whose direct room is not known yet) keep their order.
 */
void mx_pump(struct mx *m)
{
    if (m->phase != MX_SYNCING)
        return;
    struct json_object *busy = json_object_new_object();
    int free_lanes = 0;
    for (int i = 0; i < MX_SEND_LANES; i++) {
        if (m->lanes[i].call)
            json_object_object_add(busy, m->lanes[i].target, json_object_new_boolean(1));
        else
            free_lanes++;
    }
    for (size_t i = 0; free_lanes > 0 && i < json_object_array_length(m->outbox); i++) {
        struct json_object *item = json_object_array_get_idx(m->outbox, i);
        const char *room = jget_str(item, "room");
        const char *user = jget_str(item, "user");
        if (!jget_str(item, "type") || !jget_str(item, "txn") || !jget_obj(item, "content") ||
            (!room && !user)) {
            item_done(m, i);
            i--;
            continue;
        }
        char target[512];
        const char *dm = room ? NULL : mx_dm_room(m, user);
        snprintf(target, sizeof(target), "%s%s", room || dm ? "" : "user:",
                 room ? room
                 : dm ? dm
                      : user);
        if (jget(busy, target))
            continue;
        json_object_object_add(busy, target, json_object_new_boolean(1));
        if (!room) {
            if (!dm) {
                if (mx_dm_ensure(m, user) != 0) {
                    log_warn(MOD, NULL, "no direct room for %s; dropping a message", user);
                    item_done(m, i);
                    i--;
                }
                continue; /* the pump runs again once the room exists */
            }
            /* Pin the room, so a retry after a restart goes to the same one. */
            json_object_object_add(item, "room", json_object_new_string(dm));
            item_save(m, item);
            room = jget_str(item, "room");
        }
        struct mx_lane *lane = NULL;
        for (int k = 0; k < MX_SEND_LANES && !lane; k++)
            if (!m->lanes[k].call)
                lane = &m->lanes[k];
        if (start_item(m, lane, item, room, target) == 0)
            free_lanes--;
    }
    json_object_put(busy);
}
