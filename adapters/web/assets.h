/*
 * assets.h - the page's files, compiled into the binary by embed.cmake.
 */
#ifndef ADAPTERS_WEB_ASSETS_H
#define ADAPTERS_WEB_ASSETS_H

#include <stddef.h>

struct web_asset {
    const char *path; /* URL path, e.g. "/app.js" */
    const char *type; /* Content-Type */
    const unsigned char *data;
    size_t len;
};

extern const struct web_asset web_assets[];
extern const size_t web_nassets;

#endif
