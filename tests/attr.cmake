# ---- Attribute caching (attr.c) ----
# Keys, attributes and their callbacks on communicators, datatypes and
# windows, on one rank, on two ranks on one and two workers, and on odd and
# large rank counts.
zmpi_add_program(zt_attr_caching attr_caching.c)
# Errors on a window go to the window's handler (MPI_ERRORS_ARE_FATAL at
# creation): the program checks them only when mpi.h has
# MPI_Win_set_errhandler to make it MPI_ERRORS_RETURN.
zmpi_mpi_h_declares(ZT_ATTR_WIN_EH Win_set_errhandler)
if(ZT_ATTR_WIN_EH)
  target_compile_definitions(zt_attr_caching PRIVATE ZT_HAVE_WIN_SET_ERRHANDLER)
endif()
zmpi_add_mpi_layouts(attr_caching PROGRAM attr_caching LAYOUTS 1x1 2x1 2x2 7x2 64x1 64x2)

# MPI_Finalize deletes the attributes on MPI_COMM_SELF (then MPI_COMM_WORLD)
# newest first, before anything else is finalized.
zmpi_add_program(zt_attr_finalize attr_finalize.c)
zmpi_add_mpi_layouts(attr_finalize PROGRAM attr_finalize LAYOUTS 1x1 2x2 7x2)

# Erroneous programs: the job fails by itself, naming the call and the key.
zmpi_add_program(zt_attr_wrong attr_wrong.c)
function(zt_attr_wrong_test mistake)
  zmpi_add_fatal_test(attr_wrong_${mistake} PROGRAM attr_wrong NP 3 WORKERS 2 REGEX ${ARGN}
                      ARGS ${mistake})
endfunction()
zt_attr_wrong_test(set_tag_ub "rank 1: MPI_Comm_set_attr" "keyval=1" "predefined"
                   "MPI_ERR_KEYVAL")
zt_attr_wrong_test(freed_key "rank 1: MPI_Comm_set_attr" "keyval=[0-9]+" "freed"
                   "MPI_ERR_KEYVAL")
zt_attr_wrong_test(type_key_on_comm "rank 1: MPI_Comm_get_attr" "a datatype key"
                   "MPI_ERR_KEYVAL")
zt_attr_wrong_test(delete_fails "rank 1: MPI_Comm_free" "delete callback")
# ---- end of attribute caching ----
