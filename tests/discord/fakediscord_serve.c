/*
 * fakediscord_serve.c - the Discord test server as a program, for tests that
 * are not written in C (tests/web/activity.test.mjs): one JSON object a line
 * on stdin asks, one a line on stdout answers.
 *
 *   {"op":"port"}                                     -> {"port":n}
 *   {"op":"client","id","secret"}                     the OAuth2 client
 *   {"op":"instance","instance","channel","guild","users":[ids]}
 *   {"op":"code","user","name"}                       -> {"code"}
 *   {"op":"vary","on":bool}, {"op":"hang","n"}        the Activity's variation
 *   {"op":"activities","on":bool}                     the app's Activities toggle
 *   {"op":"privileged","intents":n}                   the app's privileged intents
 *   {"op":"name","user","name"}, {"op":"guild","guild","owner"}
 *   {"op":"slash","id","guild","channel","user","sub","opts","perms"}
 *   {"op":"click","id","guild","channel","user","message","custom_id","values"}
 *   {"op":"launch","id","guild","channel","user"}    the Entry Point command
 *   {"op":"message","id","guild","channel","user","text"}
 *   {"op":"react","guild","channel","message","user","emoji"}
 *   {"op":"snapshot"}                                 -> fd_snapshot() and "activity"
 *   {"op":"quit"}
 *
 * Every answer but "port", "code" and "snapshot" is {"ok":true}; a line it
 * cannot read gets {"error":"..."}. Strings in opts and values are JSON text.
 */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fakediscord.h"
#include "fdclient.h"

static const char *str(struct json_object *o, const char *k)
{
    struct json_object *v;
    return json_object_object_get_ex(o, k, &v) && json_object_is_type(v, json_type_string)
               ? json_object_get_string(v)
               : NULL;
}

static int64_t num(struct json_object *o, const char *k)
{
    struct json_object *v;
    return json_object_object_get_ex(o, k, &v) ? json_object_get_int64(v) : 0;
}

static void reply(struct json_object *o)
{
    puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
    fflush(stdout);
    json_object_put(o);
}

static struct json_object *ok(void)
{
    struct json_object *o = json_object_new_object();
    json_object_object_add(o, "ok", json_object_new_boolean(1));
    return o;
}

/* Handles one request; false to quit. */
static bool handle(struct fd_server *s, struct json_object *q)
{
    const char *op = str(q, "op");
    struct json_object *r = NULL, *v;
    if (!op) {
        r = json_object_new_object();
        json_object_object_add(r, "error", json_object_new_string("no op"));
    } else if (strcmp(op, "quit") == 0) {
        reply(ok());
        return false;
    } else if (strcmp(op, "port") == 0) {
        r = json_object_new_object();
        json_object_object_add(r, "port", json_object_new_int(fd_port(s)));
    } else if (strcmp(op, "client") == 0) {
        fd_activity_client(s, str(q, "id") ? str(q, "id") : FD_APP_ID,
                           str(q, "secret") ? str(q, "secret") : "");
    } else if (strcmp(op, "instance") == 0) {
        json_object_object_get_ex(q, "users", &v);
        fd_activity_instance(s, str(q, "instance"), str(q, "channel"), str(q, "guild"),
                             v ? json_object_to_json_string(v) : "[]");
    } else if (strcmp(op, "code") == 0) {
        char code[64];
        fd_activity_code(s, str(q, "user"), str(q, "name"), code, sizeof code);
        r = json_object_new_object();
        json_object_object_add(r, "code", json_object_new_string(code));
    } else if (strcmp(op, "vary") == 0) {
        json_object_object_get_ex(q, "on", &v);
        fd_activity_vary(s, json_object_get_boolean(v));
    } else if (strcmp(op, "activities") == 0) {
        json_object_object_get_ex(q, "on", &v);
        fd_set_activities(s, json_object_get_boolean(v));
    } else if (strcmp(op, "hang") == 0) {
        fd_activity_hang(s, (int)num(q, "n"));
    } else if (strcmp(op, "privileged") == 0) {
        fd_set_privileged(s, num(q, "intents"));
    } else if (strcmp(op, "name") == 0) {
        fdc_set_name(str(q, "user"), str(q, "name"));
    } else if (strcmp(op, "guild") == 0) {
        fdc_guild(s, str(q, "guild"), str(q, "owner"));
    } else if (strcmp(op, "slash") == 0) {
        fdc_slash(s, str(q, "id"), str(q, "guild"), str(q, "channel"), str(q, "user"),
                  str(q, "sub"), str(q, "opts"), str(q, "perms") ? str(q, "perms") : "0");
    } else if (strcmp(op, "launch") == 0) {
        fdc_entry_point(s, str(q, "id"), str(q, "guild"), str(q, "channel"), str(q, "user"));
    } else if (strcmp(op, "click") == 0) {
        fdc_component(s, str(q, "id"), str(q, "guild"), str(q, "channel"), str(q, "user"),
                      str(q, "message"), str(q, "custom_id"), str(q, "values"));
    } else if (strcmp(op, "message") == 0) {
        fdc_message(s, str(q, "id"), str(q, "guild"), str(q, "channel"), str(q, "user"),
                    str(q, "text"));
    } else if (strcmp(op, "react") == 0) {
        fdc_reaction(s, str(q, "guild"), str(q, "channel"), str(q, "message"), str(q, "user"),
                     str(q, "emoji"));
    } else if (strcmp(op, "snapshot") == 0) {
        r = fd_snapshot(s);
        json_object_object_add(r, "activity", fd_activity_record(s));
    } else {
        r = json_object_new_object();
        json_object_object_add(r, "error", json_object_new_string("unknown op"));
    }
    reply(r ? r : ok());
    return true;
}

int main(void)
{
    struct fd_server *s = fd_start("test-token", 1000);
    if (!s)
        return 1;
    fd_set_privileged(s, FD_INTENT_MESSAGE_CONTENT);
    char *line = NULL;
    size_t cap = 0;
    bool go = true;
    while (go && getline(&line, &cap, stdin) > 0) {
        struct json_object *q = json_tokener_parse(line);
        go = handle(s, q);
        json_object_put(q);
    }
    free(line);
    fd_stop(s);
    return 0;
}
