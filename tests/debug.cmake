# ---- Debuggers and checkers on virtual ranks (issue 20) ----
# valgrind's memcheck, gdb with zmpi's helper (tools/gdb/zmpi.py) and
# AddressSanitizer on privatized programs built by zmpicc at test time
# (with -g, as a user would).  Each script exits 77, counted as skipped,
# when its tool is not installed (scripts/test.sh installs valgrind and
# gdb).
set(_zd_cc ${CMAKE_BINARY_DIR}/tools/zmpicc)
set(_zd_src ${CMAKE_CURRENT_SOURCE_DIR})
# debug_valgrind_<mode>_<link>_<np>x<w>: memcheck on tests/debug_checkers.c
# (debug_valgrind.sh says what passes).
function(zmpi_add_valgrind_test mode link np nw)
  set(name debug_valgrind_${mode}_${link}_${np}x${nw})
  add_test(NAME ${name}
    COMMAND sh ${_zd_src}/debug_valgrind.sh ${_zd_cc} $<TARGET_FILE:zmpirun> ${_zd_src}
            ${mode} ${link} ${nw} ${np} ${ARGN})
  set_tests_properties(${name} PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77)
endfunction()
zmpi_add_valgrind_test(clean priv 4 1)
zmpi_add_valgrind_test(clean priv 4 2)
zmpi_add_valgrind_test(clean noprivatize 4 2)
zmpi_add_valgrind_test(invalid_read priv 4 2)
zmpi_add_valgrind_test(uninit priv 4 1)
zmpi_add_valgrind_test(invalid_read noprivatize 4 1)
# 16 stacks of 64 KB lie within memcheck's 2 MB guess of a frame: without
# zmpi registering them as stacks it reports hundreds of thousands of
# false errors.
zmpi_add_valgrind_test(clean priv 16 2 65536)
# gdb's helper: sourced on one worker, auto-loaded with the build tree's
# libzmpi on two.
add_test(NAME debug_gdb_ranks_4x1
  COMMAND sh ${_zd_src}/debug_gdb.sh ${_zd_cc} ${PROJECT_SOURCE_DIR}/tools/gdb/zmpi.py
          ${_zd_src} 1)
add_test(NAME debug_gdb_ranks_4x2
  COMMAND sh ${_zd_src}/debug_gdb.sh ${_zd_cc} ${CMAKE_BINARY_DIR} ${_zd_src} 2)
set_tests_properties(debug_gdb_ranks_4x1 debug_gdb_ranks_4x2 PROPERTIES
  TIMEOUT 120 SKIP_RETURN_CODE 77)
add_test(NAME debug_asan_heap_overflow_4x2
  COMMAND sh ${_zd_src}/debug_asan.sh ${_zd_cc} $<TARGET_FILE:zmpirun> ${_zd_src})
set_tests_properties(debug_asan_heap_overflow_4x2 PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77)
# ---- end of debuggers and checkers ----

# ---- ThreadSanitizer (docs/debugging.md, "Sanitizers") ----
# debug_tsan_<np>x2: tests/debug_tsan.c built with zmpicc -fsanitize=thread
# on 2 workers: nothing reported for the correct program (messages across
# workers, ranks moving, threads of a rank), the race between a rank's two
# threads reported at its line (debug_tsan.sh).
foreach(np 4 16)
  add_test(NAME debug_tsan_${np}x2
    COMMAND sh ${_zd_src}/debug_tsan.sh ${_zd_cc} $<TARGET_FILE:zmpirun> ${_zd_src} ${np})
  set_tests_properties(debug_tsan_${np}x2 PROPERTIES TIMEOUT 240 SKIP_RETURN_CODE 77)
endforeach()
# ---- end of ThreadSanitizer ----
