/*
 * harness.h - a test host for the Discord adapter: a libuv loop, a
 * platform_host that records every input, and a state store in memory.
 */
#ifndef DISCORD_HARNESS_H
#define DISCORD_HARNESS_H

#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

#include "bot/config.h"
#include "bot/platform.h"
#include "fakediscord.h"

struct json_object;

struct harness {
    uv_loop_t loop;
    struct platform_host host;
    struct platform *p;
    struct fd_server *srv;
    struct config cfg;
    struct json_object *inputs; /* every inbound, as JSON */
    struct json_object *probes; /* user -> reachable */
    struct json_object *state;  /* key -> value */
    struct json_object *sent;   /* every outbox id reported through host->sent(), in order */
    /* answer each input with this (reply_to set) during deliver(), when set */
    const char *auto_reply;
    /* send this to the actor's DMs (no reply_to) during deliver(), when set */
    const char *auto_dm;
    /* answer each text message with this, where it was written (as the bot
     * answers a text command: no data, no key), when set */
    const char *auto_answer;
    /* what the bot completes (platform_host.complete): [[name, value], ...],
     * offered whatever is typed; and the last call, as
     * {"channel", "user", "word", "option", "typed"} (put by the harness) */
    struct json_object *completions;
    struct json_object *completed;
};

/* Starts the fake server and the adapter. gateway_direct: set gateway_url
 * instead of asking GET /gateway/bot. */
void h_init(struct harness *h, unsigned hb_ms, bool gateway_direct);
/* h_init() with the privileged intents the app may use (fd_set_privileged;
 * h_init: MESSAGE_CONTENT) and [discord] message_content (NULL: auto). */
void h_init_intents(struct harness *h, unsigned hb_ms, bool gateway_direct, int64_t privileged,
                    const char *message_content);
/* (Re)creates and starts the adapter on the same server and state. */
void h_start_adapter(struct harness *h);
void h_stop_adapter(struct harness *h);
void h_fini(struct harness *h);

/* Runs the loop until pred(h) or timeout_ms; returns pred's last answer. */
bool h_run_until(struct harness *h, bool (*pred)(struct harness *), unsigned timeout_ms);
void h_run_for(struct harness *h, unsigned ms);
int h_count_inputs(struct harness *h);
bool h_ready(struct harness *h);
/* h_ready(), and the bot's slash commands registered (as a user could pick them). */
bool h_registered(struct harness *h);
struct json_object *h_snapshot(struct harness *h); /* caller puts */
int h_gw(struct harness *h, const char *field);
/* A MESSAGE_CREATE; guild NULL for a DM. Returns the sequence number. */
long long h_message(struct harness *h, const char *id, const char *channel, const char *guild,
                    const char *user, const char *text);

#endif
