/*
 * mind.c - how a computer seat of Palm & Drewes' Illegal is driven
 * (core/strategy.h): what the view asks of it, when it answers (a person's
 * delay at its pace, always inside the running step), and its memory's
 * stored form.
 */
#include <inttypes.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../json.h"
#include "ai.h"

/* A person's delay before each task, in ms: the least and the most. */
static const int64_t delays[][2] = {
    [PD_AI_IDLE] = {0, 0},       [PD_AI_TURN] = {3000, 8000},   [PD_AI_LOSS] = {2000, 5000},
    [PD_AI_PASS] = {2000, 6000}, [PD_AI_WINDOW] = {1000, 4000}, [PD_AI_REPLY] = {2000, 6000},
};

static bool offer_to(const struct pd_view *v)
{
    for (unsigned i = 0; i < v->noffers; i++)
        if (v->offers[i].to == v->seat)
            return true;
    return false;
}

enum pd_ai_task pd_ai_task(const struct pd_view *v)
{
    unsigned bit = 1u << v->seat;
    if (v->paused || v->phase == PD_PHASE_OVER || !(v->active & bit))
        return PD_AI_IDLE;
    switch (v->phase) {
    case PD_PHASE_TURN:
        if (v->current == v->seat)
            return PD_AI_TURN;
        return offer_to(v) ? PD_AI_REPLY : PD_AI_IDLE;
    case PD_PHASE_LOSS:
        return v->current == v->seat ? PD_AI_LOSS : PD_AI_IDLE;
    case PD_PHASE_PASS:
        return !(v->chosen & bit) && pd_bundle_total(&v->hand) ? PD_AI_PASS : PD_AI_IDLE;
    case PD_PHASE_WINDOW:
        return v->current != v->seat && !(v->waived & bit) ? PD_AI_WINDOW : PD_AI_IDLE;
    default:
        return PD_AI_IDLE;
    }
}

/* When to answer task t, seen at now: a person's delay at its pace, and at
 * most three quarters of the time the step has left. */
static void plan(struct pd_mind *m, const struct pd_view *v, enum pd_ai_task t, int64_t now)
{
    m->task = (uint8_t)t;
    if (t == PD_AI_IDLE) {
        m->wake = 0;
        return;
    }
    int64_t lo = delays[t][0], span = delays[t][1] - lo;
    int64_t d = (lo + (int64_t)rng_below(&m->rng, (uint32_t)span + 1)) * m->pace / 100;
    if (v->deadline > now && d > (v->deadline - now) * 3 / 4)
        d = (v->deadline - now) * 3 / 4;
    m->wake = now + d;
}

static void start(void *memory, uint64_t seed, unsigned pace)
{
    struct pd_mind *m = memory;
    memset(m, 0, sizeof *m);
    rng_seed(&m->rng, seed);
    m->pace = (uint16_t)(pace > 1000 ? 1000 : pace);
    m->task = PD_AI_IDLE;
}

static void observe(void *memory, const void *view, int64_t now)
{
    struct pd_mind *m = memory;
    enum pd_ai_task t = pd_ai_task(view);
    if (t != m->task || m->wake == 0)
        plan(m, view, t, now);
}

static bool act(void *memory, const void *view, int64_t now, void *action)
{
    struct pd_mind *m = memory;
    enum pd_ai_task t = pd_ai_task(view);
    if (t != m->task || (t != PD_AI_IDLE && m->wake == 0)) {
        plan(m, view, t, now);
        if (t == PD_AI_IDLE || m->wake > now)
            return false;
    }
    if (t == PD_AI_IDLE || now < m->wake)
        return false;
    m->wake = 0;
    if (pd_ai_easy_move(view, t, &m->rng, action))
        return true;
    m->task = PD_AI_IDLE; /* nothing to answer: the step's deadline moves for it */
    return false;
}

static int64_t wake(const void *memory)
{
    return ((const struct pd_mind *)memory)->wake;
}

static int save(const void *memory, struct json_object *out)
{
    const struct pd_mind *m = memory;
    struct json_object *rng = json_object_new_array();
    char word[24];
    if (!rng)
        return -1;
    for (unsigned i = 0; i < 4; i++) {
        snprintf(word, sizeof word, "%016" PRIx64, m->rng.s[i]);
        json_object_array_add(rng, json_object_new_string(word));
    }
    if (json_object_object_add(out, "rng", rng) != 0) {
        json_object_put(rng);
        return -1;
    }
    json_object_object_add(out, "pace", json_object_new_int(m->pace));
    json_object_object_add(out, "wake", json_object_new_int64(m->wake));
    json_object_object_add(out, "task", json_object_new_int(m->task));
    return 0;
}

static bool load_rng(struct rng *r, const struct json_object *in)
{
    struct json_object *a = jget_arr(in, "rng");
    if (!a || jarr_len(a) != 4)
        return false;
    for (unsigned i = 0; i < 4; i++) {
        const char *w = jarr_str(a, i);
        char *end;
        if (!w || strlen(w) != 16)
            return false;
        r->s[i] = strtoull(w, &end, 16);
        if (*end)
            return false;
    }
    return true;
}

static int load(void *memory, const struct json_object *in, char *why, size_t whylen)
{
    struct pd_mind m;
    int64_t pace, wake_at, task;
    memset(&m, 0, sizeof m);
    if (!load_rng(&m.rng, in) || jget_int64(in, "pace", &pace) < 0 || pace < 0 || pace > 1000 ||
        jget_int64(in, "wake", &wake_at) < 0 || jget_int64(in, "task", &task) < 0 ||
        task < PD_AI_IDLE || task > PD_AI_REPLY) {
        snprintf(why, whylen, "computer player's memory invalid");
        return -1;
    }
    m.pace = (uint16_t)pace;
    m.wake = wake_at;
    m.task = (uint8_t)task;
    memcpy(memory, &m, sizeof m);
    return 0;
}

/* The default first: what a host adds when the level is not named. */
const struct rules_strategy pd_strategies[] = {
    {.id = "easy",
     .memory_size = sizeof(struct pd_mind),
     .start = start,
     .observe = observe,
     .act = act,
     .wake = wake,
     .save = save,
     .load = load},
    {0},
};
