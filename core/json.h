/*
 * json.h - typed reads of json-c objects that come from outside.
 *
 * Every getter takes any pointer (NULL, an object, an array, a scalar) and
 * treats a NULL container, a container of another type, a missing member and
 * a member of another type alike: as absent. So no json-c call that asserts
 * on a type (json_object_array_get_idx on a non-array, ...) is reached with
 * the wrong one, and hostile or merely unusual input cannot crash the daemon.
 * A JSON null member is absent too (json-c stores it as NULL).
 *
 * Results are borrowed from the container: they live as long as it does, and
 * the caller takes a reference (json_object_get) to keep one longer.
 *
 * They sit in core/ because every layer reads JSON from outside: platforms'
 * wire formats, the console, and the rules' own stored records.
 */
#ifndef CORE_JSON_H
#define CORE_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "attributes.h"

/* Member key of o, of any type; NULL when o is not an object or has no such member. */
struct json_object *jget(const struct json_object *o, const char *key);

/* Member key of o if it has type t, else NULL. The others are this with one type. */
struct json_object *jget_type(const struct json_object *o, const char *key, json_type t);

/* Member key of o if it is a string, else NULL. */
const char *jget_str(const struct json_object *o, const char *key);

/* Copies member key of o into dst (len bytes) when it is a string that
 * fits with its NUL. Returns false otherwise, dst then unchanged. */
bool jget_str_into(const struct json_object *o, const char *key, char *dst, size_t len);

/* Member key of o if it is an object, else NULL. */
struct json_object *jget_obj(const struct json_object *o, const char *key);

/* Member key of o if it is an array, else NULL. */
struct json_object *jget_arr(const struct json_object *o, const char *key);

/* Stores member key of o in *out if it is an integer. Returns 0, or -1 when it
 * is absent or not an integer (*out is then untouched). */
int jget_int64(const struct json_object *o, const char *key, int64_t *out) MUST_USE;

/* Member key of o if it is an integer, else def: for members whose absence has
 * a meaning of its own (a default). */
int64_t jget_int64_or(const struct json_object *o, const char *key, int64_t def);

/* Stores member key of o in *out if it is an integer or a double. Returns 0 or
 * -1 as jget_int64. */
int jget_double(const struct json_object *o, const char *key, double *out) MUST_USE;

/* Stores member key of o in *out if it is a boolean. Returns 0 or -1 as jget_int64. */
int jget_bool(const struct json_object *o, const char *key, bool *out) MUST_USE;

/* Whether member key of o is the boolean true (false when absent or of another type). */
bool jget_true(const struct json_object *o, const char *key);

/* o itself when it is an object, else NULL. */
struct json_object *jobj(struct json_object *o);

/* The length of arr when it is an array, else 0. */
size_t jarr_len(const struct json_object *arr);

/* Element i of arr, or NULL when arr is not an array or i is past its end. */
struct json_object *jarr_at(const struct json_object *arr, size_t i);

/* Element i of arr if it is a string, else NULL. */
const char *jarr_str(const struct json_object *arr, size_t i);

/* Stores member key of o in *out if it is an integer within [min, max].
 * Returns whether it was. */
bool jget_range(const struct json_object *o, const char *key, int64_t min, int64_t max,
                int64_t *out) MUST_USE;

/* The same for a byte: an integer within [0, max] (max at most 255). */
bool jget_u8(const struct json_object *o, const char *key, unsigned max, uint8_t *out) MUST_USE;

/* Reads member key of o, an object of counts by id ({"guns": 2}), into
 * n[0..count): every key an id that parse maps into [0, count) once, every
 * count from 1 to max (at most 255). n is zeroed first. Returns whether it
 * was such an object. */
bool jget_counts(const struct json_object *o, const char *key, int (*parse)(const char *),
                 unsigned count, unsigned max, uint8_t *n) MUST_USE;

/*
 * Writing, for a whole record at once: each helper notes a failed allocation
 * in *oom and carries on, so that the caller checks once at the end and
 * frees the record it was building. A value handed over is owned by the
 * container, or freed when it cannot be added.
 */

/* A new object or array; NULL (and *oom) when out of memory. */
struct json_object *jnew_obj(bool *oom);
struct json_object *jnew_arr(bool *oom);

/* Adds val (NULL: out of memory) to obj as key, or to the end of arr. */
void jput(struct json_object *obj, const char *key, struct json_object *val, bool *oom);
void jpush(struct json_object *arr, struct json_object *val, bool *oom);

/* An object of the counts n[0..count) that are not zero, by id(i). */
struct json_object *jcounts(const uint8_t *n, unsigned count, const char *(*id)(unsigned),
                            bool *oom);

#endif
