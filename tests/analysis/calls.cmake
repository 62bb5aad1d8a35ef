# spoor calls (included from tests/CMakeLists.txt): the call tree's unit
# test, and spoor calls on every terminating virtual-board program.
spoor_unit_test(test_calls)
target_link_libraries(test_calls PRIVATE spoor)
add_dependencies(test_calls iss_programs)
target_compile_definitions(test_calls PRIVATE
	ISS_RECURSION_RV64="${CMAKE_CURRENT_BINARY_DIR}/programs/iss/c64/recursion.elf")
foreach(xlen 32 64)
	foreach(variant c nc)
		foreach(prog ${VIRT_PROGRAMS_${variant}})
			set(traps "")
			if(prog MATCHES "^(exceptions|timer|privilege|trapstorm)$")
				set(traps traps)
			endif()
			add_test(NAME analysis.calls.${variant}${xlen}.${prog}
				COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/test_calls.sh
					$<TARGET_FILE:spoor_cli> ${CMAKE_SOURCE_DIR}/boards/virt-rv${xlen}.ini
					${CMAKE_BINARY_DIR}/tests/programs/iss/${variant}${xlen}/${prog}.elf
					${traps})
		endforeach()
	endforeach()
endforeach()
