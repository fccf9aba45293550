# ---- Per-rank libc state beyond getopt (issue 20, docs/privatization.md) ----
# strtok and the drand48 family are private to each rank of a privatized
# program (src/mpi/launch_libc.c), with glibc's exact results; the ranks'
# calls interleave call by call (7x2: on both workers at once, 64x1: one
# worker switching between all ranks).
zmpi_add_priv_program(zt_priv_libc priv_libc.c)
target_link_libraries(zt_priv_libc PRIVATE ${CMAKE_DL_LIBS})
foreach(part strtok rand48 shared)
  zmpi_add_mpi_layouts(priv_libc_${part} PROGRAM priv_libc LAYOUTS 7x2 64x1 ARGS ${part})
endforeach()
# The same program linked without privatization shares libc's state: the
# per-rank parts must fail (so they can), the shared part passes as well.
zmpi_add_program(zt_priv_libc_shared priv_libc.c)
target_link_libraries(zt_priv_libc_shared PRIVATE ${CMAKE_DL_LIBS})
foreach(part strtok rand48)
  add_test(NAME priv_libc_${part}_shared_detected
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/expect_fail.sh --timeout 60 --regex "FAIL rank" --
            $<TARGET_FILE:zmpirun> -n 4 -w 2 $<TARGET_FILE:zt_priv_libc_shared> ${part} ranks-only)
  set_tests_properties(priv_libc_${part}_shared_detected PROPERTIES TIMEOUT 90)
endforeach()
zmpi_add_mpi_test(priv_libc_shared_unprivatized_4x2 PROGRAM priv_libc_shared NP 4 WORKERS 2
  ARGS shared)
# atexit and on_exit handlers: each rank's run once, in that rank, at its
# end, last registered first, whether the rank returns from main (even
# ranks) or calls exit (odd ranks).  Every line must say "ok"; three lines
# per rank.  Also on the dlopen path, which closes a rank's copy at its end.
foreach(loader zmpi dl)
  foreach(layout 7x2 64x1)
    string(REPLACE "x" ";" lw ${layout})
    list(GET lw 0 np)
    list(GET lw 1 nw)
    add_test(NAME priv_libc_atexit_${loader}_${layout}
      COMMAND sh -c "out=$(ZMPI_LOADER=$2 \"$0\" -n ${np} -w ${nw} \"$1\" atexit) || exit 1
printf '%s\\n' \"$out\"
[ $(printf '%s\\n' \"$out\" | grep -c '^atexit [a-z_]* ok rank') -eq $((3 * ${np})) ] &&
[ $(printf '%s\\n' \"$out\" | grep '^atexit ' | sort -u | wc -l) -eq $((3 * ${np})) ] &&
! printf '%s\\n' \"$out\" | grep -q '^atexit [a-z_-]* bad'"
              $<TARGET_FILE:zmpirun> $<TARGET_FILE:zt_priv_libc> ${loader})
    set_tests_properties(priv_libc_atexit_${loader}_${layout} PROPERTIES TIMEOUT 90
      ENVIRONMENT "MPIEXEC_TIMEOUT=80")
  endforeach()
endforeach()
# ---- end of per-rank libc state beyond getopt ----
