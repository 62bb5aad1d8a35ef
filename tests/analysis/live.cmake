# The analyses live (spoor stream --coverage ... on the sim probe) and by time
# (a trace with timestamps from spoor virt --timestamps).
foreach(xlen 32 64)
	add_test(NAME analysis.live.c${xlen}.recursion
		COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/test_analysis_live.sh $<TARGET_FILE:spoor_cli>
			$<TARGET_FILE:spoor-probe-sim> ${CMAKE_SOURCE_DIR}/boards/virt-rv${xlen}.ini
			${CMAKE_BINARY_DIR}/tests/programs/iss/c${xlen}/recursion.elf)
	set_tests_properties(analysis.live.c${xlen}.recursion PROPERTIES TIMEOUT 120)
endforeach()
