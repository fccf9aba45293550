# ---- Handle conversion, Fortran datatypes, datatype extras (issue 23) ----
# handles: C <-> Fortran handles of every kind and status conversions.
# dt_fortran: the Fortran-named and C++ datatypes, MPI_CHAR reductions,
# f90 types, MPI_Type_match_size and MPI_Type_get_value_index.  Both run on
# one rank, on two and seven ranks over one and two workers, and on 64.
zmpi_add_program(zt_handles handles.c)
zmpi_add_program(zt_dt_fortran dt_fortran.c)
foreach(layout 1x1 2x1 2x2 7x1 7x2 64x2)
  string(REPLACE "x" ";" lw ${layout})
  list(GET lw 0 np)
  list(GET lw 1 nw)
  zmpi_add_mpi_test(handles_${layout} PROGRAM handles NP ${np} WORKERS ${nw})
  zmpi_add_mpi_test(dt_fortran_${layout} PROGRAM dt_fortran NP ${np} WORKERS ${nw})
endforeach()

# Fatal errors name the call, the argument and the class.
add_test(NAME wrong_handles_status_ignore
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/expect_fail.sh --timeout 60
          --regex "MPI_Status_c2f\\(c_status=MPI_STATUS_IGNORE\\)"
          --regex "MPI_ERR_ARG" --
          $<TARGET_FILE:zmpirun> -n 2 -w 2 $<TARGET_FILE:zt_handles> fatal_status_ignore)
add_test(NAME wrong_dt_fortran_land_integer
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/expect_fail.sh --timeout 60
          --regex "MPI_Allreduce\\(op=MPI_LAND\\): not defined for datatype MPI_INTEGER"
          --regex "MPI_ERR_OP" --
          $<TARGET_FILE:zmpirun> -n 3 -w 2 $<TARGET_FILE:zt_dt_fortran> fatal_land_integer)
set_tests_properties(wrong_handles_status_ignore wrong_dt_fortran_land_integer
  PROPERTIES TIMEOUT 90)
# ---- end of handle conversion, Fortran datatypes, datatype extras ----
