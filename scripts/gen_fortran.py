#!/usr/bin/env python3
"""gen_fortran.py: generate zmpi's Fortran bindings from include/mpi.h.

The C interface has one description: the ZMPI_FN(ret, Name, (args)) lines of
include/mpi.h, and the declarations of zmpi's extensions there (ZMPI_Migrate,
ZMPI_Set_load, ZMPI_Checkpoint: bound as ZMPI_X/PZMPI_X, glue pzmpi_x_).
This script reads them and writes, in the build tree,

  names   fconst_names.h: every object-like MPI_ macro of mpi.h, for the
          constants program (src/bindings/fortran/fconst.c), which prints
          their values as the C library has them;
  sources from mpi.h and that program's output (fconst.txt):
          zf_glue.c      C glue: pmpi_x_ (weak alias mpi_x_) as gfortran calls
                         an external procedure MPI_X, used by mpif.h, the mpi
                         module and, for functions without choice buffers,
                         the mpi_f08 module; MPI_X_f08ts for mpi_f08
                         functions with choice buffers (CFI descriptors);
          mpif.h         constants, sentinels, function types;
          mpi.f90        module mpi (explicit interfaces);
          mpi_f08.f90    module mpi_f08 (derived-type handles, TYPE(*),
                         DIMENSION(..) buffers, optional ierror).

What a C prototype cannot say (which int is a LOGICAL, which pointer is an
array and how long, which handle is read and written, which void * is a
choice buffer) is in the tables of gen_fortran_model.py; the C glue is
written by gen_fortran_glue.py, the Fortran sources by gen_fortran_f90.py.
Every C function gets a
binding or a written reason for having none (left_out.txt in the build
tree): the LEAVE_OUT_PATTERNS, or, for an argument no rule classifies, a
warning naming it, so a new ZMPI_FN line never stops the build.
"""
import os
import sys

# The modules beside this script; no __pycache__ in the source tree.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_fortran_model import Fail, classify, parse_header, parse_macros  # noqa: E402
from gen_fortran_glue import gen_glue  # noqa: E402
from gen_fortran_f90 import (KIND_BYTES, gen_f08_module, gen_mpi_module,  # noqa: E402
                             gen_mpif, gen_names, read_consts)


def main(argv):
    if len(argv) < 3:
        print('usage: gen_fortran.py names MPI_H OUT.h | sources MPI_H FCONST.txt OUTDIR',
              file=sys.stderr)
        return 2
    try:
        if argv[1] == 'names':
            gen_names(parse_macros(argv[2]), argv[3])
            return 0
        fns = parse_header(argv[2])
        for fn in fns:
            classify(fn)
        consts = read_consts(argv[3])
        KIND_BYTES.update((c[1], int(c[2])) for c in consts if c[0] == 'KIND')
        outdir = argv[4]
        gen_glue(fns, consts, outdir + '/zf_glue.c')
        gen_mpif(consts, fns, outdir + '/include/mpif.h')
        gen_mpi_module(consts, fns, outdir + '/mpi.f90')
        gen_f08_module(consts, fns, outdir + '/mpi_f08.f90')
        with open(outdir + '/left_out.txt', 'w') as f:
            for fn in fns:
                if fn.reason:
                    f.write('%s: %s\n' % (fn.cname, fn.reason))
    except Fail as e:
        print('gen_fortran.py: error: %s' % e, file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
