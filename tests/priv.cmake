# ---- Per-rank libc state of privatized programs (issue 20) ----
# getopt: zmpi's own implementation (src/mpi/launch_getopt.c) must behave
# exactly as glibc's; the same table of cases runs against both and the
# outputs (results, argument order, messages) must be identical, with and
# without POSIXLY_CORRECT.
add_executable(zt_getopt_cases_glibc getopt_cases.c)
add_executable(zt_getopt_cases_zmpi getopt_cases.c ${PROJECT_SOURCE_DIR}/src/mpi/launch_getopt.c)
foreach(posix 0 1)
  set(env "")
  if(posix)
    set(env "POSIXLY_CORRECT=1")
  endif()
  add_test(NAME getopt_matches_glibc_posix${posix}
    COMMAND sh -c "a=$(env ${env} \"$0\" 2>&1) && b=$(env ${env} \"$1\" 2>&1) && [ -n \"$a\" ] && [ \"$a\" = \"$b\" ]"
            $<TARGET_FILE:zt_getopt_cases_glibc> $<TARGET_FILE:zt_getopt_cases_zmpi>)
  set_tests_properties(getopt_matches_glibc_posix${posix} PROPERTIES TIMEOUT 30)
endforeach()

# Every rank of a privatized program parses its command line on its own,
# while the others parse theirs call by call in between.
zmpi_add_priv_program(zt_priv_getopt priv_getopt.c)
zmpi_add_mpi_layouts(priv_getopt PROGRAM priv_getopt LAYOUTS 7x2 64x1
  ARGS -n 5 -v --size 7 extra)
# The same program linked without privatization shares libc's getopt
# state between its ranks; the test must see it (so it can fail).
zmpi_add_program(zt_priv_getopt_shared priv_getopt.c)
add_test(NAME priv_getopt_shared_detected
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/expect_fail.sh --timeout 60 --regex "FAIL rank" --
          $<TARGET_FILE:zmpirun> -n 4 -w 2 $<TARGET_FILE:zt_priv_getopt_shared>
          -n 5 -v --size 7 extra)
set_tests_properties(priv_getopt_shared_detected PROPERTIES TIMEOUT 90)
# ---- end of per-rank libc state ----

# ---- Whole output lines per rank, rank tags (issue 20) ----
zmpi_add_priv_program(zt_priv_output priv_output.c)
foreach(tag 0 1)
  add_test(NAME priv_output_lines_tag${tag}
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/priv_output_check.sh ${tag}
            $<TARGET_FILE:zmpirun> 16 $<TARGET_FILE:zt_priv_output>)
  set_tests_properties(priv_output_lines_tag${tag} PROPERTIES TIMEOUT 60)
endforeach()
# The same tags asked for by zmpirun's flags (Open MPI's and MPICH's names).
foreach(flag --tag-output -l)
  string(REPLACE "-" "" fname ${flag})
  add_test(NAME priv_output_lines_flag_${fname}
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/priv_output_check.sh ${flag}
            $<TARGET_FILE:zmpirun> 16 $<TARGET_FILE:zt_priv_output>)
  set_tests_properties(priv_output_lines_flag_${fname} PROPERTIES TIMEOUT 60)
endforeach()
# ---- end of whole output lines ----

# ---- Crash reports (issue 20) ----
# A rank that crashes is named with its signal, address and a backtrace
# with file:line; output printed before the crash is not lost although
# stdout goes to a file (expect_fail.sh captures it).
zmpi_add_priv_program(zt_crash_report crash_report.c)
zmpi_add_fatal_test(crash_report_segv PROGRAM crash_report NP 4 WORKERS 2 EXIT_CODE 139
  REGEX "zmpi: rank 2: SIGSEGV .*address 0x10" "crash_here at .*crash_report.c:14"
        "before the crash from rank 3")
# ---- end of crash reports ----

# ---- The kernel's memory-map limit, checked before the ranks start (issue 20) ----
add_test(NAME map_budget_checked_at_start
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/map_budget.sh ${CMAKE_CURRENT_SOURCE_DIR}/expect_fail.sh
          $<TARGET_FILE:zmpirun> $<TARGET_FILE:zt_priv_getopt> $<TARGET_FILE:zt_priv_getopt_shared>)
set_tests_properties(map_budget_checked_at_start PROPERTIES TIMEOUT 90 SKIP_RETURN_CODE 77)

# ---- zmpi's own loader of rank copies (issue 20) ----
# Relocated data, .bss and per-rank writes, with little initialized data
# (copied from the loader's template) and with much (mapped from the file,
# copied on write); under the default loader, forced (ZMPI_LOADER=zmpi:
# fails rather than fall back) and the dlopen path as the reference.  The
# 12000-rank run is what the dlopen path could not start in reasonable time.
zmpi_add_priv_program(zt_priv_loader priv_loader.c)
zmpi_add_priv_program(zt_priv_loader_big priv_loader.c)
target_compile_definitions(zt_priv_loader_big PRIVATE BIG_DATA)
foreach(prog priv_loader priv_loader_big)
  foreach(loader default zmpi dl)
    zmpi_add_mpi_layouts(${prog}_${loader} PROGRAM ${prog} LAYOUTS 1x1 16x2 64x1)
    if(NOT loader STREQUAL "default")
      foreach(layout 1x1 16x2 64x1)
        set_property(TEST ${prog}_${loader}_${layout} APPEND PROPERTY
          ENVIRONMENT "ZMPI_LOADER=${loader}")
      endforeach()
    endif()
  endforeach()
endforeach()
zmpi_add_mpi_test(priv_loader_zmpi_12000x2 PROGRAM priv_loader NP 12000 WORKERS 2 TIMEOUT 120)
set_property(TEST priv_loader_zmpi_12000x2 APPEND PROPERTY ENVIRONMENT "ZMPI_LOADER=zmpi")
# Thread-local storage: the default falls back to dlopen; forcing zmpi's
# loader fails before any rank starts, naming the reason.
zmpi_add_priv_program(zt_priv_tls priv_tls.c)
zmpi_add_mpi_layouts(priv_tls_fallback PROGRAM priv_tls LAYOUTS 8x2)
add_test(NAME priv_tls_forced_loader_refuses
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/expect_fail.sh --timeout 60
          --regex "ZMPI_LOADER=zmpi cannot load this program: the program has thread-local variables"
          -- env ZMPI_LOADER=zmpi $<TARGET_FILE:zmpirun> -n 4 -w 2 $<TARGET_FILE:zt_priv_tls>)
set_tests_properties(priv_tls_forced_loader_refuses PROPERTIES TIMEOUT 90)
# ---- end of zmpi's own loader ----
