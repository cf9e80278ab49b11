/*
 * rss_floor.c - the idle RSS any daemon built on illegald's libraries starts
 * from: it links the same Debian libraries (libcurl, libwebsockets, json-c,
 * SQLite, libuv, libinih, and libolm and libqrencode, which the Matrix and
 * web platforms bring into the one binary, libolm with the C++ runtime),
 * initialises libcurl, SQLite and a libuv loop, and waits to be killed.
 * bench_vs_discordjs reads its RSS next to illegald's.
 */
#include <curl/curl.h>
#include <ini.h>
#include <json-c/json.h>
#include <libwebsockets.h>
#include <olm/olm.h>
#include <qrencode.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>
#include <uv.h>

int main(void)
{
    /* One call into each library, so that none is dropped at link time. */
    uint8_t major, minor, patch;
    olm_get_library_version(&major, &minor, &patch);
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK || sqlite3_initialize() != SQLITE_OK ||
        !uv_default_loop() || !lws_get_library_version() || !json_c_version() ||
        ini_parse_string("", NULL, NULL) != 0 || !QRcode_APIVersionString()) {
        fprintf(stderr, "rss_floor: a library failed to start\n");
        return 1;
    }
    for (;;)
        pause();
}
