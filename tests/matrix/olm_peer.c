/*
 * olm_peer.c - the events of a test's libolm peer (olm_peer.h).
 */
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "adapters/matrix/crypto.h"
#include "olm_peer.h"

struct json_object *olm_peer_todevice(const struct olm_peer_id *p, struct mxc_session *s,
                                      const struct olm_peer_bot *bot, const char *type,
                                      struct json_object *content)
{
    struct json_object *pl = json_object_new_object();
    json_object_object_add(pl, "type", json_object_new_string(type));
    json_object_object_add(pl, "content", content);
    json_object_object_add(pl, "sender", json_object_new_string(p->user));
    json_object_object_add(pl, "sender_device", json_object_new_string(p->device));
    json_object_object_add(pl, "recipient", json_object_new_string(bot->user));
    struct json_object *rk = json_object_new_object(), *k = json_object_new_object();
    json_object_object_add(rk, "ed25519", json_object_new_string(bot->ed));
    json_object_object_add(pl, "recipient_keys", rk);
    json_object_object_add(k, "ed25519", json_object_new_string(mxc_account_ed25519(p->acct)));
    json_object_object_add(pl, "keys", k);
    const char *text = json_object_to_json_string(pl);
    int t = 0;
    char *body = mxc_session_encrypt(s, text, strlen(text), &t);
    json_object_put(pl);
    struct json_object *ct = json_object_new_object();
    json_object_object_add(ct, "type", json_object_new_int(t));
    json_object_object_add(ct, "body", json_object_new_string(body ? body : ""));
    free(body);
    struct json_object *cts = json_object_new_object();
    json_object_object_add(cts, bot->curve, ct);
    struct json_object *c = json_object_new_object();
    json_object_object_add(c, "algorithm", json_object_new_string("m.olm.v1.curve25519-aes-sha2"));
    json_object_object_add(c, "sender_key",
                           json_object_new_string(mxc_account_curve25519(p->acct)));
    json_object_object_add(c, "ciphertext", cts);
    struct json_object *ev = json_object_new_object();
    json_object_object_add(ev, "type", json_object_new_string("m.room.encrypted"));
    json_object_object_add(ev, "sender", json_object_new_string(p->user));
    json_object_object_add(ev, "content", c);
    return ev;
}

struct json_object *olm_peer_says(const struct olm_peer_id *p, struct mxc_outbound *out,
                                  const char *room, const char *event_id, const char *body)
{
    struct json_object *in = json_object_new_object(), *c = json_object_new_object();
    json_object_object_add(c, "msgtype", json_object_new_string("m.text"));
    json_object_object_add(c, "body", json_object_new_string(body));
    json_object_object_add(in, "type", json_object_new_string("m.room.message"));
    json_object_object_add(in, "content", c);
    json_object_object_add(in, "room_id", json_object_new_string(room));
    const char *plain = json_object_to_json_string(in);
    char *ct = mxc_outbound_encrypt(out, plain, strlen(plain));
    json_object_put(in);
    char *sid = mxc_outbound_id(out);
    struct json_object *e = json_object_new_object();
    json_object_object_add(e, "algorithm", json_object_new_string("m.megolm.v1.aes-sha2"));
    json_object_object_add(e, "sender_key",
                           json_object_new_string(mxc_account_curve25519(p->acct)));
    json_object_object_add(e, "ciphertext", json_object_new_string(ct ? ct : ""));
    json_object_object_add(e, "session_id", json_object_new_string(sid ? sid : ""));
    json_object_object_add(e, "device_id", json_object_new_string(p->device));
    free(ct);
    free(sid);
    struct json_object *ev = json_object_new_object();
    json_object_object_add(ev, "type", json_object_new_string("m.room.encrypted"));
    json_object_object_add(ev, "sender", json_object_new_string(p->user));
    json_object_object_add(ev, "event_id", json_object_new_string(event_id));
    json_object_object_add(ev, "origin_server_ts", json_object_new_int64(1));
    json_object_object_add(ev, "content", e);
    return ev;
}
