# MPI-IO (helper "io", issue 18): files in a private directory under
# ${TMPDIR:-/tmp}, checked byte for byte against serial models.

foreach(prog io_basic io_views io_coll io_shared io_nbc io_ext32)
  if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/${prog}.c)
    zmpi_add_program(zt_${prog} ${prog}.c)
    zmpi_add_mpi_layouts(${prog} PROGRAM ${prog} LAYOUTS 1x1 2x1 2x2 7x2 64x2)
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
  zmpi_add_fatal_test(io_wrong_${mistake} PROGRAM io_wrong ${ARGN} ARGS ${mistake})
endfunction()
zmpi_add_io_wrong_test(open_missing NP 3 WORKERS 2
  REGEX "rank [0-2]: MPI_File_open: cannot open \"[^\"]*no_such_file.dat\": No such file"
        "MPI_ERR_NO_SUCH_FILE" "MPI_ERRORS_ARE_FATAL")
zmpi_add_io_wrong_test(write_rdonly NP 2 WORKERS 1
  REGEX "rank [01]: MPI_File_write: the file is open MPI_MODE_RDONLY .file \"[^\"]*no_such_file.dat\""
        "MPI_ERR_READ_ONLY")
