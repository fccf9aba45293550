# Fortran bindings (issue 19; docs/fortran.md): programs built with the
# build-tree zmpifort exactly as a user builds them, run under zmpirun on
# several layouts (ranks x workers), verifying their own results.  Only
# when zmpi was configured with a Fortran compiler (ZMPI_FORTRAN).
if(NOT ZMPI_FORTRAN)
  return()
endif()

set(ZT_FORT ${CMAKE_BINARY_DIR}/tools/zmpifort)
set(ZT_FSRC ${CMAKE_CURRENT_SOURCE_DIR}/fortran)
set(ZT_FBIN ${CMAKE_CURRENT_BINARY_DIR}/fortran)

# zt_fortran_program(<name> <source> [FLAGS ...]): tests/fortran/<source>
# compiled and linked by zmpifort into <build>/tests/fortran/<name>/<name>
# (a directory per program, for the modules it writes).
function(zt_fortran_program name source)
  cmake_parse_arguments(P "" "" "FLAGS" ${ARGN})
  set(dir ${ZT_FBIN}/${name})
  add_custom_command(OUTPUT ${dir}/${name}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${dir}
    COMMAND ${ZT_FORT} ${P_FLAGS} -J ${dir} -o ${dir}/${name} ${ZT_FSRC}/${source}
    DEPENDS ${ZT_FSRC}/${source} zmpi_fortran zmpi zmpi_priv zmpi_main
      ${CMAKE_SOURCE_DIR}/tools/zmpifort.in
    COMMENT "zmpifort ${source} -> ${name}" VERBATIM)
  add_custom_target(zt_f_${name} ALL DEPENDS ${dir}/${name})
endfunction()

# zt_fortran_runs(<name> <layout>...): one test fortran_<name>_<layout> per
# layout NPxWORKERS; passes when the job exits 0.
function(zt_fortran_runs name)
  foreach(layout ${ARGN})
    string(REPLACE "x" ";" lw ${layout})
    list(GET lw 0 np)
    list(GET lw 1 nw)
    add_test(NAME fortran_${name}_${layout}
      COMMAND $<TARGET_FILE:zmpirun> -n ${np} -w ${nw} ${ZT_FBIN}/${name}/${name})
    set_tests_properties(fortran_${name}_${layout} PROPERTIES TIMEOUT 120
      ENVIRONMENT "MPIEXEC_TIMEOUT=120" PASS_REGULAR_EXPRESSION ": OK")
  endforeach()
endfunction()

# The three bindings, the same checks (tests/fortran/mpi_basic.F90 serves
# module mpi and, with -DUSE_MPIF_H, mpif.h), plus fixed-form Fortran 77.
zt_fortran_program(f08_basic f08_basic.f90)
zt_fortran_program(mpi_basic mpi_basic.F90)
zt_fortran_program(mpif_basic mpi_basic.F90 FLAGS -DUSE_MPIF_H)
zt_fortran_program(f77_hello f77_hello.f)
foreach(p f08_basic mpi_basic mpif_basic f77_hello)
  zt_fortran_runs(${p} 1x1 2x2 7x2)
endforeach()
zt_fortran_runs(f08_basic 64x2)

# MPI_Send and MPI_Recv through the library's Fortran-handle entries
# (src/mpi/bind_hooks.h), in the three bindings: every bad argument
# reported as from C, naming the call; messages with predefined and user
# handles.
zt_fortran_program(f08_send_recv_checks send_recv_checks.F90 FLAGS -DUSE_F08)
zt_fortran_program(mpi_send_recv_checks send_recv_checks.F90)
zt_fortran_program(mpif_send_recv_checks send_recv_checks.F90 FLAGS -DUSE_MPIF_H)
foreach(p f08_send_recv_checks mpi_send_recv_checks mpif_send_recv_checks)
  zt_fortran_runs(${p} 1x1 2x2 7x2)
endforeach()

# A halo exchange of non-contiguous grid rows: a derived datatype and the
# array sections themselves (mpi_f08).
zt_fortran_program(halo halo.f90)
zt_fortran_runs(halo 1x1 2x2 7x2 64x2)

# Array sections of every shape in nonblocking, persistent, collective,
# one-sided and file calls of mpi_f08 (MPI_SUBARRAYS_SUPPORTED), checked
# element by element.
zt_fortran_program(f08_sections f08_sections.f90)
zt_fortran_runs(f08_sections 1x1 2x2 7x2)

# Array sections that no datatype describes, in nonblocking, persistent
# and one-sided calls: the library fills, writes back and frees a copy
# (src/mpi/bind_hooks.h), checked element by element.
zt_fortran_program(f08_sec_copy f08_sec_copy.f90)
zt_fortran_runs(f08_sec_copy 1x1 2x2 7x2)

# MPI_REGISTER_DATAREP with Fortran conversion procedures (use mpi and
# use mpi_f08), and MPI_CONVERSION_FN_NULL.
zt_fortran_program(datarep datarep.F90)
zt_fortran_program(datarep_f08 datarep.F90 FLAGS -DUSE_F08)
foreach(p datarep datarep_f08)
  zt_fortran_runs(${p} 1x1 2x2 7x2)
endforeach()

# Without privatization the same program runs as well.
zt_fortran_program(mpi_basic_noprivatize mpi_basic.F90 FLAGS -zmpi-no-privatize)
zt_fortran_runs(mpi_basic_noprivatize 2x2 7x2)

# Module variables, COMMON blocks and SAVEd variables are private per rank;
# the same source linked with -zmpi-no-privatize shares them, which the
# program must detect (so the check can fail).
zt_fortran_program(priv_vars priv_vars.f90)
zt_fortran_runs(priv_vars 1x1 7x2 64x2)
zt_fortran_program(priv_vars_shared priv_vars.f90 FLAGS -zmpi-no-privatize)
add_test(NAME fortran_priv_vars_shared_detected
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/expect_fail.sh --timeout 60 --regex "FAIL rank" --
          $<TARGET_FILE:zmpirun> -n 8 -w 2 ${ZT_FBIN}/priv_vars_shared/priv_vars_shared)
set_tests_properties(fortran_priv_vars_shared_detected PROPERTIES TIMEOUT 90)

# module mpi's explicit interfaces: a call with a missing argument does not
# compile.
add_test(NAME fortran_bad_argcount_rejected
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/expect_fail.sh --timeout 60
          --regex "bad_argcount.f90" --regex "mpi_comm_rank" --
          ${ZT_FORT} -J ${ZT_FBIN} -c -o ${ZT_FBIN}/bad_argcount.o ${ZT_FSRC}/bad_argcount.f90)
set_tests_properties(fortran_bad_argcount_rejected PROPERTIES TIMEOUT 90)

# CMake's FindMPI finds zmpifort for Fortran (mpif.h, mpi and mpi_f08).
add_test(NAME fortran_findmpi
  COMMAND sh ${ZT_FSRC}/findmpi_fortran.sh ${CMAKE_BINARY_DIR}/tools $<TARGET_FILE:zmpirun>
          ${CMAKE_COMMAND} ${CMAKE_Fortran_COMPILER})
set_tests_properties(fortran_findmpi PROPERTIES TIMEOUT 300)

# STOP ends one rank (the others go on and finish); ERROR STOP ends the
# job with its code.
zt_fortran_program(stop_rank stop_rank.f90)
zt_fortran_runs(stop_rank 3x1 3x2)
zt_fortran_program(stop_rank_noprivatize stop_rank.f90 FLAGS -zmpi-no-privatize)
zt_fortran_runs(stop_rank_noprivatize 3x2)
add_test(NAME fortran_error_stop_ends_job
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/expect_fail.sh --timeout 60 --exit-code 3
          --regex "ERROR STOP 3" --regex "rank 0 wrote this before ERROR STOP"
          --regex "rank 2 wrote this before ERROR STOP" --
          $<TARGET_FILE:zmpirun> -n 3 -w 2 ${ZT_FBIN}/stop_rank/stop_rank error)
add_test(NAME fortran_runtime_error_keeps_output
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/expect_fail.sh --timeout 60 --exit-code 2
          --regex "Cannot open file" --regex "rank 0 wrote this before ERROR STOP"
          --regex "rank 2 wrote this before ERROR STOP" --
          $<TARGET_FILE:zmpirun> -n 3 -w 2 ${ZT_FBIN}/stop_rank/stop_rank runtime)
set_tests_properties(fortran_error_stop_ends_job fortran_runtime_error_keeps_output
  PROPERTIES TIMEOUT 90)

# WRITE(*,*), formatted WRITE and PRINT from 64 ranks on two workers, with
# stdout redirected to a file: every line whole, every rank's lines there
# and in order (write_lines.sh checks the file).
zt_fortran_program(write_lines write_lines.f90)
add_test(NAME fortran_write_lines_64x2
  COMMAND sh ${ZT_FSRC}/write_lines.sh $<TARGET_FILE:zmpirun>
          ${ZT_FBIN}/write_lines/write_lines 64 2)
set_tests_properties(fortran_write_lines_64x2 PROPERTIES TIMEOUT 120
  ENVIRONMENT "MPIEXEC_TIMEOUT=120" PASS_REGULAR_EXPRESSION "all intact")

# RANDOM_NUMBER's state is per worker thread (docs/fortran.md): shared by
# two ranks on one worker, separate on two; a rank that seeds and draws
# between MPI calls gets its seed's sequence (the argument is the number
# of workers).
zt_fortran_program(rng rng.f90)
foreach(nw 1 2)
  add_test(NAME fortran_rng_2x${nw}
    COMMAND $<TARGET_FILE:zmpirun> -n 2 -w ${nw} ${ZT_FBIN}/rng/rng ${nw})
  set_tests_properties(fortran_rng_2x${nw} PROPERTIES TIMEOUT 120
    ENVIRONMENT "MPIEXEC_TIMEOUT=120" PASS_REGULAR_EXPRESSION "all checks passed")
endforeach()
add_test(NAME fortran_rng_64x2
  COMMAND $<TARGET_FILE:zmpirun> -n 64 -w 2 ${ZT_FBIN}/rng/rng 2)
set_tests_properties(fortran_rng_64x2 PROPERTIES TIMEOUT 120
  ENVIRONMENT "MPIEXEC_TIMEOUT=120" PASS_REGULAR_EXPRESSION "all checks passed")

# MPI_COMM_SPAWN and MPI_COMM_SPAWN_MULTIPLE (docs/spawn.md): parents spawn
# children of the same program, with argument lists (a COUNT x * array for
# the multiple form), MPI_ARGV_NULL, MPI_ARGVS_NULL, MPI_ERRCODES_IGNORE,
# and a command that cannot become ranks; the three bindings from one
# source.  On one worker thread only: the children of one spawn have
# different argument lists, and libgfortran keeps one list per process
# (tests/fortran/spawn.F90 says why that is deterministic on one worker).
zt_fortran_program(spawn spawn.F90)
zt_fortran_program(spawn_mpif spawn.F90 FLAGS -DUSE_MPIF_H)
zt_fortran_program(spawn_f08 spawn.F90 FLAGS -DUSE_F08)
foreach(p spawn spawn_mpif spawn_f08)
  zt_fortran_runs(${p} 1x1 3x1)
endforeach()

# MPICH's own self-checking Fortran test programs (f77, f90 and f08
# directories of MPICH 4.0.2), fetched from Debian's source archive at test
# time, built unchanged with zmpifort and run on 4 and 64 ranks; the
# script skips (77) only when the download is impossible.
if(ZMPI_TEST_SUITES)
  add_test(NAME suite_fortran_mpich
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/suite/fortran/mpich_fortran_test.sh
            ${ZT_FORT} $<TARGET_FILE:zmpirun>)
  set_tests_properties(suite_fortran_mpich PROPERTIES TIMEOUT 900 SKIP_RETURN_CODE 77
    LABELS suite)
endif()

# zmpi's extensions from Fortran (docs/fortran.md, "zmpi's extensions").
# ZMPI_MIGRATE with zmpi_lb=rotate, ZMPI_SET_LOAD and their errors, from
# the three bindings.
zt_fortran_program(migrate_f migrate_f.F90)
zt_fortran_program(migrate_f_mpi migrate_f.F90 FLAGS -DUSE_MPI)
zt_fortran_program(migrate_f_mpif migrate_f.F90 FLAGS -DUSE_MPIF_H)
foreach(p migrate_f migrate_f_mpi migrate_f_mpif)
  zt_fortran_runs(${p} 1x1 4x2 9x3)
  set_tests_properties(fortran_${p}_4x2 fortran_${p}_9x3 PROPERTIES
    ENVIRONMENT "MPIEXEC_TIMEOUT=120;ZMPI_WAKE_MIGRATE=0;ZMPI_STEAL=0")
endforeach()
# ZMPI_CHECKPOINT: module variables, a COMMON block, SAVEd variables and
# ALLOCATABLE arrays come back in a restarted job with 1 and 2 workers and
# give the result of a run straight through (tests/ckpt_restart.sh, as the
# C programs of tests/ckpt.cmake), with mpi_f08 and with mpi.
zt_fortran_program(ckpt_f ckpt_f.F90)
zt_fortran_program(ckpt_f_mpi ckpt_f.F90 FLAGS -DUSE_MPI)
foreach(np 1 8 64)
  foreach(p ckpt_f ckpt_f_mpi)
    add_test(NAME fortran_${p}_restart_${np}
      COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/ckpt_restart.sh $<TARGET_FILE:zmpirun>
              ${ZT_FBIN}/${p}/${p} ${np})
    set_tests_properties(fortran_${p}_restart_${np} PROPERTIES TIMEOUT 240
      PASS_REGULAR_EXPRESSION "ckpt_restart: ok")
  endforeach()
endforeach()
# Refused, through MPI_ERRORS_RETURN, with the reason, in a job started
# without --checkpoint (the directory comes trimmed from a blank-padded
# CHARACTER variable).
add_test(NAME fortran_ckpt_f_refused_without_checkpoint_flag
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/expect_fail.sh --timeout 60 --exit-code 4
          --regex "rank [0-9]+: checkpoint refused: .*start it with zmpirun --checkpoint" --
          $<TARGET_FILE:zmpirun> -n 2 -w 2 ${ZT_FBIN}/ckpt_f/ckpt_f
          ${CMAKE_CURRENT_BINARY_DIR}/ckpt_f_none)
set_tests_properties(fortran_ckpt_f_refused_without_checkpoint_flag PROPERTIES TIMEOUT 90)
