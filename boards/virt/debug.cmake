# The virtual board's JTAG debug path: TAP + DTM (jtag.c), Debug Module
# (dm.c) and remote_bitbang server (bitbang.c) in libspoor_virt_dbg, and
# virt_dbg, the runner OpenOCD attaches to (boards/virt-rv32.cfg,
# boards/virt-rv64.cfg).
add_library(spoor_virt_dbg STATIC
	jtag.c
	dm.c
	bitbang.c
)
target_include_directories(spoor_virt_dbg PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(spoor_virt_dbg PUBLIC spoor_virt)

add_executable(virt_dbg dbg_run.c)
target_link_libraries(virt_dbg PRIVATE spoor_virt_dbg)
