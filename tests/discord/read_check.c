/*
 * read_check.c - the spans' reader against json-c's (read_check.h).
 */
#include <string.h>

#include "adapters/discord/internal.h"
#include "read_check.h"

/* Whether two borrowed strings are the same, or both absent. */
static bool same(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

/* What differs between two inputs, or NULL. */
static const char *differs(const struct inbound *a, const struct inbound *b)
{
    if (a->type != b->type)
        return "another type";
    if (!same(a->channel, b->channel) || !same(a->community, b->community))
        return "another channel";
    if (!same(a->user, b->user) || !same(a->user_name, b->user_name))
        return "another user";
    if (a->moderator != b->moderator)
        return "another moderator answer";
    if (!same(a->text, b->text))
        return "another text";
    if (a->order != b->order)
        return "another order";
    return NULL;
}

const char *read_check(struct platform *p, const char *txt, size_t len, bool *read)
{
    struct dc *dc = (struct dc *)p;
    int64_t seq;
    struct gw_message m;
    *read = false;
    if (gw_skim(txt, len, &seq, &m) != GW_SKIM_MESSAGE)
        return NULL;
    struct gw_payload gp;
    struct json_object *o = gw_decode(txt, len, &gp);
    if (!o)
        return "the full parse reads nothing";
    struct dc_read spans, parsed;
    *read = dc_read_skimmed(dc, &m, &spans);
    bool parsed_read = dc_read_message(dc, gp.d, &parsed);
    const char *why = *read != parsed_read ? "one reader ignores it, the other does not"
                      : *read              ? differs(&spans.in, &parsed.in)
                                           : NULL;
    dc_read_done(&spans);
    dc_read_done(&parsed);
    json_object_put(o);
    return why;
}
