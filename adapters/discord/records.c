/*
 * records.c - the adapter's records (users, messages, guilds) and their lifetimes.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/types.h>

#include "bot/log.h"
#include "internal.h"

void dc_builder_free(void *builder)
{
    struct dc_builder *tb = builder;
    if (!tb)
        return;
    for (size_t i = 0; i < COMPOSE_PARTS_MAX; i++) {
        free(tb->pick[i].name);
        free(tb->pick[i].value);
    }
    free(tb);
}

void dc_user_free(void *p)
{
    struct dc_user *u = p;
    struct dc_pending *n;
    while ((n = STAILQ_FIRST(&u->pending))) {
        STAILQ_REMOVE_HEAD(&u->pending, link);
        dc_op_free(n->op);
        free(n);
    }
    free(u->dm_channel);
    free(u);
}

void dc_msg_free(void *p)
{
    struct dc_msg *m = p;
    free(m->channel);
    free(m->id);
    free(m->replaced);
    map_clear(&m->reacted, NULL);
    free(m);
}

void dc_role_free(void *p)
{
    struct dc_role *r = p;
    free(r->name);
    free(r);
}

void dc_guild_free(void *p)
{
    struct dc_guild *g = p;
    free(g->owner);
    map_clear(&g->roles, dc_role_free);
    free(g);
}

struct dc_op *dc_op_new(struct dc *dc, enum dc_op_type type)
{
    struct dc_op *op;
    if (dc->nops_kept) {
        op = dc->ops_kept[--dc->nops_kept];
        memset(op, 0, sizeof(*op));
    } else if (!(op = calloc(1, sizeof(*op)))) {
        return NULL;
    }
    op->dc = dc;
    op->type = type;
    return op;
}

void dc_op_free(struct dc_op *op)
{
    if (!op)
        return;
    if (op->dl)
        dc_delivery_answered(op->dc, op, true); /* never answered: not delivered */
    free(op->ix);
    free(op->key);
    free(op->channel);
    free(op->user);
    free(op->body);
    free(op->emoji);
    free(op->msg_id);
    free(op->post_body);
    struct dc *dc = op->dc;
    /* a stopping adapter's records go: dc_destroy() may have freed the kept ones */
    if (!dc->stopping && dc->nops_kept < DC_OPS_KEPT)
        dc->ops_kept[dc->nops_kept++] = op;
    else
        free(op);
}

void dc_ops_kept_free(struct dc *dc)
{
    while (dc->nops_kept)
        free(dc->ops_kept[--dc->nops_kept]);
}

char *dc_xstrdup(const char *s)
{
    return s ? strdup(s) : NULL;
}

struct dc_user *dc_user_get(struct dc *dc, const char *id)
{
    struct dc_user *u = map_get(&dc->users, id);
    if (u)
        return u;
    u = calloc(1, sizeof(*u));
    if (!u)
        return NULL;
    STAILQ_INIT(&u->pending);
    if (map_put(&dc->users, id, u, NULL) < 0) {
        free(u);
        return NULL;
    }
    return u;
}

struct dc_msg *dc_msg_get(struct dc *dc, const char *key, const char *channel)
{
    struct dc_msg *m = map_get(&dc->msgs, key);
    if (m)
        return m;
    m = calloc(1, sizeof(*m));
    if (!m)
        return NULL;
    m->channel = dc_xstrdup(channel);
    map_init(&m->reacted);
    if (map_put(&dc->msgs, key, m, NULL) < 0) {
        dc_msg_free(m);
        return NULL;
    }
    return m;
}
