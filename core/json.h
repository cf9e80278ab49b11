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

#endif
