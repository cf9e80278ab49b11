/*
 * test_ai_store.c - a computer's memory in the game's record: read back
 * byte for byte, and anything damaged refused with the memory untouched.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include <json-c/json.h>

#include "computers.h"

#define MEM (CPU_MEMORY_MAX / 8)

/* A memory some way into a game: what a seat of a real game holds. */
struct sample {
    const struct rules_strategy *level;
    uint64_t memory[MEM];
    uint64_t steps;
};

static void keep_sample(const struct cpu_sim *s, const struct il_events *ev, void *arg)
{
    struct sample *x = arg;
    (void)ev;
    if (s->steps == x->steps)
        memcpy(x->memory, s->memory[0], s->level[0]->memory_size);
}

static void sample_of(const char *id, struct sample *x)
{
    struct cpu_opts o = {.players = 5, .variant = IL_VARIANT_STANDARD, .pace = 100};
    struct cpu_stats st = {0};
    for (unsigned p = 0; p < o.players; p++)
        o.levels[p] = cpu_level(id);
    o.on_change = keep_sample;
    o.arg = x;
    x->level = cpu_level(id);
    x->steps = 300;
    assert_int_equal(cpu_play(&o, 77, &st), 0);
}

static struct json_object *saved(const struct sample *x)
{
    struct json_object *j = json_object_new_object();
    assert_int_equal(x->level->save(x->memory, j), 0);
    struct json_object *back = json_tokener_parse(json_object_to_json_string(j));
    json_object_put(j);
    assert_non_null(back);
    return back;
}

static void round_trip(void **state)
{
    (void)state;
    static const char *const ids[] = {"easy", "normal"};
    for (unsigned i = 0; i < 2; i++) {
        struct sample x;
        uint64_t back[MEM];
        char why[128];
        sample_of(ids[i], &x);
        struct json_object *j = saved(&x);
        memset(back, 0x5a, sizeof back);
        assert_int_equal(x.level->load(back, j, why, sizeof why), 0);
        assert_memory_equal(back, x.memory, x.level->memory_size);
        json_object_put(j);
    }
}

/* Loads j as `level` and expects a refusal that leaves the memory as it was. */
static void expect_refused(const struct rules_strategy *level, struct json_object *j,
                           const char *what)
{
    uint64_t memory[MEM], before[MEM];
    char why[128] = "";
    memset(memory, 0x33, sizeof memory);
    memcpy(before, memory, sizeof before);
    if (level->load(memory, j, why, sizeof why) == 0)
        fail_msg("a damaged memory was read: %s", what);
    assert_true(why[0] != '\0');
    assert_memory_equal(memory, before, sizeof memory);
}

/* One damage: member `key` set to value (NULL: removed). */
static void damaged(const struct sample *x, const char *key, struct json_object *value,
                    const char *what)
{
    struct json_object *j = saved(x);
    if (value)
        json_object_object_add(j, key, value);
    else
        json_object_object_del(j, key);
    expect_refused(x->level, j, what);
    json_object_put(j);
}

static struct json_object *array_of(unsigned n, int64_t value)
{
    struct json_object *a = json_object_new_array();
    for (unsigned i = 0; i < n; i++)
        json_object_array_add(a, json_object_new_int64(value));
    return a;
}

static struct json_object *rng_of(const char *word)
{
    struct json_object *a = json_object_new_array();
    for (unsigned i = 0; i < 4; i++)
        json_object_array_add(a, json_object_new_string(word));
    return a;
}

static void damage_refused(void **state)
{
    (void)state;
    static const char *const fields[] = {"format",  "rng",      "level",    "pace",     "wake",
                                         "session", "made",     "offer_at", "drop",     "grab_at",
                                         "vote_at", "reply_id", "reply_at", "accepted", "grabs",
                                         "asked",   "gave",     "kept",     "decoy"};
    struct sample x;
    sample_of("normal", &x);
    for (unsigned i = 0; i < sizeof fields / sizeof *fields; i++) {
        damaged(&x, fields[i], NULL, fields[i]);
        damaged(&x, fields[i], json_object_new_string("7"), fields[i]);
    }
    damaged(&x, "format", json_object_new_int(2), "a later format");
    damaged(&x, "level", json_object_new_int(9), "no such level");
    damaged(&x, "pace", json_object_new_int(-1), "a pace below 0");
    damaged(&x, "session", json_object_new_int(IL_SESSIONS + 1), "session 6");
    damaged(&x, "drop", json_object_new_int(IL_DROPS + 1), "drop 5");
    damaged(&x, "decoy", json_object_new_int(IL_RESOURCES + 1), "a resource past the last");
    damaged(&x, "wake", json_object_new_double(1.5), "a time that is no integer");
    damaged(&x, "wake", json_object_new_int64(INT64_MAX), "a time past the range");
    damaged(&x, "grabs", array_of(IL_MAX_PLAYERS * IL_RESOURCES - 1, 0), "a short record");
    damaged(&x, "grabs", array_of(IL_MAX_PLAYERS * IL_RESOURCES, 256), "a count past 255");
    damaged(&x, "vote_at", array_of(IL_MAX_CASES + 1, 0), "a long array");
    damaged(&x, "reply_id", array_of(IL_MAX_OFFERS, -1), "a negative offer id");
    damaged(&x, "rng", rng_of("0000000000000000"), "the rng's state it never leaves");
    damaged(&x, "rng", rng_of("00000000000000zz"), "a word that is not hex");
    damaged(&x, "rng", rng_of("123"), "a short word");
    damaged(&x, "rng", rng_of("+000000000000001"), "a sign");
    struct json_object *normal = saved(&x);
    expect_refused(cpu_level("easy"), normal, "another level's memory");
    json_object_put(normal);
    struct json_object *not_object = json_object_new_array();
    expect_refused(x.level, not_object, "an array");
    expect_refused(x.level, NULL, "nothing");
    json_object_put(not_object);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(round_trip),
        cmocka_unit_test(damage_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
