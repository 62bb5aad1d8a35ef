# spoor timeline (host/timeline.c, host/cli/cmd_timeline.c): the sink on
# synthetic blocks of a real program, the trace-event schema checker on good
# and bad inputs, and the command on the virtual board's programs against
# the ISS's own log.
spoor_unit_test(test_timeline)
target_link_libraries(test_timeline PRIVATE spoor)
add_dependencies(test_timeline iss_programs)
target_compile_definitions(test_timeline PRIVATE
	ISS_RECURSION_RV32="${CMAKE_CURRENT_BINARY_DIR}/programs/iss/c32/recursion.elf"
	ISS_RECURSION_RV64="${CMAKE_CURRENT_BINARY_DIR}/programs/iss/c64/recursion.elf")

find_program(SPOOR_PYTHON3 python3 REQUIRED)
add_test(NAME analysis.timeline.checker
	COMMAND ${SPOOR_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/tools/check_trace_events.py --self-test)
add_test(NAME cli.timeline
	COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/test_timeline.sh $<TARGET_FILE:spoor_cli>
		$<TARGET_FILE:iss_run> ${CMAKE_CURRENT_SOURCE_DIR}/tools/check_trace_events.py
		${SPOOR_RV_OBJDUMP} ${CMAKE_BINARY_DIR}/tests/programs/iss ${CMAKE_SOURCE_DIR}/boards)
set_tests_properties(cli.timeline PROPERTIES TIMEOUT 600)
