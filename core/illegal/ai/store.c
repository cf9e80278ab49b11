/*
 * store.c - a computer seat's memory as JSON, for the game's record.
 *
 * One table lists every field of struct il_mind with its JSON name, type,
 * length and range; saving and loading walk it. A field added to the mind
 * is one line here. Loading checks every value against its range and fills
 * a zeroed mind, so a round trip gives the same bytes.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../json.h"
#include "ai.h"

#define FORMAT 1
/* Times stay far within the int64 range (the rules keep `now` within 2^60). */
#define TIME_LIMIT (INT64_C(1) << 62)

enum field_type { F_U8, F_U16, F_U32, F_I64 };

struct field {
    const char *name;
    size_t offset;
    enum field_type type;
    unsigned count; /* 1: a number; more: an array of that length */
    int64_t min, max;
};

/* Bytes of one value of a field type; a constant, for the table below. */
#define TYPE_SIZE(t) ((t) == F_U8 ? 1 : (t) == F_U16 ? 2 : (t) == F_U32 ? 4 : 8)

#define FIELD(name, member, type, min, max)                                                        \
    {                                                                                              \
        name, offsetof(struct il_mind, member), type,                                              \
            sizeof(((struct il_mind *)0)->member) / TYPE_SIZE(type), min, max                      \
    }

static const struct field fields[] = {
    FIELD("level", level, F_U8, 0, AI_LEVELS - 1),
    FIELD("pace", pace, F_U16, 0, 10 * RULES_PACE_HUMAN),
    FIELD("wake", wake, F_I64, -TIME_LIMIT, TIME_LIMIT),
    FIELD("session", session, F_U8, 0, IL_SESSIONS),
    FIELD("made", made, F_U8, 0, UINT8_MAX),
    FIELD("offer_at", offer_at, F_I64, -TIME_LIMIT, TIME_LIMIT),
    FIELD("drop", drop, F_U8, 0, IL_DROPS),
    FIELD("grab_at", grab_at, F_I64, -TIME_LIMIT, TIME_LIMIT),
    FIELD("vote_at", vote_at, F_I64, -TIME_LIMIT, TIME_LIMIT),
    FIELD("reply_id", reply_id, F_U32, 0, UINT32_MAX),
    FIELD("reply_at", reply_at, F_I64, -TIME_LIMIT, TIME_LIMIT),
    FIELD("accepted", accepted, F_U32, 0, UINT32_MAX),
    FIELD("grabs", grabs, F_U8, 0, UINT8_MAX),
    FIELD("asked", asked, F_U8, 0, UINT8_MAX),
    FIELD("gave", gave, F_U8, 0, UINT8_MAX),
    FIELD("kept", kept, F_U8, 0, UINT8_MAX),
    FIELD("decoy", decoy, F_U8, 0, AI_RES),
};

static int64_t get(const void *at, enum field_type t)
{
    switch (t) {
    case F_U8:
        return *(const uint8_t *)at;
    case F_U16:
        return *(const uint16_t *)at;
    case F_U32:
        return *(const uint32_t *)at;
    default:
        return *(const int64_t *)at;
    }
}

static void put(void *at, enum field_type t, int64_t x)
{
    switch (t) {
    case F_U8:
        *(uint8_t *)at = (uint8_t)x;
        break;
    case F_U16:
        *(uint16_t *)at = (uint16_t)x;
        break;
    case F_U32:
        *(uint32_t *)at = (uint32_t)x;
        break;
    default:
        *(int64_t *)at = x;
        break;
    }
}

static struct json_object *field_json(const struct il_mind *m, const struct field *f)
{
    const char *base = (const char *)m + f->offset;
    if (f->count == 1)
        return json_object_new_int64(get(base, f->type));
    struct json_object *a = json_object_new_array_ext((int)f->count);
    for (unsigned i = 0; a && i < f->count; i++)
        if (json_object_array_add(
                a, json_object_new_int64(get(base + i * TYPE_SIZE(f->type), f->type))) != 0) {
            json_object_put(a);
            return NULL;
        }
    return a;
}

/* The rng's four words, as hex strings (json-c's integers are signed). */
static struct json_object *rng_json(const struct rng *r)
{
    struct json_object *a = json_object_new_array_ext(4);
    char hex[17];
    for (unsigned i = 0; a && i < 4; i++) {
        snprintf(hex, sizeof hex, "%016" PRIx64, r->s[i]);
        if (json_object_array_add(a, json_object_new_string(hex)) != 0) {
            json_object_put(a);
            return NULL;
        }
    }
    return a;
}

int ai_save(const void *memory, struct json_object *out)
{
    const struct il_mind *m = memory;
    struct json_object *rng = rng_json(&m->rng);
    if (!rng || json_object_object_add(out, "rng", rng) != 0 ||
        json_object_object_add(out, "format", json_object_new_int(FORMAT)) != 0)
        return -1;
    for (size_t i = 0; i < sizeof fields / sizeof *fields; i++) {
        struct json_object *v = field_json(m, &fields[i]);
        if (!v || json_object_object_add(out, fields[i].name, v) != 0)
            return -1;
    }
    return 0;
}

static bool in_range(struct json_object *v, const struct field *f, int64_t *x)
{
    if (!json_object_is_type(v, json_type_int))
        return false;
    *x = json_object_get_int64(v);
    /* json-c clamps what does not fit an int64: refuse the clamped ends */
    return *x >= f->min && *x <= f->max && *x != INT64_MIN && *x != INT64_MAX;
}

static bool load_field(struct il_mind *m, const struct json_object *in, const struct field *f)
{
    char *base = (char *)m + f->offset;
    struct json_object *v = jget(in, f->name);
    int64_t x;
    if (f->count == 1) {
        if (!in_range(v, f, &x))
            return false;
        put(base, f->type, x);
        return true;
    }
    if (!json_object_is_type(v, json_type_array) || jarr_len(v) != f->count)
        return false;
    for (unsigned i = 0; i < f->count; i++) {
        if (!in_range(jarr_at(v, i), f, &x))
            return false;
        put(base + i * TYPE_SIZE(f->type), f->type, x);
    }
    return true;
}

static bool load_rng(struct rng *r, const struct json_object *in)
{
    struct json_object *a = jget_arr(in, "rng");
    if (jarr_len(a) != 4)
        return false;
    for (unsigned i = 0; i < 4; i++) {
        const char *hex = jarr_str(a, i);
        if (!hex || strlen(hex) != 16 || strspn(hex, "0123456789abcdef") != 16)
            return false;
        r->s[i] = (uint64_t)strtoull(hex, NULL, 16);
    }
    /* xoshiro's one state it never leaves */
    return r->s[0] | r->s[1] | r->s[2] | r->s[3];
}

int ai_load(void *memory, const struct json_object *in, char *why, size_t whylen)
{
    struct il_mind m;
    int64_t format;
    memset(&m, 0, sizeof m);
    if (jget_int64(in, "format", &format) < 0 || format != FORMAT) {
        snprintf(why, whylen, "format is not %d", FORMAT);
        return -1;
    }
    if (!load_rng(&m.rng, in)) {
        snprintf(why, whylen, "rng invalid");
        return -1;
    }
    for (size_t i = 0; i < sizeof fields / sizeof *fields; i++)
        if (!load_field(&m, in, &fields[i])) {
            snprintf(why, whylen, "%s invalid", fields[i].name);
            return -1;
        }
    memcpy(memory, &m, sizeof m);
    return 0;
}
