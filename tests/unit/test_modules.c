/*
 * test_modules.c - every module this build knows declares its data whole
 * (core/README.md, "Adding a game"): its settings table is consistent, its
 * words are in the catalog, its modes open a lobby, and its transitions
 * name its phases.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/catalog.h"
#include "core/modules.h"

/* Whether the catalog has key in English (a missing key reads as itself). */
static bool has_key(const char *key)
{
    return key && strcmp(catalog_text("en", key), key) != 0;
}

/* Whether phase is one of m's phases, or "" (the lobby) or "over". */
static bool known_phase(const struct rules_module *m, const char *phase)
{
    if (!*phase || strcmp(phase, "over") == 0)
        return true;
    for (unsigned i = 0; m->phase_at(i); i++)
        if (strcmp(m->phase_at(i), phase) == 0)
            return true;
    return false;
}

static void settings_tables(void **state)
{
    (void)state;
    for (size_t i = 0; i < rules_count(); i++) {
        const struct rules_module *m = rules_at(i);
        const struct rules_setting *t = m->settings_table;
        unsigned n = 0;
        assert_non_null(t);
        for (; t[n].name; n++) {
            const struct rules_setting *s = &t[n];
            print_message("%s: %s\n", m->id, s->name);
            assert_true(has_key(s->label));
            assert_true(has_key(s->help));
            assert_true(s->where != 0);
            assert_ptr_equal(rules_setting_find(t, s->name), s); /* names are unique */
            if (s->kind == RULES_DURATION)
                assert_true(s->min <= s->def && s->def <= s->max);
            if (s->kind == RULES_CHOICE) {
                int64_t values = 0;
                assert_non_null(s->values);
                while (s->values[values])
                    values++;
                assert_true(s->def >= 0 && s->def < values);
            }
            /* what the configuration holds is what it can read */
            assert_true(!(s->where & RULES_IN_CONFIG) || s->kind != RULES_WORDS);
        }
        assert_true(n <= RULES_SETTINGS_MAX);
    }
}

/* Whether key is one of m's own, under its id ("illegal.msg.rules"). */
static bool under_id(const struct rules_module *m, const char *key)
{
    size_t n = strlen(m->id);
    return strncmp(key, m->id, n) == 0 && key[n] == '.';
}

static void words_and_modes(void **state)
{
    (void)state;
    for (size_t i = 0; i < rules_count(); i++) {
        const struct rules_module *m = rules_at(i);
        char key[64];
        snprintf(key, sizeof key, "%s.game", m->id);
        assert_true(has_key(key));
        /* how the greeting presents it, and what it sends in private */
        snprintf(key, sizeof key, "%s.game-intro", m->id);
        assert_true(has_key(key));
        snprintf(key, sizeof key, "%s.game-private", m->id);
        assert_true(has_key(key));
        assert_true(has_key(m->rules_summary));
        assert_true(has_key(m->stats_line));
        /* the statistics line of a player who played with computers (bot/stats.c) */
        snprintf(key, sizeof key, "%s-computers", m->stats_line);
        assert_true(has_key(key));
        /* the words the bot reads from the module are the module's */
        assert_true(under_id(m, m->rules_summary) && under_id(m, m->stats_line) &&
                    under_id(m, m->mode_keys) && under_id(m, m->error_keys));
        for (const struct rules_setting *s = m->settings_table; s && s->name; s++)
            assert_true(under_id(m, s->label) && under_id(m, s->help));
        assert_true(m->min_players >= 1 && m->min_players <= m->max_players &&
                    m->max_players <= RULES_MAX_SEATS);
        assert_ptr_equal(rules_by_id(m->id), m);
        assert_ptr_equal(rules_at(rules_index(m)), m);
        /* every mode opens a lobby, and the default is the first */
        struct rules_defaults d;
        rules_defaults_init(m, &d);
        void *lobby = malloc(m->state_size);
        assert_non_null(lobby);
        assert_non_null(m->modes);
        assert_non_null(m->modes[0]);
        for (const char *const *mode = m->modes; *mode; mode++) {
            char name[96];
            snprintf(name, sizeof name, "%s.%s", m->mode_keys, *mode);
            assert_true(has_key(name));
            assert_int_equal(m->init(lobby, *mode, &d), 0);
            assert_string_equal(m->mode(lobby), *mode);
        }
        assert_int_equal(m->init(lobby, NULL, &d), 0);
        assert_string_equal(m->mode(lobby), m->modes[0]);
        assert_int_equal(m->init(lobby, "no-such-mode", &d), -1);
        free(lobby);
    }
}

static void transitions(void **state)
{
    (void)state;
    for (size_t i = 0; i < rules_count(); i++) {
        const struct rules_module *m = rules_at(i);
        unsigned from_lobby = 0, n = 0;
        assert_non_null(m->transitions);
        for (const struct rules_transition *t = m->transitions; t->from; t++, n++) {
            assert_true(known_phase(m, t->from));
            assert_true(known_phase(m, t->to));
            assert_true(strcmp(t->from, t->to) != 0);
            from_lobby += !*t->from;
        }
        assert_int_equal(from_lobby, 1);
        assert_true(n > 1);
        /* each phase a game can be in is reached and left */
        for (unsigned p = 0; m->phase_at(p); p++) {
            bool in = false, out = false;
            for (const struct rules_transition *t = m->transitions; t->from; t++) {
                in |= strcmp(t->to, m->phase_at(p)) == 0;
                out |= strcmp(t->from, m->phase_at(p)) == 0;
            }
            assert_true(in && out);
        }
    }
}

/* A game's key topics read back as it wrote them: none clashes with the
 * bot's or another game's with other parts. */
static void topics(void **state)
{
    (void)state;
    for (size_t i = 0; i < rules_count(); i++) {
        const struct rules_module *m = rules_at(i);
        assert_non_null(m->topics);
        for (const struct msg_topic *t = m->topics; t->topic; t++) {
            const struct msg_topic *found = msg_topic_find(t->topic);
            assert_non_null(found);
            assert_true(found->number == t->number && found->user == t->user);
            struct msg_key k = {.number = 3}, back;
            char text[MSG_KEY_MAX];
            snprintf(k.game, sizeof k.game, "g7");
            snprintf(k.topic, sizeof k.topic, "%s", t->topic);
            snprintf(k.user, sizeof k.user, "42");
            assert_int_equal(msg_key_format(&k, text, sizeof text), 0);
            assert_int_equal(msg_key_parse(text, &back), 0);
            assert_string_equal(back.topic, t->topic);
            assert_int_equal(back.number, t->number ? 3 : 0);
            assert_string_equal(back.user, t->user ? "42" : "");
        }
    }
    assert_null(msg_topic_find("no-such-topic"));
}

/* Every kind's name reads back; the names of an older outbox read as the
 * generic kinds; a view, a prompt or a ballot goes by its module's topic. */
static void kinds(void **state)
{
    (void)state;
    enum outbound_kind k;
    char topic[MSG_TOPIC_MAX];
    for (unsigned i = 0; i <= OUT_GAME_OVER; i++) {
        assert_int_equal(msg_kind_parse(msg_kind_name((enum outbound_kind)i), &k), 0);
        assert_int_equal(k, i);
    }
    static const struct {
        const char *name;
        enum outbound_kind kind;
    } older[] = {{"hand", OUT_PRIVATE_VIEW},
                 {"drop", OUT_TABLE_VIEW},
                 {"offer", OUT_PROMPT},
                 {"vote", OUT_BALLOT}};
    for (size_t i = 0; i < sizeof older / sizeof older[0]; i++) {
        assert_int_equal(msg_kind_parse(older[i].name, &k), 0);
        assert_int_equal(k, older[i].kind);
    }
    assert_int_equal(msg_kind_parse("tribunal", &k), -1);
    assert_int_equal(msg_kind_parse(NULL, &k), -1);
    assert_string_equal(msg_label(OUT_PRIVATE_VIEW, "g1/hand/alice", topic, sizeof topic), "hand");
    assert_string_equal(msg_label(OUT_TABLE_VIEW, "g1/drop/2", topic, sizeof topic), "drop");
    assert_string_equal(msg_label(OUT_BALLOT, "g1/vote/1", topic, sizeof topic), "vote");
    assert_string_equal(msg_label(OUT_PROMPT, NULL, topic, sizeof topic), "prompt");
    assert_string_equal(msg_label(OUT_PROMPT, "not a key", topic, sizeof topic), "prompt");
    /* a notice keeps its kind's name, whatever its key */
    assert_string_equal(msg_label(OUT_NOTICE, "g1/recap/1", topic, sizeof topic), "notice");
    assert_string_equal(msg_label(OUT_LOBBY, "g1/lobby", topic, sizeof topic), "lobby");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(settings_tables), cmocka_unit_test(words_and_modes),
        cmocka_unit_test(transitions),     cmocka_unit_test(topics),
        cmocka_unit_test(kinds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
