/*
 * fuzz_po.c - the PO reader of the catalog generator (bot/catalog/po.c):
 * the whole file, then its header's Language and Plural-Forms as the
 * generator reads them.
 *
 * Input: a PO file's bytes. Checks beyond the sanitizers: a refusal says
 * why and leaves no entries; every kept entry has a msgid and 1 to
 * PO_FORMS_MAX msgstr, each NUL-terminated.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bot/catalog/po.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct po_file f;
    char why[256], value[512], formula[1024];
    if (po_parse((const char *)data, size, &f, why, sizeof why) < 0) {
        if (!why[0] || f.n != 0 || f.entries)
            abort();
        return 0;
    }
    for (size_t i = 0; i < f.n; i++) {
        const struct po_entry *e = &f.entries[i];
        if (!e->id || e->nstr < 1 || e->nstr > PO_FORMS_MAX)
            abort();
        for (unsigned k = 0; k < e->nstr; k++)
            if (!e->str[k] || strlen(e->str[k]) >= PO_STRING_MAX)
                abort();
    }
    unsigned n;
    if (po_header_field(&f, "Plural-Forms", value, sizeof value) == 0 &&
        po_plural_c(value, &n, formula, sizeof formula, why, sizeof why) == 0 &&
        (n < 1 || n > PO_FORMS_MAX || !memchr(formula, '\0', sizeof formula)))
        abort();
    po_header_field(&f, "Language", value, sizeof value);
    po_free(&f);
    return 0;
}
