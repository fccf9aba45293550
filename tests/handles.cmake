# ---- Handle conversion, Fortran datatypes, datatype extras (issue 23) ----
# handles: C <-> Fortran handles of every kind and status conversions.
# dt_fortran: the Fortran-named and C++ datatypes, MPI_CHAR reductions,
# f90 types, MPI_Type_match_size and MPI_Type_get_value_index.  Both run on
# one rank, on two and seven ranks over one and two workers, and on 64.
zmpi_add_program(zt_handles handles.c)
zmpi_add_program(zt_dt_fortran dt_fortran.c)
foreach(prog handles dt_fortran)
  zmpi_add_mpi_layouts(${prog} PROGRAM ${prog} LAYOUTS 1x1 2x1 2x2 7x1 7x2 64x2)
endforeach()

# Fatal errors name the call, the argument and the class.
zmpi_add_fatal_test(wrong_handles_status_ignore PROGRAM handles NP 2 WORKERS 2
  REGEX "MPI_Status_c2f\\(c_status=MPI_STATUS_IGNORE\\)" "MPI_ERR_ARG"
  ARGS fatal_status_ignore)
zmpi_add_fatal_test(wrong_dt_fortran_land_integer PROGRAM dt_fortran NP 3 WORKERS 2
  REGEX "MPI_Allreduce\\(op=MPI_LAND\\): not defined for datatype MPI_INTEGER" "MPI_ERR_OP"
  ARGS fatal_land_integer)
# ---- end of handle conversion, Fortran datatypes, datatype extras ----
