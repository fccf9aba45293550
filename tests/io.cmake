# MPI-IO (helper "io", issue 18): files in a private directory under
# ${TMPDIR:-/tmp}, checked byte for byte against serial models.

foreach(prog io_basic io_views io_coll io_shared io_nbc io_ext32)
  if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/${prog}.c)
    zmpi_add_program(zt_${prog} ${prog}.c)
    foreach(layout 1x1 2x1 2x2 7x2 64x2)
      string(REPLACE "x" ";" lw ${layout})
      list(GET lw 0 np)
      list(GET lw 1 nw)
      zmpi_add_mpi_test(${prog}_${layout} PROGRAM ${prog} NP ${np} WORKERS ${nw})
    endforeach()
    # The same on tmpfs (the runs above use ${TMPDIR:-/tmp}, usually a
    # disk-backed directory).
    if(IS_DIRECTORY /dev/shm)
      zmpi_add_mpi_test(${prog}_shm_7x2 PROGRAM ${prog} NP 7 WORKERS 2)
      set_tests_properties(${prog}_shm_7x2 PROPERTIES
        ENVIRONMENT "MPIEXEC_TIMEOUT=120;TMPDIR=/dev/shm")
    endif()
  endif()
endforeach()

# Fatal errors on files: the message names the call, the rank, the file
# and the operating system's reason.
zmpi_add_program(zt_io_wrong io_wrong.c)
function(zmpi_add_io_wrong_test mistake)
  cmake_parse_arguments(T "" "NP;WORKERS" "REGEX" ${ARGN})
  set(opts --timeout 60)
  foreach(re ${T_REGEX})
    list(APPEND opts --regex "${re}")
  endforeach()
  add_test(NAME io_wrong_${mistake}
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/expect_fail.sh ${opts} --
            $<TARGET_FILE:zmpirun> -n ${T_NP} -w ${T_WORKERS}
            $<TARGET_FILE:zt_io_wrong> ${mistake})
  set_tests_properties(io_wrong_${mistake} PROPERTIES TIMEOUT 90)
endfunction()
zmpi_add_io_wrong_test(open_missing NP 3 WORKERS 2
  REGEX "rank [0-2]: MPI_File_open: cannot open \"[^\"]*no_such_file.dat\": No such file"
        "MPI_ERR_NO_SUCH_FILE" "MPI_ERRORS_ARE_FATAL")
zmpi_add_io_wrong_test(write_rdonly NP 2 WORKERS 1
  REGEX "rank [01]: MPI_File_write: the file is open MPI_MODE_RDONLY .file \"[^\"]*no_such_file.dat\""
        "MPI_ERR_READ_ONLY")
