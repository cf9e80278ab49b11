/*
 * test_skim.c - the skimmer's cases, from skim_cases.txt: each gateway
 * message it may call ignorable, each it reads for the adapter, and each it
 * must leave to the full parse. Every case is also parsed properly, to check
 * the two agree (skim_check.h), and each message read is read by the Discord
 * adapter both from the skimmer's spans and from the full parse, to check
 * the bot gets the same input (read_check.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "adapters/discord/discord.h"
#include "bot/dispatcher.h"
#include "case_file.h"
#include "read_check.h"
#include "skim_check.h"
#include "tests/fuzz/fuzz_host.h"

static const char *cases_path;

/* A case's line: "ignore SEQ FRAME", "message SEQ FRAME" or "parse FRAME";
 * false when it is none of them. */
static bool read_case(const char *line, enum gw_skim *want, int64_t *want_seq, const char **frame)
{
    static const struct {
        const char *word;
        enum gw_skim kind;
    } kinds[] = {
        {"ignore", GW_SKIM_IGNORE}, {"message", GW_SKIM_MESSAGE}, {"parse", GW_SKIM_PARSE}};
    for (size_t i = 0; i < sizeof(kinds) / sizeof(*kinds); i++) {
        size_t n = strlen(kinds[i].word);
        if (strncmp(line, kinds[i].word, n) != 0 || (line[n] != ' ' && line[n] != '\0'))
            continue;
        *want = kinds[i].kind;
        *want_seq = 0;
        *frame = line[n] ? line + n + 1 : line + n; /* "parse" alone: an empty message */
        if (*want != GW_SKIM_PARSE) {
            char *end;
            *want_seq = strtoll(*frame, &end, 10);
            *frame = *end ? end + 1 : end;
        }
        return true;
    }
    return false;
}

/* A guild the readers' moderator answers depend on: its owner, a role that
 * administers it, and a role named as [discord] moderator_role. */
static const char guild[] =
    "{\"op\":0,\"t\":\"GUILD_CREATE\",\"s\":1,\"d\":{\"id\":\"7001\",\"owner_id\":\"6100\","
    "\"roles\":[{\"id\":\"7001\",\"name\":\"@everyone\",\"permissions\":\"0\"},"
    "{\"id\":\"9001\",\"name\":\"admins\",\"permissions\":\"8\"},"
    "{\"id\":\"9002\",\"name\":\"Game Masters\",\"permissions\":\"0\"}]}}";

/* The bot's own user: its messages are refused. */
static const char ready[] = "{\"op\":0,\"t\":\"READY\",\"s\":2,\"d\":{\"session_id\":\"s1\","
                            "\"user\":{\"id\":\"900000000000000001\"}}}";

/* The Discord adapter of a daemon on a fresh store, as the gateway fuzz
 * target builds it, ready, with the guild above. */
static struct platform *adapter(struct fuzz_host *h)
{
    char err[512];
    fuzz_host_config(h);
    fuzz_host_set(&h->config.discord_token, "test-token");
    fuzz_host_set(&h->config.discord_api_url, "http://127.0.0.1:9/api/v10");
    fuzz_host_set(&h->config.discord_application_id, "900000000000000001");
    fuzz_host_set(&h->config.discord_moderator_role, "game masters");
    fuzz_host_open(h);
    struct platform *p = discord_platform_new(&h->config, dispatcher_host(h->d), err, sizeof err);
    assert_non_null(p);
    assert_int_equal(dispatcher_add_platform(h->d, p), 0);
    discord_gateway_input(p, ready, strlen(ready));
    discord_gateway_input(p, guild, strlen(guild));
    return p;
}

static void cases(void **state)
{
    static const char *const names[] = {"parsed", "ignored", "read"};
    (void)state;
    struct fuzz_host h;
    struct platform *p = adapter(&h);
    unsigned inputs = 0;
    FILE *f = fopen(cases_path, "r");
    assert_non_null(f);
    char line[4096];
    unsigned n = 0, counts[3] = {0};
    while (case_next(f, line, sizeof line)) {
        n++;
        enum gw_skim want = GW_SKIM_PARSE, got;
        int64_t want_seq = 0, seq = -1;
        const char *frame = "";
        if (!read_case(line, &want, &want_seq, &frame))
            fail_msg("line %u: neither ignore, message nor parse: %s", n, line);
        const char *why = skim_check(frame, strlen(frame), &got, &seq);
        if (why)
            fail_msg("case %u: %s: %s", n, why, frame);
        if (got != want)
            fail_msg("case %u: %s, not %s: %s", n, names[got], names[want], frame);
        if (want != GW_SKIM_PARSE)
            assert_int_equal(seq, want_seq);
        bool read;
        if ((why = read_check(p, frame, strlen(frame), &read)))
            fail_msg("case %u: the adapter's readers disagree: %s: %s", n, why, frame);
        inputs += read;
        /* the ignorable answer does not depend on a message being asked for */
        int64_t seq2;
        enum gw_skim alone = gw_skim(frame, strlen(frame), &seq2, NULL);
        assert_int_equal(alone, want == GW_SKIM_MESSAGE ? GW_SKIM_PARSE : want);
        counts[got]++;
    }
    fclose(f);
    fuzz_host_close(&h);
    assert_true(counts[GW_SKIM_IGNORE] > 5 && counts[GW_SKIM_MESSAGE] > 5 &&
                counts[GW_SKIM_PARSE] > 10);
    print_message("%u messages read, %u inputs\n", counts[GW_SKIM_MESSAGE], inputs);
    /* both readers both give inputs and refuse messages */
    assert_true(inputs > 5 && inputs + 5 < counts[GW_SKIM_MESSAGE]);
}

int main(int argc, char **argv)
{
    cases_path = argc > 1 ? argv[1] : "skim_cases.txt";
    fuzz_host_setup("discord_skim");
    const struct CMUnitTest tests[] = {cmocka_unit_test(cases)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
