/*
 * fuzz_web_activity.c - websocket messages from pages inside Discord (the
 * Activity, adapters/web/activity.c), through the adapter's own message
 * handler, with the Discord side stood in for.
 *
 * Input: frames separated by newlines, as for fuzz_web_message, fed to two
 * sockets in turn. The stand-in Discord answers an authorization at once: a
 * code that starts with "ok" belongs to the user whose id follows
 * ("ok610000000000000011"), in channel 530000000000000001, anything else is
 * refused by the code's first byte. Every tenth frame, the bot's messages for
 * that channel and user (a lobby, a hand) are mirrored to the pages, so that
 * reactions and replays meet keys; and each frame's answer is given as a page's.
 */
#include <stdint.h>
#include <stdlib.h>

#include "adapters/common/activity.h"
#include "adapters/web/internal.h"
#include "fuzz_web.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    log_set_level(LOG_ERROR);
    return 0;
}

#define CHANNEL "530000000000000001"

static struct activity_link link_;

static int fuzz_deliver(void *ctx, struct platform *p, const struct inbound *in)
{
    (void)ctx;
    (void)p;
    (void)in;
    return 0;
}

/* The stand-in Discord: answers at once. */
static int fuzz_authorize(struct platform *discord, const char *code, const char *instance,
                          activity_done_fn done, void *arg, uint64_t id)
{
    (void)discord;
    (void)instance;
    if (strncmp(code, "ok", 2) == 0 && strlen(code) > 2 && strlen(code) <= 22) {
        struct activity_user u = {code + 2, "fuzzed", CHANNEL, "700000000000000001", "token"};
        done(arg, id, ACTIVITY_OK, &u);
    } else {
        done(arg, id, (enum activity_refusal)(1 + (unsigned char)code[0] % 4), NULL);
    }
    return 0;
}

/* A page's input reaches "Discord": its answer comes back to the page. */
static int fuzz_act_deliver(struct platform *discord, const struct inbound *in)
{
    (void)discord;
    struct outbound m = {.kind = OUT_NOTICE, .user = in->user, .text = "answered", .cause = in};
    if (in->user && link_.answer)
        link_.answer(link_.web, in->user, &m);
    return 0;
}

static void mirror_some(void)
{
    struct json_object *lobby = json_tokener_parse("{\"game\":\"g1\",\"table\":\"" CHANNEL
                                                   "\",\"players\":[],\"actions\":[\"join\"]}");
    struct outbound m = {.kind = OUT_LOBBY,
                         .channel = CHANNEL,
                         .key = "g1/lobby",
                         .replace = true,
                         .text = "lobby",
                         .data = lobby};
    link_.mirror(link_.web, &m);
    struct outbound h = {.kind = OUT_PRIVATE_VIEW,
                         .user = "610000000000000011",
                         .key = "g1/hand/610000000000000011",
                         .replace = true,
                         .text = "hand"};
    link_.mirror(link_.web, &h);
    struct game_news n = {GAME_OPENED, "g1", CHANNEL, "lobby", 0};
    link_.news(link_.web, &n);
    json_object_put(lobby);
}

/* Every tenth frame, from the first: the bot's messages, mirrored. */
static void mirror_each(unsigned n)
{
    if (n % 10 == 1 && link_.mirror)
        mirror_some();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static uv_loop_t loop; /* never run */
    static const struct platform_host host = {
        .loop = &loop,
        .deliver = fuzz_deliver,
        .state_get = fuzz_state_get,
        .state_set = fuzz_state_set,
        .state_del = fuzz_state_del,
    };
    struct config cfg;
    char err[128];
    if (config_init(&cfg) != 0)
        return 0;
    cfg.web_enabled = false; /* the Activity alone */
    cfg.web_queue_bytes = 65536;
    fuzz_state = json_object_new_object();
    struct platform *p = web_platform_new(&cfg, &host, err, sizeof err);
    config_free(&cfg);
    if (!p) {
        json_object_put(fuzz_state);
        return 0;
    }
    struct web *w = (struct web *)p;
    memset(&link_, 0, sizeof link_);
    link_.client_id = "900000000000000002";
    link_.discord = p; /* never called as a platform */
    link_.authorize = fuzz_authorize;
    link_.deliver = fuzz_act_deliver;
    /* (the build without the SDK refuses the link; the handler is fuzzed all the same) */
    if (web_activity_link(p, &link_) < 0) {
        w->act = &link_;
        link_.web = p;
    }
    fuzz_web_frames(w, data, size, mirror_each);
    p->ops->destroy(p);
    json_object_put(fuzz_state);
    return 0;
}
