/*
 * case_file.h - tests whose cases are lines of a data file read them here.
 */
#ifndef TESTS_CASE_FILE_H
#define TESTS_CASE_FILE_H

#include <stdbool.h>
#include <stdio.h>

/* The next case of f into line (size bytes, the caller's), its newline cut;
 * blank lines and lines starting with '#' are passed over. Returns false at
 * the end of the file. A line longer than size comes in pieces, as fgets. */
bool case_next(FILE *f, char *line, size_t size);

#endif
