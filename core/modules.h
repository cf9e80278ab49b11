/*
 * modules.h - the rules modules this build knows.
 */
#ifndef CORE_MODULES_H
#define CORE_MODULES_H

#include "rules.h"

/* The most modules a build may have. */
#define RULES_MODULES_MAX 8

/* The module with that id ("illegal"), or NULL. */
const struct rules_module *rules_by_id(const char *id);

/* How many modules there are, and the i-th (for lists: metrics, help). */
size_t rules_count(void);
const struct rules_module *rules_at(size_t i);

/* m's index among them (rules_at(rules_index(m)) == m). */
size_t rules_index(const struct rules_module *m);

/* The module a game uses unless told otherwise. */
const struct rules_module *rules_default(void);

#endif
