# illegald_fuzz_target(NAME <name> SOURCES <files...> LIBS <targets...>)
#
# Every parser of outside input has one target: a file defining
# LLVMFuzzerTestOneInput(). Each target is built twice over:
#   - always, as fuzz_<name>_replay, linked with replay.c and run by ctest over
#     the seed corpus tests/fuzz/corpus/<name>/ (so `make test` replays it with
#     the sanitizers of the test build);
#   - with -DILLEGALD_FUZZ=ON and clang, as the libFuzzer binary fuzz_<name>,
#     which `make fuzz` runs for a chosen time.
set(ILLEGALD_FUZZ_DIR ${CMAKE_SOURCE_DIR}/tests/fuzz)
if(ILLEGALD_FUZZ)
    add_custom_target(fuzz_all)
endif()

function(illegald_fuzz_target)
    cmake_parse_arguments(FT "" "NAME" "SOURCES;LIBS" ${ARGN})
    set(corpus ${ILLEGALD_FUZZ_DIR}/corpus/${FT_NAME})
    if(NOT IS_DIRECTORY ${corpus})
        message(FATAL_ERROR "fuzz target ${FT_NAME} has no seed corpus in ${corpus}")
    endif()
    add_executable(fuzz_${FT_NAME}_replay ${FT_SOURCES} ${ILLEGALD_FUZZ_DIR}/replay.c)
    target_include_directories(fuzz_${FT_NAME}_replay PRIVATE ${CMAKE_SOURCE_DIR})
    target_link_libraries(fuzz_${FT_NAME}_replay PRIVATE ${FT_LIBS})
    add_test(NAME fuzz_${FT_NAME} COMMAND fuzz_${FT_NAME}_replay ${corpus})
    set_tests_properties(fuzz_${FT_NAME} PROPERTIES LABELS fuzz TIMEOUT 300)
    if(ILLEGALD_FUZZ)
        add_executable(fuzz_${FT_NAME} ${FT_SOURCES})
        target_include_directories(fuzz_${FT_NAME} PRIVATE ${CMAKE_SOURCE_DIR})
        target_link_libraries(fuzz_${FT_NAME} PRIVATE ${FT_LIBS})
        target_link_options(fuzz_${FT_NAME} PRIVATE -fsanitize=fuzzer)
        add_dependencies(fuzz_all fuzz_${FT_NAME})
    endif()
endfunction()
