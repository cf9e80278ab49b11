/*
 * deliver.c - inputs handed to the bot: gateway messages and reactions
 * (inbound.c) and slash commands and components (interactions.c) all go
 * through here.
 */
#include "internal.h"

int dc_deliver(struct dc *dc, const struct inbound *in)
{
    if (dc->stopping)
        return -1;
    dc->st.delivered++;
    return dc->base.host->deliver(dc->base.host->ctx, &dc->base, in);
}

int dc_send_command(struct dc *dc, const char *text, const char *channel, const char *user,
                    const char *user_name, bool moderator, const char *reply_to, const char *locale,
                    const char *community, uint64_t order)
{
    struct inbound in = {
        .type = INBOUND_COMMAND,
        .channel = channel,
        .user = user,
        .user_name = user_name,
        .moderator = moderator,
        .text = text,
        .reply_to = reply_to,
        .locale = locale,
        .community = community,
        .order = order,
    };
    return dc_deliver(dc, &in);
}

void dc_sent(struct dc *dc, int64_t outbox_id)
{
    const struct platform_host *h = dc->base.host;
    if (outbox_id && h->sent)
        h->sent(h->ctx, &dc->base, outbox_id);
}
