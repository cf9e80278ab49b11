/*
 * po.h - gettext PO files as the catalog generator reads them.
 *
 * The catalog's words live in core/catalog/: illegald.pot (the keys and the
 * English texts) and one <language>.po per translation. This parser reads the
 * part of the PO format those files use: comments (of which the flags
 * "fuzzy" and "python-brace-format" are kept), msgctxt, msgid, msgid_plural,
 * msgstr and msgstr[N], each a run of quoted strings with C escapes.
 * Obsolete entries (#~) are skipped. Every size is capped (PO_*_MAX), so a
 * damaged file is refused with a line number, never read past its end.
 */
#ifndef BOT_CATALOG_PO_H
#define BOT_CATALOG_PO_H

#include <stdbool.h>
#include <stddef.h>

#define PO_FORMS_MAX   6           /* gettext's most plural forms in any language */
#define PO_STRING_MAX  (16 * 1024) /* one string, escapes decoded */
#define PO_ENTRIES_MAX 4096        /* entries in one file */
#define PO_FILE_MAX    (4 * 1024 * 1024)

struct po_entry {
    char *ctxt;              /* msgctxt, or NULL */
    char *id;                /* msgid, never NULL */
    char *id_plural;         /* msgid_plural, or NULL */
    char *str[PO_FORMS_MAX]; /* msgstr, or msgstr[0..nstr-1] */
    unsigned nstr;
    bool fuzzy;
    bool brace_format;
    unsigned line;    /* line of the entry's first keyword, for messages */
    const char *file; /* the file it was read from, when a caller merges files; borrowed */
};

struct po_file {
    struct po_entry *entries; /* in file order; owned, freed by po_free() */
    size_t n;
};

/*
 * Parses len bytes of text into f. Returns 0 on success; on error returns -1,
 * writes "line N: what is wrong" into why and leaves f empty. Either way
 * po_free(f) is safe afterwards.
 */
int po_parse(const char *text, size_t len, struct po_file *f, char *why, size_t whylen);

/* Frees what po_parse() allocated and empties f. */
void po_free(struct po_file *f);

/* The header entry (empty msgid, no msgctxt), or NULL. */
const struct po_entry *po_header(const struct po_file *f);

/* Copies the value of header field `name` ("Language") into out. Returns 0,
 * or -1 when the file has no header or no such field. */
int po_header_field(const struct po_file *f, const char *name, char *out, size_t len);

/*
 * Reads a Plural-Forms value ("nplurals=2; plural=(n > 1);"): stores the
 * number of forms in *nplurals and writes the formula as a fully
 * parenthesised C expression of `n` (an unsigned long) into out. The formula
 * may use n, decimal numbers, ! * / % + - < > <= >= == != && || ?: and
 * parentheses; a divisor must be a non-zero number. Returns 0, or -1 with why.
 */
int po_plural_c(const char *forms, unsigned *nplurals, char *out, size_t len, char *why,
                size_t whylen);

#endif
