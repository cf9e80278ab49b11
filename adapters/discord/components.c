/*
 * components.c - a press on one of the bot's buttons or select menus.
 *
 * A control's custom_id is "<message key>#<action>" (render.c). A press
 * counts only on a message whose controls are live (messages.c) and that is
 * still its key's message: a control of a game that is over, of a step that
 * has passed (an answered offer, a judged case) or of a message posted anew
 * ("hand") is refused with a word to the presser alone, never read as a
 * command of whatever game the table or the player has now. In a DM a press
 * names its game ("g7 accept 3"), so that a player at two tables is never
 * asked which. The menus of a module's compose (bot/platform.h) are read
 * here, one builder per message, and its send button fills the template it
 * carries with what was picked.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/log.h"
#include "internal.h"

struct dc_builder *dc_builder_of(struct dc *dc, const char *key, bool create)
{
    struct dc_builder *tb = map_get(&dc->builders, key);
    if (tb || !create)
        return tb;
    tb = calloc(1, sizeof *tb);
    if (tb && map_put(&dc->builders, key, tb, NULL) < 0) {
        free(tb);
        tb = NULL;
    }
    return tb;
}

const char *dc_builder_pick(const struct dc_builder *tb, const char *name)
{
    for (size_t i = 0; tb && i < COMPOSE_PARTS_MAX; i++)
        if (tb->pick[i].name && strcmp(tb->pick[i].name, name) == 0)
            return tb->pick[i].value;
    return NULL;
}

/* Keeps value (owned by tb after) as tb's pick for the part called name;
 * a part past COMPOSE_PARTS_MAX, or no memory, loses it. */
static void note_pick(struct dc_builder *tb, const char *name, char *value)
{
    size_t i = 0;
    while (i < COMPOSE_PARTS_MAX && tb->pick[i].name && strcmp(tb->pick[i].name, name) != 0)
        i++;
    if (i == COMPOSE_PARTS_MAX || (!tb->pick[i].name && !(tb->pick[i].name = strdup(name)))) {
        free(value);
        return;
    }
    free(tb->pick[i].value);
    tb->pick[i].value = value;
}

/* Whether a press on message `pressed` of the control keyed key comes too
 * late: the controls closed, or another message took the key. A result's
 * Play again never does: the adapter forgets a game's controls once its last
 * messages are delivered, and the rematch reads the table's last finished
 * game from the store. */
static bool stale(struct dc *dc, const char *key, const char *action, const char *pressed)
{
    if (pressed && strcmp(action, OUT_ACTION_REMATCH) == 0)
        return false;
    if (!pressed || !dc_controls_live(dc, key))
        return true;
    char *of = dc_msg_key_of(dc, pressed);
    bool other = of && strcmp(of, key) != 0;
    free(of);
    if (other)
        return true;
    struct dc_msg *m = dc_msg_restore(dc, key);
    if (m && m->id)
        return strcmp(m->id, pressed) != 0;
    /* its post is on its way: only the message it replaces is stale */
    return m && m->replaced && strcmp(m->replaced, pressed) == 0;
}

/* Whether s is an item id as a compose writes them ("call-girls"). */
static bool item_id(const char *s, size_t n)
{
    if (n == 0 || n > 32)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!islower((unsigned char)s[i]) && !isdigit((unsigned char)s[i]) && s[i] != '-')
            return false;
    return true;
}

/*
 * The counts of items from the chosen values ("2 guns", see render.c's
 * items_menu): "2 guns 1 alcohol", or "" for none. Of several quantities
 * of one item the largest counts; values of another form are ignored.
 */
static char *join_items(const struct dc_ix_in *in)
{
    struct {
        char card[33];
        unsigned n;
    } picked[25];
    unsigned npicked = 0;
    for (size_t i = 0; i < in->nvalues && i < GW_IX_LIST_MAX; i++) {
        const char *v = in->values[i];
        char *end;
        unsigned long q = v && isdigit((unsigned char)*v) ? strtoul(v, &end, 10) : 0;
        if (q == 0 || q > DC_BUILDER_MAX_QTY || *end != ' ' || !item_id(end + 1, strlen(end + 1)))
            continue;
        unsigned k = 0;
        while (k < npicked && strcmp(picked[k].card, end + 1) != 0)
            k++;
        if (k == npicked) {
            snprintf(picked[k].card, sizeof(picked[k].card), "%s", end + 1);
            picked[k].n = 0;
            npicked++;
        }
        if (q > picked[k].n)
            picked[k].n = (unsigned)q;
    }
    struct buf b;
    buf_init(&b, DC_COMMAND_TEXT_MAX);
    for (unsigned k = 0; k < npicked; k++)
        if (buf_printf(&b, "%s%u %s", k ? " " : "", picked[k].n, picked[k].card) < 0)
            goto fail;
    if (!npicked && buf_puts(&b, "") < 0)
        goto fail;
    return buf_take(&b);
fail:
    buf_free(&b);
    return NULL;
}

/* Whether id is a computer player's ("cpu:2"), which a person trades with
 * like anyone. */
static bool computer_id(const char *id)
{
    return strncmp(id, PLATFORM_COMPUTER_PREFIX, strlen(PLATFORM_COMPUTER_PREFIX)) == 0;
}

/* The chosen partner's id, when it is one: a snowflake, or a computer's. */
static char *partner_id(const struct dc_ix_in *in)
{
    const char *v = in->values[0];
    size_t n = v ? strlen(v) : 0;
    size_t digits = n && computer_id(v) ? strlen(PLATFORM_COMPUTER_PREFIX) : 0;
    if (n <= digits || n > 32)
        return NULL;
    for (size_t i = digits; i < n; i++)
        if (!isdigit((unsigned char)v[i]))
            return NULL;
    return strdup(v);
}

/* What a menu's chosen values write into the command: a player (one value
 * that is a user's id: a person by mention, a computer by its id), else the
 * counts of items ("2 guns 1 alcohol", "" for none). NULL on no memory. */
static char *pick_text(const struct dc_ix_in *in)
{
    char *id = in->nvalues == 1 ? partner_id(in) : NULL;
    if (!id || computer_id(id))
        return id ? id : join_items(in);
    struct buf b;
    buf_init(&b, DC_COMMAND_TEXT_MAX);
    char *mention = buf_printf(&b, "<@%s>", id) == 0 ? buf_take(&b) : NULL;
    if (!mention)
        buf_free(&b);
    free(id);
    return mention;
}

static const char *pick_of(void *tb, const char *name)
{
    return dc_builder_pick(tb, name);
}

/* The command of a compose's send button (action "tb:send <template>") on
 * the message under key of game: the template filled with the picks, or
 * the command's words alone while a part that must be chosen is not (the
 * bot answers with its usage). A template that does not fit gives nothing
 * (the bot's help answers), logged. */
static char *send_text(struct dc *dc, const char *key, const char *game, const char *tmpl)
{
    char cmd[2048]; /* four parts' picks and the template's words */
    enum compose_fill f =
        compose_fill(tmpl, pick_of, dc_builder_of(dc, key, false), cmd, sizeof cmd);
    if (f == COMPOSE_BAD) {
        log_error(DC_MOD, NULL, "%s: its compose cannot be sent: %s", key, cmd);
        return NULL;
    }
    struct buf b;
    buf_init(&b, DC_COMMAND_TEXT_MAX);
    if (buf_printf(&b, "%s %s", game, cmd) < 0) {
        buf_free(&b);
        return NULL;
    }
    return buf_take(&b);
}

/* A compose's menu (action "tb:<part>") or its send button ("tb:send
 * <template>") on the message under key of game. Send gives the command; a
 * menu is noted and answered here (-1). */
static int builder(struct dc *dc, struct dc_ixn *x, const char *key, const char *game,
                   const char *action, const struct dc_ix_in *in, char **text)
{
    if (strncmp(action, "tb:send ", 8) == 0) {
        *text = send_text(dc, key, game, action + 8);
        return 0;
    }
    const char *name = action + 3;
    struct dc_builder *tb = dc_builder_of(dc, key, true);
    if (tb && compose_name_ok(name, strlen(name)))
        note_pick(tb, name, pick_text(in));
    dc_ix_ack(dc, x);
    return -1;
}

int dc_press(struct dc *dc, struct dc_ixn *x, const struct dc_ix_in *in, char **text)
{
    const char *cid = in->custom_id;
    const char *pressed = in->message_id;
    const char *sep = cid ? strchr(cid, DC_CUSTOM_ID_SEP) : NULL;
    char key[DC_CUSTOM_ID_MAX + 1];
    struct msg_key k;
    *text = NULL;
    if (sep && (size_t)(sep - cid) < sizeof key) {
        memcpy(key, cid, (size_t)(sep - cid));
        key[sep - cid] = '\0';
    }
    if (!sep || (size_t)(sep - cid) >= sizeof key || msg_key_parse(key, &k) < 0 ||
        stale(dc, key, sep + 1, pressed)) {
        dc_ix_say(dc, x, dc_word_for(dc, in->locale, "ui.stale-control"));
        return -1;
    }
    const char *action = sep + 1;
    if (strncmp(action, "tb:", 3) == 0)
        return builder(dc, x, key, k.game, action, in, text);
    struct buf b;
    buf_init(&b, DC_COMMAND_TEXT_MAX);
    /* in a DM a command names its game: the player may be at two tables */
    bool name_game = !in->guild &&
                     strncmp(action, PLATFORM_COMMAND_PREFIX, strlen(PLATFORM_COMMAND_PREFIX)) != 0;
    if (buf_printf(&b, "%s%s%s", name_game ? k.game : "", name_game ? " " : "", action) < 0) {
        buf_free(&b);
        return 0;
    }
    *text = buf_take(&b);
    return 0;
}
