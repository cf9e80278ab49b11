/*
 * case_file.c - a data file's cases, a line each (case_file.h).
 */
#include <string.h>

#include "case_file.h"

bool case_next(FILE *f, char *line, size_t size)
{
    while (fgets(line, (int)size, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (line[0] && line[0] != '#')
            return true;
    }
    return false;
}
