/*
 * discord.c - the Discord platform: configuration, start (the gateway), send,
 * DM probes, the game news, stop. internal.h names its other parts.
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

#define DEFAULT_API_URL "https://discord.com/api/v10"
/* Discord's global limit of REST requests per second, unless configured. */
#define DEFAULT_GLOBAL_RATE 50u

/* ---- platform ops ---- */

/*
 * Guild lists and roles, table commands, drop reactions, DM commands. The
 * text of a table line needs MESSAGE_CONTENT, a privileged intent; without
 * it Discord still gives the text of DMs and of lines that mention the bot
 * (a reply to it that pings it too), and slash commands and components
 * never needed it.
 */
static unsigned intents(const struct dc *dc)
{
    unsigned want = GW_INTENT_GUILDS | GW_INTENT_GUILD_MESSAGES |
                    GW_INTENT_GUILD_MESSAGE_REACTIONS | GW_INTENT_DIRECT_MESSAGES |
                    GW_INTENT_DIRECT_MESSAGE_REACTIONS;
    return dc->content == DC_CONTENT_OFF ? want : want | GW_INTENT_MESSAGE_CONTENT;
}

/* Discord refused the Message Content intent (auto): said once, with what
 * players lose and how to give it back. */
static void content_refused(void *ud, unsigned dropped)
{
    struct dc *dc = ud;
    (void)dropped;
    dc->reads_content = false;
    log_warn(DC_MOD, NULL,
             "Discord refused the Message Content intent (close 4014); going on without it. "
             "Players can no longer type \"!illegal ...\" in a table: they mention the bot "
             "(\"@bot join\") or use /illegal there, and everything works in DMs and with "
             "buttons. To read \"!illegal\" again, enable Message Content Intent in the "
             "Developer Portal (your application > Bot > Privileged Gateway Intents) and restart; "
             "[discord] message_content = off stops asking");
}

static void start_gateway(struct dc *dc, const char *url, int shards, int maxc, uint64_t delay)
{
    static const struct gw_ops ops = {
        .dispatch = dc_on_dispatch,
        .message = dc_on_message,
        .interaction = dc_on_interaction,
        .state_get = dc_gw_state_get,
        .state_set = dc_gw_state_set,
        .state_defer = dc_gw_state_defer,
        .state_follow = dc_gw_state_follow,
        .intents_dropped = content_refused,
    };
    if (shards < 1)
        shards = 1;
    dc->gw = gw_new(dc->loop, dc->token, DC_USER_AGENT, intents(dc),
                    dc->content == DC_CONTENT_AUTO ? GW_INTENT_MESSAGE_CONTENT : 0, &ops, dc,
                    gw_url_tls(url), shards);
    if (!dc->gw) {
        log_error(DC_MOD, NULL, "cannot create the websocket context");
        return;
    }
    log_info(DC_MOD, NULL, "connecting %d shard(s) to %s (DMs arrive on shard 0)", shards, url);
    if (gw_start(dc->gw, url, maxc, delay, dc->compress) < 0)
        log_error(DC_MOD, NULL, "no memory to start the gateway; Discord stays offline");
}

static void gateway_bot_done(struct rest_req *r, long status, const char *body, void *ud)
{
    (void)r;
    struct dc_op *op = ud;
    struct dc *dc = op->dc;
    dc_op_free(op);
    if (status < 0 || dc->stopping)
        return;
    struct json_object *o = status == 200 ? json_tokener_parse(body) : NULL;
    const char *url = jget_str(o, "url");
    if (!url) {
        if (status == 401)
            log_error(DC_MOD, NULL,
                      "GET /gateway/bot: 401, the bot token is wrong; set "
                      "[discord] token");
        else
            log_error(DC_MOD, NULL, "GET /gateway/bot failed: HTTP %ld", status);
        json_object_put(o);
        return;
    }
    struct json_object *limit = jget_obj(o, "session_start_limit");
    int64_t recommended = jget_int64_or(o, "shards", 1);
    int shards = dc->shards > 0                            ? dc->shards
                 : recommended > 0 && recommended <= 65535 ? (int)recommended
                                                           : 1;
    int64_t maxc = jget_int64_or(limit, "max_concurrency", 1);
    uint64_t delay = 0;
    if (jget_int64_or(limit, "remaining", 1) <= 0) {
        int64_t reset = jget_int64_or(limit, "reset_after", 0);
        delay = reset > 0 && reset < 86400000 ? (uint64_t)reset : 0;
        log_warn(DC_MOD, NULL, "no session starts left today; waiting %" PRIu64 " ms", delay);
    }
    start_gateway(dc, url, shards, maxc > 0 && maxc <= 1024 ? (int)maxc : 1, delay);
    json_object_put(o);
}

static void on_sweep(uv_timer_t *t)
{
    dc_ix_sweep(t->data);
}

static int dc_start(struct platform *p)
{
    struct dc *dc = (struct dc *)p;
    if (dc->started)
        return 0;
    dc->started = true;
    if (!dc->rest)
        return -1;
    dc_nonce_prefix_load(dc);
    uv_timer_init(dc->loop, &dc->sweep);
    dc->sweep.data = dc;
    dc->sweep_open = true;
    uv_timer_start(&dc->sweep, on_sweep, 1000, 1000);
    if (dc->gateway_url && *dc->gateway_url) {
        start_gateway(dc, dc->gateway_url, dc->shards, 1, 0);
    } else {
        struct dc_op *op = dc_op_new(dc, DC_OP_GATEWAY);
        if (!op || rest_enqueue(dc->rest, "gateway", "GET", "/gateway/bot", NULL, 0, NULL,
                                gateway_bot_done, op) < 0) {
            dc_op_free(op);
            return -1;
        }
    }
    if (dc->app_id)
        dc_register_commands(dc);
    return 0;
}

/* Once a game's messages are all delivered, its message ids go. */
static void dc_game_changed(struct platform *p, const struct game_news *n)
{
    struct dc *dc = (struct dc *)p;
    if (n->stage == GAME_ENDED && !dc->stopping)
        dc_delivery_game_over(dc, n->game);
    dc_activity_news(dc, n);
}

/* One message from the bot, by concern: the interaction it answers, else its
 * delivery (delivery.c). Nothing of it is kept for later inputs: what they
 * need of the game, the bot tells (platform_host.complete). */
static int dc_send(struct platform *p, const struct outbound *m)
{
    struct dc *dc = (struct dc *)p;
    if (dc->stopping || !dc->rest || (!m->channel && !m->user))
        return -1;
    if (dc_activity_send(dc, m))
        return 0;
    /* The machine-readable result is for scripts; the table already got
     * OUT_RESULT. */
    if (m->kind == OUT_GAME_OVER) {
        dc_sent(dc, m->outbox_id);
        return 0;
    }
    if (dc_reply(dc, m))
        return 0;
    return dc_deliver_message(dc, m);
}

/*
 * Discord has no way to ask whether a user accepts DMs short of sending one,
 * and a probe message would be noise in every player's DMs. So a user counts
 * as reachable when they wrote to the bot, a DM to them went through, or their
 * DM channel can be opened; a 50007 in the last minute counts as unreachable.
 * If the first real DM (the dealt hand) is then refused, dc_dm_refused() reports
 * the user unreachable through dm_result() and logs it.
 */
static void dc_probe_dm(struct platform *p, const char *user)
{
    struct dc *dc = (struct dc *)p;
    if (!dc->rest || dc->stopping)
        return;
    struct dc_user *u = dc_user_get(dc, user);
    if (!u) {
        dc_report_probe(dc, user, false);
        return;
    }
    if (u->unreachable && clock_mono_ms() < u->unreachable_at + DM_REFUSED_HOLD_MS) {
        dc_report_probe(dc, user, false);
        return;
    }
    if (u->reachable || u->dm_channel) {
        dc_report_probe(dc, user, true);
        return;
    }
    u->probing = true;
    dc_create_dm(dc, user, u);
    if (!u->creating && u->probing) {
        u->probing = false;
        dc_report_probe(dc, user, false);
    }
}

static void sweep_closed(uv_handle_t *h)
{
    struct dc *dc = h->data;
    dc->sweep_open = false;
    if (dc->stopping && !dc->rest && !dc->gw && dc->base.ops == NULL)
        free(dc);
}

/* How long a stop lets queued messages go out before dropping them. */
#define DRAIN_MS      5000u
#define DRAIN_TICK_MS 20u

static void finish_stop(struct dc *dc)
{
    if (dc->rest) {
        size_t left = rest_pending(dc->rest);
        if (left)
            log_warn(DC_MOD, NULL, "stopping with %zu requests not sent", left);
        rest_close(dc->rest);
        dc->rest = NULL;
    }
    if (dc->sweep_open && !uv_is_closing((uv_handle_t *)&dc->sweep)) {
        uv_timer_stop(&dc->sweep);
        uv_close((uv_handle_t *)&dc->sweep, sweep_closed);
    }
}

static void on_drain(uv_timer_t *t)
{
    struct dc *dc = t->data;
    if (dc->rest && rest_pending(dc->rest) > 0 && clock_mono_ms() < dc->drain_until)
        return;
    finish_stop(dc);
}

/*
 * No input is delivered after this: the gateway closes at once (code 4000,
 * so a restart resumes). Messages already queued still go out, for up to
 * DRAIN_MS, as the loop keeps running; then the HTTP client closes.
 */
static void dc_stop(struct platform *p)
{
    struct dc *dc = (struct dc *)p;
    if (dc->stopping)
        return;
    dc->stopping = true;
    if (dc->gw) {
        gw_close(dc->gw);
        dc->gw = NULL;
    }
    if (dc->rest && rest_pending(dc->rest) > 0 && dc->sweep_open) {
        dc->drain_until = clock_mono_ms() + DRAIN_MS;
        uv_timer_start(&dc->sweep, on_drain, DRAIN_TICK_MS, DRAIN_TICK_MS);
        return;
    }
    finish_stop(dc);
}

static void free_str(void *p)
{
    free(p);
}

static void free_json(void *p)
{
    json_object_put(p);
}

static void dc_destroy(struct platform *p)
{
    struct dc *dc = (struct dc *)p;
    dc_stop(p);
    finish_stop(dc); /* still draining: the loop is not run any more */
    map_clear(&dc->msgs, dc_msg_free);
    map_clear(&dc->msg_ids, free_str);
    map_clear(&dc->users, dc_user_free);
    map_clear(&dc->ixns, dc_ix_free);
    map_clear(&dc->guilds, dc_guild_free);
    map_clear(&dc->dm_users, free_str);
    map_clear(&dc->builders, dc_builder_free);
    map_clear(&dc->controls, free_json);
    map_clear(&dc->closed, free_json);
    map_clear(&dc->open, NULL);
    map_clear(&dc->ending, NULL);
    dc_ops_kept_free(dc);
    free(dc->token);
    free(dc->app_id);
    free(dc->api_url);
    free(dc->gateway_url);
    free(dc->mod_role);
    free(dc->self_id);
    buf_free(&dc->body);
    free(dc->client_id);
    free(dc->client_secret);
    for (unsigned i = 0; i < dc->nguilds; i++)
        free(dc->guild_ids[i]);
    dc->base.ops = NULL;
    if (!dc->sweep_open)
        free(dc);
}

/* A channel mention: Discord shows it as the channel's name, a link. */
static void dc_channel_name(struct platform *p, const char *channel, char *out, size_t len)
{
    (void)p;
    snprintf(out, len, "<#%s>", channel);
}

/* "!illegal" while table lines reach the bot, else its mention (inbound.c
 * reads a line that starts with it as a command). */
static void dc_command_prefix(struct platform *p, char *out, size_t len)
{
    struct dc *dc = (struct dc *)p;
    const char *self = dc->self_id ? dc->self_id : dc->app_id;
    if (dc->reads_content || !self)
        snprintf(out, len, "%s", PLATFORM_COMMAND_PREFIX);
    else
        snprintf(out, len, "<@%s>", self);
}

/* The slash commands' registration is in flight: what it holds (its body,
 * libcurl's answer) is freed with its answer. */
static bool dc_starting(struct platform *p)
{
    return ((struct dc *)p)->commands_pending > 0;
}

/* Every shard has a live session (READY or RESUMED, not closed since): what
 * /readyz reports. False before the gateway is reached, while a shard
 * reconnects, and for good after a fatal close. */
static bool dc_connected(struct platform *p)
{
    struct dc *dc = (struct dc *)p;
    if (!dc->gw)
        return false;
    for (int i = 0; i < gw_shard_count(dc->gw); i++) {
        struct gw_shard_stats gs;
        gw_shard_stats(dc->gw, i, &gs);
        if (!gs.ready)
            return false;
    }
    return true;
}

static const struct platform_ops discord_ops = {
    .name = "discord",
    .confirms_sends = true,
    .caps = PLATFORM_CAP_DM | PLATFORM_CAP_REACTIONS | PLATFORM_CAP_BUTTONS | PLATFORM_CAP_EDITS |
            PLATFORM_CAP_EPHEMERAL | PLATFORM_CAP_EMBEDS,
    /* a computer's move sends about one message to the table: one a second keeps
     * within a channel's 5 in 5 s, whatever the people there do meanwhile */
    .computer_gap_ms = 1000,
    .start = dc_start,
    .send = dc_send,
    .probe_dm = dc_probe_dm,
    .game_changed = dc_game_changed,
    .channel_name = dc_channel_name,
    .command_prefix = dc_command_prefix,
    .connected = dc_connected,
    .starting = dc_starting,
    .stop = dc_stop,
    .destroy = dc_destroy,
};

void discord_get_stats(struct platform *p, struct discord_stats *st)
{
    struct dc *dc = (struct dc *)p;
    *st = dc->st;
    if (dc->rest) {
        struct rest_stats rs;
        rest_get_stats(dc->rest, &rs);
        st->rest_requests = rs.requests;
        st->rest_retries = rs.retries;
        st->rest_429 = rs.n429;
        st->rest_429_global = rs.n429_global;
        st->rest_invalid = rs.invalid;
        st->rest_pending = rest_pending(dc->rest);
    }
    if (dc->gw) {
        for (int i = 0; i < gw_shard_count(dc->gw); i++) {
            struct gw_shard_stats gs;
            gw_shard_stats(dc->gw, i, &gs);
            st->gw_connects += gs.connects;
            st->gw_identifies += gs.identifies;
            st->gw_resumes += gs.resumes;
            st->gw_zombies += gs.zombies;
            st->gw_skimmed += gs.skimmed;
            st->ready_shards += gs.ready;
            if (i == 0)
                st->gw_fatal_code = gs.fatal_code;
        }
    }
}

static bool is_snowflake(const char *s)
{
    if (!s || !*s)
        return false;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s))
            return false;
    return true;
}

static bool snowflake_or_empty(const char *s)
{
    return !s || !*s || is_snowflake(s);
}

/* Whether cfg and host can make a Discord platform; if not, why, into err. */
static bool config_ok(const struct config *cfg, const struct platform_host *host, char *err,
                      size_t errlen)
{
    if (!cfg->discord_token || !*cfg->discord_token) {
        snprintf(err, errlen, "[discord] token is empty");
        return false;
    }
    for (const char *c = cfg->discord_token; *c; c++) {
        if (isspace((unsigned char)*c) || !isprint((unsigned char)*c)) {
            snprintf(err, errlen, "[discord] token contains spaces or control characters");
            return false;
        }
    }
    if (cfg->discord_application_id && *cfg->discord_application_id &&
        !is_snowflake(cfg->discord_application_id)) {
        snprintf(err, errlen, "[discord] application_id must be a numeric id");
        return false;
    }
    for (unsigned i = 0; i < cfg->discord_nguilds; i++) {
        if (!is_snowflake(cfg->discord_guilds[i])) {
            snprintf(err, errlen, "[discord] guilds: '%s' is not a numeric guild id",
                     cfg->discord_guilds[i]);
            return false;
        }
    }
    if (!host || !host->loop || !host->deliver) {
        snprintf(err, errlen, "the host gives no loop or deliver()");
        return false;
    }
    return true;
}

/* Copies the [discord] settings dc keeps from cfg. */
static void take_settings(struct dc *dc, const struct config *cfg)
{
    dc->token = dc_xstrdup(cfg->discord_token);
    dc->api_url = dc_xstrdup(cfg->discord_api_url && *cfg->discord_api_url ? cfg->discord_api_url
                                                                           : DEFAULT_API_URL);
    if (cfg->discord_application_id && *cfg->discord_application_id)
        dc->app_id = dc_xstrdup(cfg->discord_application_id);
    if (cfg->discord_gateway_url && *cfg->discord_gateway_url)
        dc->gateway_url = dc_xstrdup(cfg->discord_gateway_url);
    if (cfg->discord_moderator_role && *cfg->discord_moderator_role)
        dc->mod_role = dc_xstrdup(cfg->discord_moderator_role);
    for (unsigned i = 0; i < cfg->discord_nguilds && i < CONFIG_MAX_GUILDS; i++)
        dc->guild_ids[dc->nguilds++] = dc_xstrdup(cfg->discord_guilds[i]);
    dc->shards = cfg->discord_shards;
    dc->global_rate = cfg->discord_global_rate_limit > 0 ? (unsigned)cfg->discord_global_rate_limit
                                                         : DEFAULT_GLOBAL_RATE;
    dc->compress = cfg->discord_compression;
    dc->register_forced = cfg->discord_register_commands;
    dc->language = cfg->language;
    const char *content = cfg->discord_message_content ? cfg->discord_message_content : "auto";
    dc->content = strcmp(content, "on") == 0    ? DC_CONTENT_ON
                  : strcmp(content, "off") == 0 ? DC_CONTENT_OFF
                                                : DC_CONTENT_AUTO;
    dc->reads_content = dc->content != DC_CONTENT_OFF;
}

static void maps_init(struct dc *dc)
{
    map_init(&dc->msgs);
    map_init(&dc->msg_ids);
    map_init(&dc->users);
    map_init(&dc->ixns);
    map_init(&dc->guilds);
    map_init(&dc->dm_users);
    map_init(&dc->builders);
    map_init(&dc->controls);
    map_init(&dc->closed);
    map_init(&dc->open);
    map_init(&dc->ending);
}

/* The Activity's OAuth2 client, when cfg turns it on; false when it lacks an id or secret. */
static bool take_activity(struct dc *dc, const struct config *cfg)
{
    if (!cfg->discord_activity)
        return true;
    const char *id = cfg->discord_client_id ? cfg->discord_client_id : dc->app_id;
    dc->activity_on = true;
    dc->client_id = dc_xstrdup(id ? id : "");
    dc->client_secret = dc_xstrdup(cfg->discord_client_secret ? cfg->discord_client_secret : "");
    return dc->app_id && snowflake_or_empty(dc->client_id) && *dc->client_id && dc->client_secret &&
           *dc->client_secret;
}

struct platform *discord_platform_new(const struct config *cfg, const struct platform_host *host,
                                      char *err, size_t errlen)
{
    if (!config_ok(cfg, host, err, errlen))
        return NULL;
    struct dc *dc = calloc(1, sizeof(*dc));
    if (!dc) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    dc->base.ops = &discord_ops;
    dc->base.host = host;
    dc->loop = host->loop;
    take_settings(dc, cfg);
    maps_init(dc);
    if (!take_activity(dc, cfg)) {
        dc_destroy(&dc->base);
        snprintf(err, errlen, "the Activity needs application_id, client_id and client_secret");
        return NULL;
    }
    /* The HTTP client exists from here on; it sends nothing until the loop runs. */
    if (dc->token && dc->api_url)
        dc->rest = rest_new(dc->loop, dc->api_url, dc->token, DC_USER_AGENT, dc->global_rate);
    if (!dc->rest) {
        dc_destroy(&dc->base);
        snprintf(err, errlen, "cannot start the HTTP client");
        return NULL;
    }
    return &dc->base;
}
