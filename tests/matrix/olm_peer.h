/*
 * olm_peer.h - what a test's libolm peer (a player's device) sends the bot: an
 * Olm to-device event and a Megolm room event, as a client writes them. Used by
 * test_matrix_crypto.c and gen_crypto_corpus.c.
 */
#ifndef TESTS_MATRIX_OLM_PEER_H
#define TESTS_MATRIX_OLM_PEER_H

struct json_object;
struct mxc_account;
struct mxc_session;
struct mxc_outbound;

/* A player's device: its user, device id and account. */
struct olm_peer_id {
    const char *user, *device;
    struct mxc_account *acct;
};

/* The bot's device as a peer knows it. */
struct olm_peer_bot {
    const char *user, *curve, *ed;
};

/*
 * An m.room.encrypted to-device event from p to the bot through Olm session s, carrying type and
 * content (taken), with the sender, recipient and keys the spec asks a recipient to check.
 */
struct json_object *olm_peer_todevice(const struct olm_peer_id *p, struct mxc_session *s,
                                      const struct olm_peer_bot *bot, const char *type,
                                      struct json_object *content);

/* An m.room.encrypted event of p in room (an m.room.message saying body) through out. */
struct json_object *olm_peer_says(const struct olm_peer_id *p, struct mxc_outbound *out,
                                  const char *room, const char *event_id, const char *body);

#endif
