# Large counts (issue 15): the _c calls against their int twins
# (tests/large_calls.c), messages and datatypes of 3 GiB and the int forms'
# answers for results an int cannot hold (tests/large_huge.c), and the
# generated surface kept in step with its generator.  Both programs keep
# per-rank state in globals, so they are linked for privatization.

zmpi_add_priv_program(zt_large_calls large_calls.c)
zmpi_add_priv_program(zt_large_huge large_huge.c)

zmpi_add_mpi_layouts(large_calls PROGRAM large_calls LAYOUTS 1x1 2x1 2x2 7x2)

# 3 GiB messages need about 13 GiB (two 3 GiB buffers per rank pair plus
# the derived-type layout): the program skips itself (exit 77) when
# /proc/meminfo says there is less available.  Labelled "huge" so that
# `ctest -LE huge` leaves it out on small machines.
zmpi_add_mpi_test(large_huge_3gib_2x2 PROGRAM large_huge NP 2 WORKERS 2 TIMEOUT 300)
set_tests_properties(large_huge_3gib_2x2 PROPERTIES SKIP_RETURN_CODE 77 LABELS huge
  RUN_SERIAL TRUE)

add_test(NAME large_gen_uptodate
  COMMAND python3 ${CMAKE_SOURCE_DIR}/scripts/gen_large_count.py --check)
