/*
 * modules.c - the rules modules this build knows.
 */
#include <string.h>

#include "illegal/module.h"
#include "modules.h"
#include "palm-drewes/module.h"

static const struct rules_module *const modules[] = {&il_module, &pd_module};

_Static_assert(sizeof modules / sizeof *modules <= RULES_MODULES_MAX, "raise RULES_MODULES_MAX");

const struct rules_module *rules_by_id(const char *id)
{
    for (size_t i = 0; i < sizeof modules / sizeof *modules; i++)
        if (strcmp(modules[i]->id, id) == 0)
            return modules[i];
    return NULL;
}

size_t rules_count(void)
{
    return sizeof modules / sizeof *modules;
}

const struct rules_module *rules_at(size_t i)
{
    return i < rules_count() ? modules[i] : NULL;
}

size_t rules_index(const struct rules_module *m)
{
    size_t i = 0;
    while (i < rules_count() && modules[i] != m)
        i++;
    return i;
}

const struct rules_module *rules_default(void)
{
    return modules[0];
}
