# spoor profile, the call stacks and the functions under it (included from
# tests/CMakeLists.txt): unit tests of funcs.c, callstack.c and profile.c on
# synthetic blocks over a real test program, and spoor profile on every
# terminating virtual-board program against the ISS.
find_program(SPOOR_RV_NM riscv64-unknown-elf-nm)
foreach(t test_funcs test_callstack test_profile)
	spoor_unit_test(${t})
	target_link_libraries(${t} PRIVATE spoor)
	add_dependencies(${t} iss_programs)
	target_compile_definitions(${t} PRIVATE
		ISS_RECURSION_RV64="${CMAKE_CURRENT_BINARY_DIR}/programs/iss/c64/recursion.elf"
		ISS_HELLO_RV32="${CMAKE_CURRENT_BINARY_DIR}/programs/iss/c32/hello.elf")
endforeach()
foreach(xlen 32 64)
	foreach(variant c nc)
		foreach(prog ${VIRT_PROGRAMS_${variant}})
			add_test(NAME analysis.profile.${variant}${xlen}.${prog}
				COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/test_profile.sh
					$<TARGET_FILE:spoor_cli> $<TARGET_FILE:iss_run> ${SPOOR_RV_OBJDUMP}
					${SPOOR_RV_NM} ${CMAKE_SOURCE_DIR}/boards/virt-rv${xlen}.ini
					${CMAKE_BINARY_DIR}/tests/programs/iss/${variant}${xlen}/${prog}.elf)
		endforeach()
	endforeach()
endforeach()
