# spoor coverage (host/coverage.c, host/cli/cmd_coverage.c): the sink's unit
# test on a real test program, and the command against the ISS's retirement
# log on every virtual board test program that terminates, rv32 and rv64.
spoor_unit_test(test_coverage)
target_link_libraries(test_coverage PRIVATE spoor)
add_dependencies(test_coverage iss_programs)
# recursion.elf without symbols nor DWARF (strip --strip-all): coverage
# counted against the executable segments, pseudo functions per page.
set(COV_ELF_STRIPPED ${CMAKE_CURRENT_BINARY_DIR}/analysis/recursion-stripped.elf)
add_custom_target(coverage_stripped_elf
	COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_CURRENT_BINARY_DIR}/analysis
	COMMAND ${SPOOR_RISCV_OBJCOPY} --strip-all
		${CMAKE_CURRENT_BINARY_DIR}/programs/iss/c64/recursion.elf ${COV_ELF_STRIPPED}
	BYPRODUCTS ${COV_ELF_STRIPPED}
	COMMENT "Stripping recursion.elf for test_coverage")
add_dependencies(coverage_stripped_elf iss_programs)
add_dependencies(test_coverage coverage_stripped_elf)
target_compile_definitions(test_coverage PRIVATE
	COV_ELF_RV64="${CMAKE_CURRENT_BINARY_DIR}/programs/iss/c64/recursion.elf"
	COV_ELF_RV32="${CMAKE_CURRENT_BINARY_DIR}/programs/iss/c32/recursion.elf"
	COV_ELF_STRIPPED="${COV_ELF_STRIPPED}")

set(COVERAGE_PROGRAMS_c hello recursion funcptr switch deepcall exceptions timer privilege
	looplabel atomics muldiv cgoto trapstorm)
set(COVERAGE_PROGRAMS_nc recursion switch deepcall cgoto)
foreach(xlen 32 64)
	foreach(variant c nc)
		foreach(prog ${COVERAGE_PROGRAMS_${variant}})
			add_test(NAME analysis.coverage.${variant}${xlen}.${prog}
				COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/test_coverage.sh
					$<TARGET_FILE:spoor_cli> $<TARGET_FILE:iss_run>
					${CMAKE_SOURCE_DIR}/boards/virt-rv${xlen}.ini
					${CMAKE_CURRENT_BINARY_DIR}/programs/iss/${variant}${xlen}/${prog}.elf)
			set_tests_properties(analysis.coverage.${variant}${xlen}.${prog} PROPERTIES
				TIMEOUT 120)
		endforeach()
	endforeach()
endforeach()
