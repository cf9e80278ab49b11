/*
 * build_id.c - the program's GNU build id (build_id.h), from the notes the
 * linker wrote into the main program.
 */
#define _GNU_SOURCE /* dl_iterate_phdr */
#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <string.h>

#include "build_id.h"

static struct {
    uint8_t id[BUILD_ID_MAX];
    size_t len;
} build;
static pthread_once_t build_once = PTHREAD_ONCE_INIT;

/* The build id note among the main program's notes (the first object). */
static int find_build_id(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    (void)arg;
    for (unsigned i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE)
            continue;
        const char *at = (const char *)(info->dlpi_addr + ph->p_vaddr), *end = at + ph->p_memsz;
        while ((size_t)(end - at) >= sizeof(ElfW(Nhdr))) {
            const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)(const void *)at;
            size_t name = (n->n_namesz + 3) & ~(size_t)3, desc = (n->n_descsz + 3) & ~(size_t)3;
            if (name + desc > (size_t)(end - at) - sizeof *n)
                break;
            const char *owner = at + sizeof *n;
            if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && memcmp(owner, "GNU", 4) == 0 &&
                n->n_descsz > 0 && n->n_descsz <= BUILD_ID_MAX) {
                memcpy(build.id, owner + name, n->n_descsz);
                build.len = n->n_descsz;
                return 1;
            }
            at += sizeof *n + name + desc;
        }
    }
    return 1; /* only the main program */
}

static void read_build_id(void)
{
    dl_iterate_phdr(find_build_id, NULL);
}

const uint8_t *build_id(size_t *len)
{
    pthread_once(&build_once, read_build_id);
    *len = build.len;
    return build.id;
}
