# The analysis outputs rendered as people see them (cli/test_render.sh): spoor
# coverage's tracefile by genhtml, spoor profile's folded stacks by
# flamegraph.pl, each page screenshot by headless Chromium and checked not
# blank by tools/png_check.py.  The screenshots of the last run are left in
# <build>/render-pngs.  scripts/install-deps.sh installs chromium, lcov,
# libdevel-nytprof-perl (flamegraph.pl) and fonts-dejavu-core: the tests run
# everywhere, never skipped.
find_program(SPOOR_PYTHON3 python3 REQUIRED)

# png_check's decoder (every filter and colour type) and its verdicts: a
# blank PNG, a pale gradient, a corrupt file.
add_test(NAME analysis.render.png_check
	COMMAND ${SPOOR_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/tools/png_check.py --self-test)

add_test(NAME analysis.render.c64.recursion
	COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/test_render.sh $<TARGET_FILE:spoor_cli>
		$<TARGET_FILE:iss_run> ${CMAKE_SOURCE_DIR}/boards/virt-rv64.ini
		${CMAKE_CURRENT_BINARY_DIR}/programs/iss/c64/recursion.elf
		${CMAKE_BINARY_DIR}/render-pngs)
set_tests_properties(analysis.render.c64.recursion PROPERTIES TIMEOUT 180)
