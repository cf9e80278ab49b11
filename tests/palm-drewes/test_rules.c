/*
 * test_rules.c - the rules of Palm & Drewes' Illegal, group by group, and at
 * the end the check that every error code was returned by some test.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tests.h"

static void test_every_error_is_tested(void **state)
{
    (void)state;
    const char *missing = NULL;
    if (!t_all_errors_seen(&missing))
        fail_msg("no test returns error %s", missing);
}

int main(void)
{
    static const struct CMUnitTest last[] = {cmocka_unit_test(test_every_error_is_tested)};
    int failed = 0;
    failed += _cmocka_run_group_tests("cards", pd_card_tests, pd_card_tests_n, NULL, NULL);
    failed += _cmocka_run_group_tests("flow", pd_flow_tests, pd_flow_tests_n, NULL, NULL);
    failed += _cmocka_run_group_tests("trade", pd_trade_tests, pd_trade_tests_n, NULL, NULL);
    failed += _cmocka_run_group_tests("store", pd_store_tests, pd_store_tests_n, NULL, NULL);
    failed += cmocka_run_group_tests_name("errors", last, NULL, NULL);
    return failed;
}
