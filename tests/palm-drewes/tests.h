/*
 * tests.h - the groups of test_rules, each in its own file.
 */
#ifndef TESTS_PALM_DREWES_TESTS_H
#define TESTS_PALM_DREWES_TESTS_H

#include <stddef.h>

#include "helpers.h"

struct CMUnitTest;

extern const struct CMUnitTest pd_card_tests[];
extern const size_t pd_card_tests_n;
extern const struct CMUnitTest pd_flow_tests[];
extern const size_t pd_flow_tests_n;
extern const struct CMUnitTest pd_trade_tests[];
extern const size_t pd_trade_tests_n;
extern const struct CMUnitTest pd_store_tests[];
extern const size_t pd_store_tests_n;

#endif
