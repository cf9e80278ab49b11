/*
 * test_words.c - every event of whole games, every error and every card has
 * its words in every language of the catalog: the key exists, every
 * placeholder is filled, and no text falls back to its key.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "core/catalog.h"
#include "core/palm-drewes/module.h"
#include "core/palm-drewes/words.h"
#include "driver.h"

static const char *const names[PD_MAX_PLAYERS] = {"Ana", "Ben", "Cleo", "Dev", "Eli", "Fay"};

struct seen {
    unsigned long texts;
    bool keys[PD_EV_TYPES];
};

/* A text is whole: no {placeholder} left, no raw key. */
static void whole(const char *lang, const char *key, const char *text)
{
    if (!catalog_text(lang, key))
        fail_msg("%s: no key %s", lang, key);
    if (strncmp(text, PD_KEYS, strlen(PD_KEYS)) == 0)
        fail_msg("%s: %s fell back to its key", lang, key);
    for (const char *p = strchr(text, '{'); p; p = strchr(p + 1, '{')) {
        size_t n = strspn(p + 1, "abcdefghijklmnopqrstuvwxyz0123456789_-");
        if (n && p[1 + n] == '}')
            fail_msg("%s: %s left a placeholder: %s", lang, key, text);
    }
    if (!*text)
        fail_msg("%s: %s is empty", lang, key);
}

static void on_step(const struct pd_game *g, const struct pd_events *ev, void *arg)
{
    struct seen *s = arg;
    char out[2048];
    const char *lang;
    for (size_t l = 0; (lang = catalog_language_at(l)); l++)
        for (unsigned i = 0; i < ev->n; i++) {
            const char *key =
                pd_event_text(out, sizeof out, lang, &ev->v[i], names, g->nplayers, 1000000);
            whole(lang, key, out);
            s->keys[ev->v[i].type] = true;
            s->texts++;
        }
}

static void test_every_event_in_every_language(void **state)
{
    (void)state;
    struct seen s;
    memset(&s, 0, sizeof s);
    struct pd_sim_stats st;
    memset(&st, 0, sizeof st);
    for (unsigned players = PD_MIN_PLAYERS; players <= PD_MAX_PLAYERS; players++) {
        struct pd_sim_opts o = {.players = players,
                                .verify = true,
                                .series = PD_SERIES_SHORT,
                                .on_step = on_step,
                                .arg = &s};
        struct pd_series series = {0};
        for (uint64_t seed = 0; seed < 6; seed++)
            assert_int_equal(pd_sim_play(&o, 900 + seed, &series, &st, NULL), 0);
    }
    for (unsigned t = 0; t < PD_EV_TYPES; t++)
        if (!s.keys[t])
            fail_msg("no game had a %s event", pd_event_id((enum pd_event_type)t));
}

static void test_errors_and_cards(void **state)
{
    (void)state;
    const char *lang;
    char out[1024], key[96];
    for (size_t l = 0; (lang = catalog_language_at(l)); l++) {
        for (unsigned e = 0; e < PD_ERR_COUNT; e++) {
            snprintf(key, sizeof key, PD_KEYS "error.%s", pd_error_id((enum pd_error)e));
            whole(lang, key, pd_error_text(lang, (enum pd_error)e));
        }
        for (unsigned c = 0; c < PD_CARDS; c++) {
            snprintf(key, sizeof key, PD_KEYS "card.%s", pd_card_id(c));
            whole(lang, key, pd_card_name(lang, c));
            snprintf(key, sizeof key, PD_KEYS "card-rule.%s", pd_card_id(c));
            pd_card_rule(out, sizeof out, lang, c);
            whole(lang, key, out);
        }
        for (const struct rules_setting *s = pd_settings; s->name; s++) {
            whole(lang, s->label, catalog_text(lang, s->label));
            whole(lang, s->help, catalog_text(lang, s->help));
        }
        for (const char *const *p = pd_preset_ids; *p; p++) {
            snprintf(key, sizeof key, PD_KEYS "preset.%s", *p);
            whole(lang, key, catalog_text(lang, key));
        }
        for (unsigned p = 0; p < PD_PHASES; p++) {
            snprintf(key, sizeof key, PD_KEYS "phase.%s", pd_phase_id((enum pd_phase)p));
            whole(lang, key, catalog_text(lang, key));
        }
        static const char *const others[] = {"rules", "series-off", "series-goal"};
        whole(lang, "palm-drewes.game", catalog_text(lang, "palm-drewes.game"));
        for (unsigned i = 0; i < 3; i++) {
            snprintf(key, sizeof key, PD_KEYS "%s", others[i]);
            assert_non_null(catalog_text(lang, key));
        }
    }
}

static void test_formats(void **state)
{
    (void)state;
    char out[128];
    pd_euros_text(out, sizeof out, "en", 125000);
    assert_string_equal(out, "€125,000");
    pd_euros_text(out, sizeof out, "en", -51000);
    assert_string_equal(out, "-€51,000");
    pd_euros_text(out, sizeof out, "de", 25000);
    assert_string_equal(out, "25.000 €");
    struct pd_bundle b = {{0}};
    pd_cards_text(out, sizeof out, "en", &b);
    assert_string_equal(out, "nothing");
    b.n[PD_DOPE] = 2;
    b.n[PD_MAGNUM] = 1;
    pd_cards_text(out, sizeof out, "en", &b);
    assert_string_equal(out, "Dope ×2, Magnum");
    pd_cards_text(out, sizeof out, "de", &b);
    assert_string_equal(out, "Stoff ×2, Magnum");
    pd_cards_text(out, 12, "en", &b); /* a list is cut between its items */
    assert_string_equal(out, "Dope ×2");
    pd_card_rule(out, sizeof out, "en", PD_GUNS);
    assert_non_null(strstr(out, "€50,000"));
    assert_string_equal(pd_card_name("fr", PD_FUNNY_MONEY), "Faux billets");
}

int main(void)
{
    static const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_event_in_every_language),
        cmocka_unit_test(test_errors_and_cards),
        cmocka_unit_test(test_formats),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
